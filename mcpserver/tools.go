package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/safetext"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/store"
)

// Limits of the list-like tools: the default a model gets when it names
// none, and the most it may ask for (a model's context is the budget).
const (
	defaultSearchLimit = 10
	maxSearchLimit     = 100
	defaultListLimit   = 50
	maxListLimit       = 1000
)

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query   string `json:"query" jsonschema:"free text: symptoms, error messages, file paths, tool names; every word counts"`
	Limit   int    `json:"limit,omitempty" jsonschema:"how many results at most (1-100, default 10)"`
	Project string `json:"project,omitempty" jsonschema:"rank this project's learnings first (default: the project of the directory the server runs in)"`
	// IncludePending finds the drafts awaiting the user's review too.
	IncludePending bool `json:"include_pending,omitempty" jsonschema:"also find drafts an LLM writer wrote that the user has not reviewed yet (held: pending); they are not the user's knowledge until approved"`
}

// SearchHit is one search result.
type SearchHit struct {
	ID         string   `json:"id" jsonschema:"the learning's id, for get and forget"`
	Title      string   `json:"title"`
	KeyInsight string   `json:"key_insight,omitempty" jsonschema:"what to remember, in a sentence"`
	Confidence string   `json:"confidence" jsonschema:"high, medium or low"`
	Stale      bool     `json:"stale" jsonschema:"a file the learning cites changed since it was written: check before relying on it"`
	StaleFiles []string `json:"stale_files,omitempty"`
	Score      float64  `json:"score" jsonschema:"fused relevance score; higher is better, comparable only within one search"`
	Project    string   `json:"project,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Held       string   `json:"held,omitempty" jsonschema:"why hooks do not inject it: pending (a draft awaiting review), superseded, or marked wrong, outdated or never"`
}

// SearchOutput is the search tool's result.
type SearchOutput struct {
	Query   string      `json:"query"`
	Results []SearchHit `json:"results"`
}

// RecallInput is the recall tool's arguments.
type RecallInput struct {
	Task      string `json:"task" jsonschema:"what you are about to do, in the user's words or yours"`
	SessionID string `json:"session_id,omitempty" jsonschema:"your session id: learnings already given in this session are named, not repeated"`
}

// RecallOutput is the recall tool's result: the hooks' block and what is in it.
type RecallOutput struct {
	Context       string       `json:"context" jsonschema:"the <reflect-learnings> block, empty when nothing passes the relevance floor and the gate"`
	Injected      []recall.Hit `json:"injected"`
	StillRelevant string       `json:"still_relevant,omitempty" jsonschema:"id of the best match, already given earlier in this session"`
	Skipped       string       `json:"skipped,omitempty" jsonschema:"why context is empty"`
}

// IDInput names one learning.
type IDInput struct {
	ID string `json:"id" jsonschema:"a learning id (lrn-…), a unique prefix of one, or its 6-hex suffix"`
}

// Learning is a whole learning as get returns it. Its questions are what
// someone who has the problem would ask: why it is found, not its answer.
type Learning struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	KeyInsight   string   `json:"key_insight,omitempty"`
	Body         string   `json:"body"`
	Confidence   string   `json:"confidence"`
	Type         string   `json:"type,omitempty"`
	Category     string   `json:"category,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Symptoms     []string `json:"symptoms,omitempty"`
	Questions    []string `json:"questions,omitempty"`
	Scope        string   `json:"scope,omitempty"`
	Project      string   `json:"project,omitempty"`
	Created      string   `json:"created"`
	Updated      string   `json:"updated,omitempty"`
	SupersededBy string   `json:"superseded_by,omitempty"`
	Path         string   `json:"path"`
}

// RememberInput is the remember tool's arguments.
type RememberInput struct {
	Title      string   `json:"title" jsonschema:"the learning in one line, e.g. 'Use SameSite=Lax for the OAuth state cookie'"`
	KeyInsight string   `json:"key_insight" jsonschema:"what to remember next time, in one or two sentences"`
	Body       string   `json:"body,omitempty" jsonschema:"markdown: Problem / Solution / Context; commands, paths and error messages verbatim"`
	Tags       []string `json:"tags,omitempty" jsonschema:"a few lowercase keywords"`
	Questions  []string `json:"questions,omitempty" jsonschema:"3 to 5 things a developer who has this problem, and does not yet know its cause, would type to their coding agent, in their own words (what they saw, a question, a half-remembered name; not the cause or the fix). Searched so that the learning is found in other words than its own; never shown as the answer"`
	Confidence string   `json:"confidence,omitempty" jsonschema:"high (verified), medium (default) or low (a hunch)"`
	Scope      string   `json:"scope,omitempty" jsonschema:"project (true of this codebase) or global (true anywhere)"`
	Project    string   `json:"project,omitempty" jsonschema:"the project it belongs to (default for scope project: the server's directory's project)"`
	Force      bool     `json:"force,omitempty" jsonschema:"add even when an existing learning says nearly the same (default false: that one is named instead)"`
}

// RememberOutput says what remember wrote.
type RememberOutput struct {
	ID      string `json:"id"`
	Action  string `json:"action" jsonschema:"added, or updated when a learning with the same title and insight existed"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ForgetOutput says what forget removed.
type ForgetOutput struct {
	ID        string `json:"id"`
	Forgotten bool   `json:"forgotten"`
}

// ListInput is the list tool's arguments.
type ListInput struct {
	Project string `json:"project,omitempty" jsonschema:"only learnings of this project"`
	Limit   int    `json:"limit,omitempty" jsonschema:"how many at most (1-1000, default 50)"`
}

// ListItem is one learning in a list.
type ListItem struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	KeyInsight string   `json:"key_insight,omitempty"`
	Confidence string   `json:"confidence"`
	Project    string   `json:"project,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Updated    string   `json:"updated"`
}

// ListOutput is the list tool's result, most recently updated first.
type ListOutput struct {
	Learnings []ListItem `json:"learnings"`
}

func boolPtr(b bool) *bool { return &b }

func (s *Server) addTools() {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
	mcp.AddTool(s.sdk, &mcp.Tool{
		Name:  "search",
		Title: "Search learnings",
		Description: "Search the user's knowledge base of coding learnings (past failures, fixes, corrections, preferences) by free text. " +
			"Ranking is the same as `reflect search`: BM25 over title, insight, tags and body, fused with trigram, vector and entity-graph signals, " +
			"times confidence, recency and project scope. Results marked stale cite files that changed since. Use get for a whole learning.",
		Annotations: readOnly,
	}, s.search)
	mcp.AddTool(s.sdk, &mcp.Tool{
		Name:  "recall",
		Title: "Recall learnings for a task",
		Description: "What reflect's hooks would inject for this task: only learnings that clear the relevance floor, within the configured budgets " +
			"(3 learnings, 1500 characters by default), as a <reflect-learnings> block. With session_id, a learning already given in that session " +
			"is named instead of repeated. An empty context means nothing relevant is known.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: boolPtr(false)},
	}, s.recall)
	mcp.AddTool(s.sdk, &mcp.Tool{
		Name:        "get",
		Title:       "Get a learning",
		Description: "The whole learning with this id (as search, recall and list return it; a unique prefix or the 6-hex suffix is enough): frontmatter fields and markdown body.",
		Annotations: readOnly,
	}, s.get)
	mcp.AddTool(s.sdk, &mcp.Tool{
		Name:  "remember",
		Title: "Remember a learning",
		Description: "Record something worth knowing next time: a fix and its cause, a gotcha, a user correction or preference. " +
			"Written exactly as `reflect add` writes it (secrets redacted, indexed at once). A learning with the same title and key insight " +
			"is updated rather than duplicated, and the result says so. Keep it specific: the error message, the command, the file.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(false), IdempotentHint: true, OpenWorldHint: boolPtr(false)},
	}, s.remember)
	mcp.AddTool(s.sdk, &mcp.Tool{
		Name:        "forget",
		Title:       "Forget a learning",
		Description: "Delete a learning for good: its file, its entities and its index entries. Use when a learning is wrong or obsolete; there is no undo.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(true), IdempotentHint: true, OpenWorldHint: boolPtr(false)},
	}, s.forget)
	mcp.AddTool(s.sdk, &mcp.Tool{
		Name:        "list",
		Title:       "List learnings",
		Description: "Learnings in the knowledge base, most recently updated first, optionally of one project.",
		Annotations: readOnly,
	}, s.list)
	mcp.AddTool(s.sdk, markTool, s.mark)
}

// checkSize refuses text arguments over MaxInput, naming the field.
func checkSize(fields map[string]string) error {
	for name, v := range fields {
		if len(v) > MaxInput {
			return fmt.Errorf("%s is %d bytes; the limit is %d (1 MiB): send a shorter %s", name, len(v), MaxInput, name)
		}
	}
	return nil
}

// place returns the project and top directory a search from the server's
// directory uses, as `reflect search` does from the shell's.
func (s *Server) place(ctx context.Context) (project, root string) {
	cwd := s.opts.Cwd
	if cwd == "" || gitrepo.SkipDir(cwd) != "" {
		return "", ""
	}
	cwd = filepath.Clean(cwd)
	if root = gitrepo.Root(cwd); root == "" {
		root = cwd
	}
	return gitrepo.Project(ctx, cwd), root
}

func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	out := SearchOutput{Query: in.Query, Results: []SearchHit{}}
	if err := checkSize(map[string]string{"query": in.Query, "project": in.Project}); err != nil {
		return nil, out, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, out, errors.New("query is empty: give a few words, e.g. the error message")
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = defaultSearchLimit
	case limit < 1 || limit > maxSearchLimit:
		return nil, out, fmt.Errorf("limit must be between 1 and %d", maxSearchLimit)
	}
	q := index.Query{Text: in.Query, Limit: limit}
	if in.IncludePending {
		q.Pending = index.PendingShown
	}
	q.Project, q.Root = s.place(ctx)
	if in.Project != "" {
		q.Project = in.Project
	}
	err := s.withIndex(ctx, func(ix *index.Index) error {
		results, err := ix.Search(ctx, q)
		for _, r := range results {
			out.Results = append(out.Results, SearchHit{
				ID: r.ID, Title: line(r.Title), KeyInsight: line(r.KeyInsight), Confidence: line(r.Confidence),
				Stale: r.Stale, StaleFiles: lines(r.StaleFiles), Score: r.Score, Project: line(r.Project), Tags: lines(r.Tags), Held: r.Held,
			})
		}
		return err
	})
	return nil, out, err
}

func (s *Server) recall(ctx context.Context, _ *mcp.CallToolRequest, in RecallInput) (*mcp.CallToolResult, RecallOutput, error) {
	out := RecallOutput{Injected: []recall.Hit{}}
	if err := checkSize(map[string]string{"task": in.Task, "session_id": in.SessionID}); err != nil {
		return nil, out, err
	}
	if strings.TrimSpace(in.Task) == "" {
		return nil, out, errors.New("task is empty: describe what you are about to do")
	}
	req := s.recallRequest(in)
	err := s.withIndex(ctx, func(ix *index.Index) error {
		res, err := recall.Recall(ctx, ix, req)
		if err != nil {
			return err
		}
		if res.Warning != "" {
			s.log.Warn("recall", "warning", res.Warning)
		}
		// The block is neutralised by recall; the catalog text in it is
		// redacted here, as every other learning text the server hands out.
		out.Context, out.StillRelevant, out.Skipped = redact.String(res.Context), res.StillRelevant, res.Skipped
		for _, h := range res.Injected {
			h.Title, h.Insight, h.Confidence = line(h.Title), line(h.Insight), line(h.Confidence)
			out.Injected = append(out.Injected, h)
		}
		return nil
	})
	return nil, out, err
}

// recallRequest is the recall a task asks for, with the hooks' budgets and
// gate level from the configuration.
func (s *Server) recallRequest(in RecallInput) recall.Request {
	c := s.opts.Config
	return recall.Request{
		Kind: recall.Prompt, Prompt: in.Task, Task: true, Cwd: s.opts.Cwd,
		SessionID: in.SessionID, StateDir: c.StateDir,
		Max: c.Recall.Max, Chars: c.Recall.Chars, Gate: recall.Gate(c.Recall.Gate),
	}
}

func (s *Server) get(ctx context.Context, _ *mcp.CallToolRequest, in IDInput) (*mcp.CallToolResult, Learning, error) {
	if err := checkSize(map[string]string{"id": in.ID}); err != nil {
		return nil, Learning{}, err
	}
	var l *store.Learning
	err := s.withIndex(ctx, func(ix *index.Index) error {
		var err error
		l, err = readLearning(ctx, ix, in.ID)
		return err
	})
	if err != nil {
		return nil, Learning{}, err
	}
	return nil, learningOf(l), nil
}

// readLearning reads the learning id names: a whole id, else the one
// learning whose id starts with it or ends with -<it> (the 6-hex suffix).
// Only a learning the index holds is served (see servable); it is read by
// the store's bounded reader and redacted.
func readLearning(ctx context.Context, ix *index.Index, id string) (*store.Learning, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, errors.New("id is empty: take one from search, recall or list")
	}
	st := ix.Store()
	full, err := resolveID(st, id)
	if err != nil {
		return nil, err
	}
	if err := servable(ctx, ix, full); err != nil {
		return nil, err
	}
	l, err := st.Read(full)
	var de *store.DocError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, notFound(id)
	case errors.As(err, &de):
		// The reason may quote the file (a YAML error shows the line).
		return nil, fmt.Errorf("%s (the file is malformed; the user can fix it or run 'reflect forget %s')", line(err.Error()), full)
	case err != nil:
		return nil, err
	}
	l.RedactRead()
	return l, nil
}

// servable refuses a learning the index does not hold: a file the indexer
// refused (a symbolic link, a FIFO, an oversize or malformed file) is not
// handed to the model whatever its name, and a learning that appeared
// since the last refresh waits for the next one.
func servable(ctx context.Context, ix *index.Index, id string) error {
	ok, err := ix.Holds(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("learning %s is not in the index (the user can run 'reflect doctor' to see why); find ids with the search or list tools", id)
	}
	return nil
}

// line makes one field of learning text safe to hand to a model, as the
// recall block does: secrets redacted (a synced or hand-edited file never
// went through the redactor on write), then neutralised to one line with
// no control characters and no '<' or '>' in any spelling
// (safetext.Inline), so nothing in it can end the tool result.
func line(s string) string { return safetext.Inline(redact.String(s)) }

// lines is line over a list.
func lines(vs []string) []string {
	if vs == nil {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = line(v)
	}
	return out
}

// block is line for text of several lines (a body, a whole file): the
// line breaks are kept (safetext.Block).
func block(s string) string { return safetext.Block(redact.String(s)) }

func notFound(id string) error {
	return fmt.Errorf("no learning %q; find ids with the search or list tools", id)
}

// resolveID expands a short id (a unique prefix or the 6-hex tail) to the
// one id it names, by the same rule as the commands (store.Resolve).
func resolveID(st *store.Store, id string) (string, error) {
	full, err := st.Resolve(id)
	if errors.Is(err, store.ErrNotFound) {
		return "", notFound(id)
	}
	return full, err
}

// learningOf is what get returns of l, every text field made safe for
// the model by line or block (redacting again what RedactRead redacted
// costs little and keeps one rule for every field).
func learningOf(l *store.Learning) Learning {
	out := Learning{
		ID: l.ID, Title: line(l.Title), KeyInsight: line(l.KeyInsight), Body: block(l.Body),
		Confidence: line(l.Confidence), Type: line(l.Type), Category: line(l.Category),
		Tags: lines(l.Tags), Symptoms: lines(l.Symptoms), Questions: lines(l.Questions), Scope: line(l.Scope),
		Project: line(l.Project), SupersededBy: line(l.SupersededBy), Path: l.Path,
		Created: l.Created.UTC().Format(time.RFC3339),
	}
	if !l.Updated.IsZero() {
		out.Updated = l.Updated.UTC().Format(time.RFC3339)
	}
	return out
}

func (s *Server) remember(ctx context.Context, _ *mcp.CallToolRequest, in RememberInput) (*mcp.CallToolResult, RememberOutput, error) {
	var out RememberOutput
	fields := map[string]string{"title": in.Title, "key_insight": in.KeyInsight, "body": in.Body,
		"confidence": in.Confidence, "scope": in.Scope, "project": in.Project, "tags": strings.Join(in.Tags, ","),
		"questions": strings.Join(in.Questions, "\n")}
	if err := checkSize(fields); err != nil {
		return nil, out, err
	}
	if strings.TrimSpace(in.Title) == "" || strings.TrimSpace(in.KeyInsight) == "" {
		return nil, out, errors.New("title and key_insight are both required: the learning in one line, and what to remember")
	}
	// A model pastes what it saw, secrets included: the text is redacted
	// before anything derives from it (the id hashes title and insight),
	// as the drainer does with what it writes.
	l := &store.Learning{
		Title: redact.String(in.Title), KeyInsight: redact.String(in.KeyInsight), Body: redact.String(in.Body),
		Confidence: in.Confidence, Scope: in.Scope, Project: in.Project,
		Questions: store.CleanQuestions(in.Questions),
	}
	for _, t := range in.Tags {
		if t = strings.TrimSpace(redact.String(t)); t != "" {
			l.Tags = append(l.Tags, t)
		}
	}
	if l.Scope == "project" && l.Project == "" {
		l.Project, _ = s.place(ctx)
	}
	now := s.opts.Now()
	l.FillDefaults(now)
	if err := l.Validate(); err != nil {
		return nil, out, fmt.Errorf("invalid learning: %w", err)
	}
	err := s.withIndex(ctx, func(ix *index.Index) error {
		k := knowledge.New(ix)
		if _, err := k.Store().Read(l.ID); errors.Is(err, store.ErrNotFound) && !in.Force {
			// A new learning: refuse to repeat one that exists, by the
			// rule `reflect add` applies.
			dup, found, err := k.NearDuplicate(ctx, l)
			if err != nil {
				return err
			}
			if found {
				return fmt.Errorf("not added: %s %q says nearly the same (%.0f%% of title and key-insight words shared); read it with get, remember again with its exact title and key_insight to update it, or pass force: true to add this one anyway",
					dup.ID, line(dup.Title), 100*dup.Share)
			}
		}
		res, err := k.Put(ctx, l, nil, now)
		out.ID, out.Action, out.Path = res.ID, res.Action, res.Path
		if errors.Is(err, index.ErrBusy) && res.Path != "" {
			s.log.Warn("remember: saved, not indexed yet", "id", res.ID, "err", err)
			return nil // on disk; the next search catches up
		}
		return err
	})
	if err != nil {
		return nil, out, err
	}
	if out.Action == "updated" {
		out.Message = fmt.Sprintf("Updated %s: a learning with this title and key insight already existed; it now holds this version.", out.ID)
	} else {
		out.Message = fmt.Sprintf("Added %s.", out.ID)
	}
	return nil, out, nil
}

func (s *Server) forget(ctx context.Context, _ *mcp.CallToolRequest, in IDInput) (*mcp.CallToolResult, ForgetOutput, error) {
	if err := checkSize(map[string]string{"id": in.ID}); err != nil {
		return nil, ForgetOutput{}, err
	}
	if strings.TrimSpace(in.ID) == "" {
		return nil, ForgetOutput{}, errors.New("id is empty: take one from search, recall or list")
	}
	// A destructive tool takes the whole id only: a prefix that happens
	// to be unique today is not what the model meant to delete.
	id := strings.TrimSpace(in.ID)
	err := s.withIndex(ctx, func(ix *index.Index) error {
		err := knowledge.New(ix).Forget(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return fmt.Errorf("no learning %q; forget needs the whole id, as search, recall and list return it", id)
		case errors.Is(err, index.ErrBusy):
			s.log.Warn("forget: deleted, still in the index", "id", id, "err", err)
			return nil
		}
		return err
	})
	if err != nil {
		return nil, ForgetOutput{}, err
	}
	return nil, ForgetOutput{ID: id, Forgotten: true}, nil
}

func (s *Server) list(ctx context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	out := ListOutput{Learnings: []ListItem{}}
	if err := checkSize(map[string]string{"project": in.Project}); err != nil {
		return nil, out, err
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = defaultListLimit
	case limit < 1 || limit > maxListLimit:
		return nil, out, fmt.Errorf("limit must be between 1 and %d", maxListLimit)
	}
	err := s.withIndex(ctx, func(ix *index.Index) error {
		items, err := ix.List(ctx, index.ListOptions{Limit: limit, Project: in.Project})
		for _, r := range items {
			out.Learnings = append(out.Learnings, ListItem{
				ID: r.ID, Title: line(r.Title), KeyInsight: line(r.KeyInsight), Confidence: line(r.Confidence),
				Project: line(r.Project), Tags: lines(r.Tags), Updated: r.Updated,
			})
		}
		return err
	})
	return nil, out, err
}
