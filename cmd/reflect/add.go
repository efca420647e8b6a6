package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// AddOptions are the inputs of `reflect add`.
type AddOptions struct {
	IO                                       *Streams
	Source                                   string // file path, "-" for stdin, or "" for flags only
	Title, Insight, Body, Tags, Confidence   string
	Category, Project, Scope, Type, Entities string
	JSON                                     bool
	// Force adds a learning even when a near-duplicate exists.
	Force bool
	// Update is the learning (as typed) to rewrite with the given fields
	// instead of adding one; Supersedes the learning the new one replaces.
	Update, Supersedes string
	// Cwd is where --scope project looks for the git repository.
	Cwd string
}

// NewCmdAdd builds `reflect add`; runF, when not nil, runs instead with
// the parsed options.
func NewCmdAdd(f *Factory, runF func(*AddOptions) error) *cobra.Command {
	opts := &AddOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "add [FILE|-]",
		Short: "Add a learning from a file, stdin or flags",
		Long: `Add validates a learning, writes it to documents/<id>.md with its entity
sidecar, and indexes it at once. FILE (or - for stdin) is a markdown document
with YAML frontmatter; flags override its fields. Without FILE, --title and
--insight are required. id, created and confidence (medium) are filled in
when missing.

Adding a learning whose id exists updates it: its created time and unknown
fields are kept, its tags are merged with the new ones, and add lists the
fields that changed. A learning whose title and key insight share at least
60% of their words with an existing one is a near-duplicate: add names it
and exits 1 without writing; --update ID rewrites that one with the given
fields instead, --force adds a second one anyway. (An explicit id in FILE
does not skip this check.)

--update ID rewrites the existing learning ID: each field given (by flag
or FILE) replaces its value, tags are merged, its id and created time are
kept. --supersedes ID adds a new learning that replaces ID: ID is marked
superseded_by the new one and is no longer injected by the hooks (search
still finds it; 'reflect show' prints the chain both ways).

--scope project records the project of the git repository around the
current directory (its origin remote's name, else the directory's), as
search ranks it; outside a repository it needs --project NAME. --project
without --scope implies --scope project. --scope personal keeps the learning
off 'reflect sync'. Without a scope (no --scope, none in FILE) the learning
is global: recalled in every project and synced, as add says.`,
		Example: `  reflect add --title "Use SameSite=Lax for OAuth state" --insight "Strict drops the cookie on the IdP redirect" --tags oauth,cookies
  reflect add learning.md
  cat learning.md | reflect add - --confidence high
  reflect add --scope project --title "Run migrations before the API" --insight "The API refuses to start on an old schema"
  reflect add --force --title "Pool exhausted under load" --insight "Raise max_connections"
  reflect add --update 3f9a1c --insight "Strict drops the cookie on the IdP's cross-site redirect; use Lax"
  reflect add --supersedes 3f9a1c --title "Use SameSite=None; Secure for embedded IdPs" --insight "Lax is not sent in iframes"`,
		Args: maxArgs(1, "one FILE or -"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Source = args[0]
			}
			if cwd, err := os.Getwd(); err == nil {
				opts.Cwd = cwd
			}
			if runF != nil {
				return runF(opts)
			}
			return addRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Title, "title", "", "title: the learning in one line")
	fl.StringVar(&opts.Insight, "insight", "", "key insight: what to remember")
	fl.StringVar(&opts.Body, "body", "", "markdown body (Problem / Solution / Context)")
	fl.StringVar(&opts.Tags, "tags", "", "comma-separated tags")
	fl.StringVar(&opts.Confidence, "confidence", "", "high, medium or low (default medium)")
	fl.StringVar(&opts.Category, "category", "", "category, e.g. debugging")
	fl.StringVar(&opts.Project, "project", "", "project the learning belongs to")
	fl.StringVar(&opts.Scope, "scope", "", "project, global or personal (project: the current git repository's; personal: never synced)")
	fl.StringVar(&opts.Type, "type", "", "learning or mini")
	fl.StringVar(&opts.Entities, "entities", "", "entity sidecar YAML file")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	fl.BoolVarP(&opts.Force, "force", "f", false, "add even when a near-duplicate exists")
	fl.StringVar(&opts.Update, "update", "", "rewrite the existing learning `ID` with the given fields")
	fl.StringVar(&opts.Supersedes, "supersedes", "", "the new learning replaces `ID`, which is no longer injected")
	_ = cmd.RegisterFlagCompletionFunc("confidence", completeValues(store.Confidences...))
	_ = cmd.RegisterFlagCompletionFunc("scope", completeValues(store.Scopes...))
	_ = cmd.RegisterFlagCompletionFunc("type", completeValues(store.Types...))
	return cmd
}

// addRun adds (or updates) the learning opts describe: it refuses a
// near-duplicate of an existing learning unless opts.Force, then writes it
// through the knowledge base and reports what it did.
func addRun(ctx context.Context, f *Factory, opts *AddOptions) error {
	if opts.Update != "" && opts.Supersedes != "" {
		return usagef("--update and --supersedes do not go together: --update rewrites a learning, --supersedes adds one that replaces it")
	}
	for _, ref := range []*string{&opts.Update, &opts.Supersedes} {
		if *ref == "" {
			continue
		}
		id, err := f.resolveLearning(*ref)
		if err != nil {
			return err
		}
		*ref = id
	}
	l, sc, err := buildLearning(opts, time.Now())
	if err != nil {
		return err
	}
	l.Supersedes = opts.Supersedes
	if err := resolveProject(ctx, l, opts.Cwd); err != nil {
		return err
	}
	ix, err := f.OpenIndex(ctx, false, f.WaitNotice())
	if err != nil {
		return err
	}
	defer ix.Close()
	res, err := addWrite(ctx, ix, opts, l, sc)
	if err != nil && res.Path != "" {
		err = f.notIndexedYet(err, "saved "+res.Path+", not indexed yet")
	}
	if res.Path != "" {
		reportRedacted(f.IO.Err, opts, res.Redacted)
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.Out, res)
	}
	verb := "Added"
	if res.Action == "updated" {
		verb = "Updated"
	}
	fmt.Fprintf(f.IO.Out, "%s %s\n  %s\n", verb, res.ID, res.Path)
	if l.Scope == "" {
		fmt.Fprintln(f.IO.Out, "  no scope: global, recalled in every project and synced (--scope project ties it to this repository, --scope personal keeps it on this machine)")
	}
	if res.Action == "updated" {
		fmt.Fprintf(f.IO.Out, "  %s\n", describeChanges(res.Changes))
	}
	if res.Supersedes != "" {
		fmt.Fprintf(f.IO.Out, "  %s\n", supersedesNote(res.Supersedes, res.SupersedesNamed))
	}
	return nil
}

// supersedesNote says which learning a new one retired: sup, and named
// when the one it named had been superseded already, so that it continued
// that one's chain from its newest learning, sup.
func supersedesNote(sup, named string) string {
	if named == "" {
		return "supersedes " + sup + " (no longer injected)"
	}
	return "supersedes " + sup + " (no longer injected), the newest correction of " + named + ", which was already superseded"
}

// addWrite updates the learning --update names, or puts l, refusing a
// near-duplicate of an existing learning (other than the one l supersedes)
// unless --force; the refusal names the ways on.
func addWrite(ctx context.Context, ix *index.Index, opts *AddOptions, l *store.Learning, sc *store.Sidecar) (knowledge.PutResult, error) {
	k := knowledge.New(ix)
	if opts.Update != "" {
		return k.Update(ctx, opts.Update, l, sc, time.Now())
	}
	if _, err := k.Store().Read(l.ID); errors.Is(err, store.ErrNotFound) && !opts.Force {
		dup, found, err := k.NearDuplicate(ctx, l)
		if err != nil {
			return knowledge.PutResult{}, err
		}
		if found && dup.ID != l.Supersedes {
			short := shortener(ctx, ix, []string{dup.ID})(dup.ID)
			return knowledge.PutResult{}, fmt.Errorf("not added: %s %q says nearly the same (%.0f%% of title and key-insight words shared)\nsee it with 'reflect show %s'; update it with these fields: 'reflect add --update %s …'; replace it: 'reflect add --supersedes %s …'; add this one anyway with --force",
				dup.ID, oneLine(dup.Title), 100*dup.Share, short, short, short)
		}
	}
	return k.Put(ctx, l, sc, time.Now())
}

// resolveProject gives a project-scoped learning its project: --project
// when given (which alone implies --scope project), else the project of
// the git repository around cwd, named as search and the hooks name it.
// Outside a repository there is no project to record, and saying so beats
// writing a project learning that no search would rank as one.
func resolveProject(ctx context.Context, l *store.Learning, cwd string) error {
	if l.Project != "" && l.Scope == "" {
		l.Scope = "project"
	}
	if l.Scope != "project" || l.Project != "" {
		return nil
	}
	if cwd == "" || gitrepo.Root(cwd) == "" || gitrepo.SkipDir(cwd) != "" {
		return usagef("--scope project needs a git repository around the current directory, or --project NAME")
	}
	l.Project = gitrepo.Project(ctx, cwd)
	return nil
}

// describeChanges says in one line what an update changed.
func describeChanges(cs []store.Change) string {
	if len(cs) == 0 {
		return "nothing changed"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		var items []string
		for _, a := range c.Added {
			items = append(items, "+"+a)
		}
		for _, r := range c.Removed {
			items = append(items, "-"+r)
		}
		parts[i] = c.Field
		if len(items) > 0 {
			parts[i] += " (" + strings.Join(items, ", ") + ")"
		}
	}
	return "changed: " + strings.Join(parts, ", ")
}

// buildLearning merges the document (if any) with the flags and validates
// the result. A bad document is a data error (exit 1); bad flags and a
// missing file are usage errors (exit 2).
func buildLearning(opts *AddOptions, now time.Time) (*store.Learning, *store.Sidecar, error) {
	l := &store.Learning{}
	if opts.Source != "" {
		data, err := readSource(opts.Source, opts.IO.In)
		if err != nil {
			return nil, nil, err
		}
		if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("---")) && opts.Title != "" {
			// plain text with --title: the text is the body
			l.Body = string(data)
		} else if l, err = store.ParseDraft(data, now); err != nil {
			// A bad document is a data error (exit 1), not a misused command.
			return nil, nil, fmt.Errorf("%s: %w", sourceName(opts.Source), err)
		}
	} else if opts.Title == "" && opts.Update == "" {
		return nil, nil, usagef("add needs --title (or a FILE, or - for stdin)")
	} else if opts.Insight == "" {
		// The key insight is what recall injects: a title alone is a
		// learning no agent would be told anything by.
		return nil, nil, usagef("add needs --insight with --title: the key insight, what to remember (or a FILE, or - for stdin)")
	}
	derivedID := l.ID == "" || l.ID == store.NewID(l.Title, l.KeyInsight)
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&l.Title, opts.Title)
	set(&l.KeyInsight, opts.Insight)
	set(&l.Body, opts.Body)
	set(&l.Confidence, opts.Confidence)
	set(&l.Category, opts.Category)
	set(&l.Project, opts.Project)
	set(&l.Scope, opts.Scope)
	set(&l.Type, opts.Type)
	if opts.Tags != "" {
		l.Tags = nil
		for _, t := range strings.Split(opts.Tags, ",") {
			if t = strings.TrimSpace(t); t != "" {
				l.Tags = append(l.Tags, t)
			}
		}
	}
	if derivedID {
		// the id follows title and insight unless the document chose its own
		l.ID = ""
	}
	if opts.Update != "" {
		// A patch: only what was given replaces the learning's fields, so
		// no defaults are filled in; the result is validated when written.
		sc, err := sidecarFor(opts, opts.Update)
		return l, sc, err
	}
	l.FillDefaults(now)
	if err := l.Validate(); err != nil {
		return nil, nil, usagef("invalid learning: %v", err)
	}
	sc, err := sidecarFor(opts, l.ID)
	return l, sc, err
}

// sidecarFor reads --entities, when given, as the sidecar of id.
func sidecarFor(opts *AddOptions, id string) (*store.Sidecar, error) {
	if opts.Entities == "" {
		return nil, nil
	}
	data, err := os.ReadFile(opts.Entities)
	if err != nil {
		return nil, usagef("read --entities: %v", err)
	}
	sc, err := store.ParseSidecarFor(data, id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Entities, err)
	}
	return sc, nil
}

func readSource(src string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if src == "-" {
		r = stdin
	} else {
		f, err := os.Open(src)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, usagef("%s does not exist", src)
			}
			return nil, usagef("%v", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, store.MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sourceName(src), err)
	}
	if len(data) > store.MaxDocumentSize {
		return nil, fmt.Errorf("%s is larger than %d bytes; a learning should be a few paragraphs", sourceName(src), store.MaxDocumentSize)
	}
	return data, nil
}

func sourceName(src string) string {
	if src == "-" {
		return "stdin"
	}
	return src
}
