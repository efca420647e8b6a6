package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// ReviewOptions are the inputs of `reflect review` and its subcommands.
type ReviewOptions struct {
	// Action is "" (list, or review one by one on a terminal), approve,
	// reject or edit.
	Action string
	Refs   []string
	All    bool
	JSON   bool
	Yes    bool
}

// reviewItem is one draft as `review --json` lists it.
type reviewItem struct {
	ID         string        `json:"id"`
	ShortID    string        `json:"short_id"`
	Title      string        `json:"title"`
	KeyInsight string        `json:"key_insight,omitempty"`
	Confidence string        `json:"confidence"`
	Scope      string        `json:"scope,omitempty"`
	Project    string        `json:"project,omitempty"`
	Updated    string        `json:"updated"`
	Source     *store.Source `json:"source,omitempty"`
	Path       string        `json:"path"`
	// Updates is the learning the draft would rewrite once approved.
	Updates *knowledge.Proposal `json:"updates,omitempty"`
	// Supersedes is the learning approving the draft would supersede
	// (no longer injected); it stays as it is until then.
	Supersedes *store.ChainLink `json:"supersedes,omitempty"`
}

// printSupersedes says, under a draft, which learning approving it retires.
func printSupersedes(w io.Writer, c *store.ChainLink) {
	switch {
	case c == nil:
	case c.Missing:
		fmt.Fprintf(w, "      supersedes %s, which is gone\n", c.ID)
	default:
		fmt.Fprintf(w, "      supersedes %s: %s (approving stops its injection)\n", c.ID, oneLine(c.Title))
	}
}

// printTarget says, under a draft, which learning it would update.
func printTarget(w io.Writer, t *knowledge.Proposal) {
	if t == nil {
		return
	}
	if t.Gone {
		fmt.Fprintf(w, "      update of %s, which is gone: approving adds it as a new learning\n", t.ID)
		return
	}
	fmt.Fprintf(w, "      update of %s: %s\n", t.ID, oneLine(t.Title))
	for _, line := range strings.Split(strings.TrimRight(t.Diff, "\n"), "\n") {
		fmt.Fprintf(w, "        %s\n", line)
	}
}

// reviewResult is what approve and reject print with --json.
type reviewResult struct {
	Action string   `json:"action"`
	IDs    []string `json:"ids"`
	// Updated maps each approved draft that updated a learning to it.
	Updated map[string]string `json:"updated,omitempty"`
	// Supersedes maps each approved draft that superseded a learning to
	// it, and SupersedesNamed to the one the draft named when that one had
	// been superseded already (the draft then continued its chain).
	Supersedes      map[string]string `json:"supersedes,omitempty"`
	SupersedesNamed map[string]string `json:"supersedes_named,omitempty"`
	// Pending is how many drafts still await review.
	Pending int `json:"pending"`
}

// NewCmdReview builds `reflect review` and its subcommands; runF, when not
// nil, runs instead with the parsed options.
func NewCmdReview(f *Factory, runF func(*ReviewOptions) error) *cobra.Command {
	opts := &ReviewOptions{}
	run := func(cmd *cobra.Command, action string, args []string) error {
		opts.Action, opts.Refs = action, args
		if action != "" && action != "edit" && !opts.All && len(args) == 0 {
			return usagef("name the drafts to %s (ids from 'reflect review'), or pass --all", action)
		}
		if opts.All && len(args) > 0 {
			return usagef("--all %ss every draft: pass ids or --all, not both", action)
		}
		if runF != nil {
			return runF(opts)
		}
		return reviewRun(cmd, f, opts)
	}
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Approve, edit or reject the learnings an LLM writer drafted",
		Long: `Review is the inbox of learnings that wait for you. What an LLM writer
(claude, codex, command) drafts lands pending (drain.review, on by default
for them; the builtin writer's learnings, imported and hand-added ones are
not pending): the hooks never inject a pending learning, and search and
list show one only with --pending or --all. A writer's update of a
learning you approved or wrote does not touch it: it waits as a draft of
its own, shown as "update of ID: title" with the change as a diff, and the
learning stays injected as it is until you approve the draft. Likewise a
draft shown with "supersedes ID: title" retires that learning only when
approved; rejecting it leaves the learning as it was.

With no subcommand, review lists the drafts (--json prints them). On a
terminal it then asks about each in turn, one key each:

  a  approve: the hooks inject it from now on (a draft that updates
     a learning rewrites that learning and goes)
  r  reject: delete it; the drain will not write the same content again
  e  edit it in $VISUAL or $EDITOR, then decide
  s  skip it for now
  q  quit

'approve', 'reject' and 'edit' do the same from a script. --all acts on
every draft; on a terminal it asks first, elsewhere it needs --yes.`,
		Example: `  reflect review
  reflect review approve 3f9a1c 7d2e40
  reflect review reject --all --yes
  reflect review edit 3f9a1c
  reflect review --json | jq -r '.pending[].id'`,
		Args: exactArgs(0, "no arguments (use 'reflect review approve|reject|edit ID')"),
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd, "", args) },
	}
	cmd.PersistentFlags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.PersistentFlags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation (--all from a script)")
	for _, sub := range []struct{ use, short, example string }{
		{"approve", "Approve drafts: the hooks inject them from now on",
			"  reflect review approve 3f9a1c 7d2e40\n  reflect review approve --all --yes --json"},
		{"reject", "Reject drafts: delete them, and never write the same content again",
			"  reflect review reject 3f9a1c\n  reflect review reject --all --yes"},
	} {
		c := &cobra.Command{
			Use:               sub.use + " ID...|--all",
			Short:             sub.short,
			Example:           sub.example,
			ValidArgsFunction: completeLearningIDs(f),
			RunE:              func(cmd *cobra.Command, args []string) error { return run(cmd, sub.use, args) },
		}
		c.Flags().BoolVar(&opts.All, "all", false, "every draft awaiting review")
		cmd.AddCommand(c)
	}
	cmd.AddCommand(&cobra.Command{
		Use:               "edit ID",
		Short:             "Edit a draft in $VISUAL or $EDITOR, then approve it",
		Example:           "  reflect review edit 3f9a1c\n  VISUAL=\"code --wait\" reflect review edit 3f9a1c",
		Args:              exactArgs(1, "one draft id"),
		ValidArgsFunction: completeLearningIDs(f),
		RunE:              func(cmd *cobra.Command, args []string) error { return run(cmd, "edit", args) },
	})
	return cmd
}

func reviewRun(cmd *cobra.Command, f *Factory, opts *ReviewOptions) error {
	ctx := cmd.Context()
	c, err := f.Config()
	if err != nil {
		return err
	}
	if opts.Action == "edit" {
		return reviewEdit(cmd, f, opts.Refs[0])
	}
	ix, err := f.OpenIndex(ctx, true, f.WaitNotice())
	if err != nil {
		return err
	}
	defer ix.Close()
	k := knowledge.New(ix)
	pending, err := k.Pending(ctx)
	if err != nil {
		return err
	}
	_ = knowledge.RecordPending(c.StateDir, len(pending))
	if opts.Action == "" {
		if opts.JSON || !f.IO.InTTY || !f.IO.OutTTY || len(pending) == 0 {
			return printPending(ctx, f, k, pending, opts.JSON)
		}
		return reviewInteractive(cmd, f, k, pending)
	}
	ids, err := reviewIDs(f, opts, pending)
	if err != nil || len(ids) == 0 {
		return err
	}
	return reviewApply(ctx, f, k, opts, ids, len(pending))
}

// reviewIDs resolves the drafts an approve or reject names (every one with
// --all, after confirmation).
func reviewIDs(f *Factory, opts *ReviewOptions, pending []*store.Learning) ([]string, error) {
	if !opts.All {
		ids := make([]string, 0, len(opts.Refs))
		for _, ref := range opts.Refs {
			id, err := f.resolveLearning(ref)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, nil
	}
	ids := make([]string, len(pending))
	for i, l := range pending {
		ids[i] = l.ID
	}
	if len(ids) == 0 {
		if opts.JSON {
			return nil, printJSON(f.IO.Out, reviewResult{Action: pastTense(opts.Action), IDs: []string{}})
		}
		fmt.Fprintln(f.IO.Err, "No learnings wait for review.")
		return nil, nil
	}
	if !opts.Yes {
		if !f.IO.InTTY {
			return nil, usagef("--all would %s %s: pass --yes to confirm from a script", opts.Action, countOf(len(ids), "draft"))
		}
		if !confirm(f.IO, fmt.Sprintf("%s %s? [y/N] ", upperFirst(opts.Action), countOf(len(ids), "draft"))) {
			return nil, errors.New("nothing changed")
		}
	}
	return ids, nil
}

// reviewApply approves or rejects ids and says what it did.
func reviewApply(ctx context.Context, f *Factory, k *knowledge.Base, opts *ReviewOptions, ids []string, before int) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	var done []*store.Learning
	var approved []knowledge.Approved
	if opts.Action == "approve" {
		approved, err = k.ApproveDrafts(ctx, ids...)
		for _, a := range approved {
			done = append(done, a.Learning)
		}
	} else {
		done, err = k.Reject(ctx, knowledge.NewRejections(c.StateDir), ids...)
	}
	if err != nil && len(done) == 0 {
		return reviewError(err)
	}
	if err := f.notIndexedYet(err, pastTense(opts.Action)+" "+countOf(len(done), "draft")); err != nil {
		return err
	}
	left, cerr := k.CountPending(ctx, c.StateDir)
	if cerr != nil {
		left = before - len(done)
	}
	res := reviewResult{Action: pastTense(opts.Action), IDs: make([]string, len(done)), Pending: left}
	for i, l := range done {
		res.IDs[i] = l.ID
	}
	for _, a := range approved {
		setIn(&res.Updated, a.Learning.ID, a.Learning.Updates)
		setIn(&res.Supersedes, a.Learning.ID, a.Supersedes)
		setIn(&res.SupersedesNamed, a.Learning.ID, a.SupersedesNamed)
	}
	if opts.JSON {
		return printJSON(f.IO.Out, res)
	}
	for _, l := range done {
		fmt.Fprintf(f.IO.Out, "%s %s  %s\n", upperFirst(res.Action), l.ID, oneLine(l.Title))
		if u := res.Updated[l.ID]; u != "" {
			fmt.Fprintf(f.IO.Out, "  updated %s with it (the draft is gone)\n", u)
		}
		if sup := res.Supersedes[l.ID]; sup != "" {
			fmt.Fprintf(f.IO.Out, "  %s\n", supersedesNote(sup, res.SupersedesNamed[l.ID]))
		}
	}
	if opts.Action == "reject" {
		fmt.Fprintln(f.IO.Out, "The drain will not write the same content again.")
	}
	fmt.Fprintln(f.IO.Out, waitingNote(left))
	return nil
}

// setIn sets m[k] = v, making m, when v is not empty.
func setIn(m *map[string]string, k, v string) {
	if v == "" {
		return
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = v
}

// reviewError says what to do about a failed approve or reject.
func reviewError(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%w; 'reflect review' lists the drafts that wait", err)
	case errors.Is(err, knowledge.ErrNotPending):
		return fmt.Errorf("%w: nothing changed ('reflect review' lists the drafts that wait)", err)
	}
	return err
}

// waitingNote says how many drafts still wait.
func waitingNote(n int) string {
	if n == 0 {
		return "No learnings wait for review."
	}
	return hooks.ReviewNote(n)
}

// pastTense is "approved" or "rejected".
func pastTense(action string) string {
	if action == "approve" {
		return "approved"
	}
	return action + "ed"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// printPending lists the drafts, oldest first.
func printPending(ctx context.Context, f *Factory, k *knowledge.Base, pending []*store.Learning, asJSON bool) error {
	ids := make([]string, len(pending))
	for i, l := range pending {
		ids[i] = l.ID
	}
	short, _ := k.Index().ShortIDs(ctx, ids)
	items := make([]reviewItem, len(pending))
	for i, l := range pending {
		items[i] = reviewItem{ID: l.ID, ShortID: short[l.ID], Title: l.Title, KeyInsight: l.KeyInsight, Confidence: l.Confidence,
			Scope: l.Scope, Project: l.Project, Updated: l.Updated.UTC().Format("2006-01-02T15:04:05Z"), Source: l.Source, Path: l.Path,
			Updates: k.ProposalOf(l), Supersedes: k.SupersedesOf(l)}
		if items[i].ShortID == "" {
			items[i].ShortID = l.ID
		}
	}
	if asJSON {
		return printJSON(f.IO.Out, map[string]any{"pending": items, "count": len(items)})
	}
	if len(items) == 0 {
		fmt.Fprintln(f.IO.Out, "No learnings wait for review.")
		return nil
	}
	fmt.Fprintln(f.IO.Out, waitingNote(len(items)))
	for _, it := range items {
		fmt.Fprintf(f.IO.Out, "  %s  %s  %-6s  %s\n", it.ShortID, it.Updated[:10], it.Confidence, oneLine(it.Title))
		if it.KeyInsight != "" {
			fmt.Fprintf(f.IO.Out, "      %s\n", oneLine(it.KeyInsight))
		}
		printTarget(f.IO.Out, it.Updates)
		printSupersedes(f.IO.Out, it.Supersedes)
	}
	fmt.Fprintln(f.IO.Out, "Approve with 'reflect review approve ID…|--all', reject with 'reflect review reject ID…|--all', edit with 'reflect review edit ID'.")
	return nil
}

// reviewEdit runs reflect edit's editor flow on a draft, then approves it.
func reviewEdit(cmd *cobra.Command, f *Factory, ref string) error {
	id, err := f.resolveLearning(ref)
	if err != nil {
		return err
	}
	c, err := f.Config()
	if err != nil {
		return err
	}
	if l, err := store.Open(c.DocumentsDir()).Read(id); err == nil && !l.Pending() {
		return reviewError(fmt.Errorf("%s %w", id, knowledge.ErrNotPending))
	}
	if err := editRun(cmd, f, &EditOptions{Ref: id}); err != nil {
		return err
	}
	ix, err := f.OpenIndex(cmd.Context(), false, f.WaitNotice())
	if err != nil {
		return err
	}
	defer ix.Close()
	return reviewApply(cmd.Context(), f, knowledge.New(ix), &ReviewOptions{Action: "approve"}, []string{id}, 0)
}

// reviewInteractive asks about each draft in turn, one key each.
func reviewInteractive(cmd *cobra.Command, f *Factory, k *knowledge.Base, pending []*store.Learning) error {
	keys := keyReader(f.IO.In)
	for i := 0; i < len(pending); i++ {
		l := pending[i]
		fmt.Fprintf(f.IO.Out, "\n[%d/%d] %s  (%s confidence)\n  %s\n", i+1, len(pending), oneLine(l.Title), l.Confidence, l.ID)
		if l.KeyInsight != "" {
			fmt.Fprintf(f.IO.Out, "  %s\n", oneLine(l.KeyInsight))
		}
		printTarget(f.IO.Out, k.ProposalOf(l))
		fmt.Fprint(f.IO.Out, "a approve · r reject · e edit · s skip · q quit: ")
		key, err := keys()
		fmt.Fprintln(f.IO.Out, string(key))
		if err != nil || key == 'q' {
			break
		}
		opts := &ReviewOptions{Action: map[rune]string{'a': "approve", 'r': "reject"}[key]}
		switch key {
		case 'a', 'r':
			if err := reviewApply(cmd.Context(), f, k, opts, []string{l.ID}, len(pending)-i); err != nil {
				fmt.Fprintf(f.IO.Err, "reflect: %v\n", err)
			}
		case 'e':
			if err := editRun(cmd, f, &EditOptions{Ref: l.ID}); err != nil {
				fmt.Fprintf(f.IO.Err, "reflect: %v\n", err)
			}
			if fresh, err := k.Store().Read(l.ID); err == nil && fresh.Pending() {
				pending[i] = fresh
				i-- // ask again about the edited draft
			}
		case 's':
		default:
			fmt.Fprintln(f.IO.Err, "Press a, r, e, s or q.")
			i--
		}
	}
	return nil
}

// keyReader reads one key at a time: in raw mode on a terminal (no Enter
// needed; the terminal is put back after each key, so output and the
// editor see it as usual), else one non-space character of the input.
func keyReader(in io.Reader) func() (rune, error) {
	fd := -1
	if file, ok := in.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		fd = int(file.Fd())
	}
	r := bufio.NewReader(in)
	return func() (rune, error) {
		if fd >= 0 {
			if state, err := term.MakeRaw(fd); err == nil {
				defer func() { _ = term.Restore(fd, state) }()
			}
		}
		for {
			c, _, err := r.ReadRune()
			if err != nil {
				return 0, err
			}
			switch {
			case c == 3 || c == 4: // Ctrl-C, Ctrl-D in raw mode
				return 'q', nil
			case c == ' ' || c == '\n' || c == '\r' || c == '\t':
				continue
			}
			return []rune(strings.ToLower(string(c)))[0], nil
		}
	}
}
