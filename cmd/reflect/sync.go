package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/kbsync"
)

// syncOutput is what `reflect sync --json` prints.
type syncOutput struct {
	*kbsync.Result
	Indexed *index.Stats `json:"indexed,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// SyncOptions are the inputs of `reflect sync` and `reflect sync init`.
type SyncOptions struct {
	// Init is set for `reflect sync init`, with its Remote and Branch.
	Init           bool
	Remote, Branch string
	Timeout        time.Duration
	// Background is the automatic sync sync.auto starts.
	Background, JSON bool
}

// NewCmdSync builds `reflect sync` and `reflect sync init`; runF, when not
// nil, runs instead of either with the parsed options.
func NewCmdSync(f *Factory, runF func(*SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Share learnings with your other machines and your team over git",
		Long: `Sync commits the learnings changed on this machine (one commit), fetches and
merges the remote's, pushes, and refreshes the index from the files that
arrived. It runs the system git, with your credentials and SSH config; every
network operation is bounded by --timeout, and a push refused because the
remote moved on is merged and pushed again a few times.

Learnings with 'scope: personal' or 'private: true' never leave this
machine. Every learning about to be committed is read by the redactor first:
one holding a secret is held back (the rest syncs) and sync exits 1 naming
the file and line; fix the file and sync again. A held file never enters
git, so the secret never reaches the remote's history.

What the remote sends is inspected before it reaches the working tree:
symlinks, submodules, anything in place of documents/ and any file that is
not a learning, its sidecar, .gitignore or .gitattributes are refused, each
named with the commit that brought it, and sync exits 1 (the rest merges
when that is safe; nothing does when the remote replaced documents/).

The same learning edited on two machines is merged field by field; bodies
that cannot be merged are both kept under headings naming each machine,
the learning is marked needs_review and sync says so (see 'reflect
doctor'). Run 'reflect sync init REMOTE' first. See docs/sync.md.`,
		Example: `  reflect sync init git@github.com:me/learnings.git
  reflect sync
  reflect sync --json | jq '.pulled | length'`,
		Args: exactArgs(0, "no arguments (did you mean 'reflect sync init'?)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			if opts.Background {
				return runBackgroundSync(f, cmd, opts)
			}
			return runSync(f, cmd, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	// --background is what sync.auto starts (detached, from the drainer
	// and SessionStart): bounded, silent, and recorded in last-sync.json.
	cmd.Flags().BoolVar(&opts.Background, "background", false, "run as the automatic sync: silent, outcome in last-sync.json")
	_ = cmd.Flags().MarkHidden("background")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", kbsync.DefaultTimeout, "bound on each network operation")
	cmd.AddCommand(newCmdSyncInit(f, runF))
	return cmd
}

// newCmdSyncInit builds `reflect sync init`.
func newCmdSyncInit(f *Factory, runF func(*SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{Init: true}
	initCmd := &cobra.Command{
		Use:   "init [REMOTE]",
		Short: "Make the learnings directory a git repository and connect it to REMOTE",
		Long: `Init makes the learnings directory a git repository on --branch (or adopts
the one it already is), ignores index/ (derived), routes learnings and their
entity sidecars to reflect's merge driver, and commits the local learnings.
With REMOTE (a URL or path git understands) it merges what the remote
already holds and pushes the result. Commits use your git identity, or
reflect@HOSTNAME when git has none. It refuses a repository with
uncommitted changes outside documents/ or a merge in progress.`,
		Example: `  reflect sync init git@github.com:me/learnings.git
  reflect sync init /srv/git/team-learnings.git
  reflect sync init          # a local history only`,
		Args: maxArgs(1, "one REMOTE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Remote = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runSync(f, cmd, opts)
		},
	}
	initCmd.Flags().StringVar(&opts.Branch, "branch", "main", "branch to sync")
	initCmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	initCmd.Flags().DurationVar(&opts.Timeout, "timeout", kbsync.DefaultTimeout, "bound on each network operation")
	return initCmd
}

// runSync runs Init or Sync, refreshes the index from the pulled files and
// reports.
func runSync(f *Factory, cmd *cobra.Command, opts *SyncOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	if opts.Timeout <= 0 {
		return usagef("--timeout must be positive")
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	so := kbsync.Options{Dir: c.LearningsDir, Remote: opts.Remote, Driver: exe, Timeout: opts.Timeout, Branch: opts.Branch}
	var res *kbsync.Result
	if opts.Init {
		res, err = kbsync.Init(cmd.Context(), so)
	} else {
		res, err = kbsync.Sync(cmd.Context(), so)
	}
	if res == nil {
		return syncError(err)
	}
	f.lastSyncResult = res
	out := syncOutput{Result: res}
	if len(res.Pulled) > 0 {
		// The index update is incremental: unchanged documents cost a
		// stat, the pulled ones are read and indexed.
		ix, ierr := f.OpenIndex(cmd.Context(), false, f.WaitNotice())
		if ierr == nil {
			st, uerr := ix.Update(cmd.Context(), index.UpdateOptions{})
			if ix.Rebuilt != "" {
				// Open rebuilt the catalog from every document, the pulled
				// ones with them: its counts are the ones to report.
				st = ix.RebuildStats
			}
			ix.Close()
			if uerr = f.notIndexedYet(uerr, "sync"); uerr != nil && err == nil {
				err = uerr
			}
			if uerr == nil {
				out.Indexed = &st
			}
			// For 'reflect doctor', which looks for near-duplicates among
			// what arrived (one search each: too slow for every sync).
			if rerr := kbsync.RecordPulled(c.StateDir, kbsync.PulledIDs(res.Pulled)); rerr != nil {
				fmt.Fprintf(f.IO.Err, "reflect: record pulled learnings: %v\n", rerr)
			}
		} else if err == nil {
			err = ierr
		}
	}
	if opts.JSON {
		if err != nil {
			out.Error = err.Error()
		}
		if perr := printJSON(f.IO.Out, out); perr != nil {
			return perr
		}
		if errors.Is(err, kbsync.ErrBusy) {
			return err // exit 75, which quietError would hide
		}
		if err != nil {
			return quietError{syncError(err)}
		}
		return nil
	}
	printSync(f, res, out.Indexed, opts.Init)
	return syncError(err)
}

// backgroundDeadline bounds a whole automatic sync: fetch, merge, push
// (each also bounded by --timeout, and the pushes retried) and the index
// refresh.
const backgroundDeadline = 5 * time.Minute

// lastSync is $REFLECT_STATE_DIR/last-sync.json: the outcome of the last
// automatic sync, for 'reflect doctor' and for people wondering.
type lastSync struct {
	At        time.Time `json:"at"`
	OK        bool      `json:"ok"`
	Error     string    `json:"error,omitempty"`
	Committed int       `json:"committed"`
	Pulled    int       `json:"pulled"`
	Pushed    bool      `json:"pushed"`
}

// runBackgroundSync is the automatic sync: nothing to do before 'reflect
// sync init', nothing to do while another sync runs, and otherwise a sync
// whose outcome goes to last-sync.json instead of a terminal nobody sees.
func runBackgroundSync(f *Factory, cmd *cobra.Command, opts *SyncOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), backgroundDeadline)
	defer cancel()
	cmd.SetContext(ctx)
	f.IO.Out, f.IO.Err = io.Discard, io.Discard
	err = runSync(f, cmd, &SyncOptions{Timeout: opts.Timeout})
	if errors.Is(err, kbsync.ErrNotInitialized) || errors.Is(err, kbsync.ErrBusy) {
		return nil
	}
	rec := lastSync{At: time.Now().UTC(), OK: err == nil}
	if err != nil {
		rec.Error = err.Error()
	}
	if res := f.lastSyncResult; res != nil {
		rec.Committed, rec.Pulled, rec.Pushed = len(res.Committed), len(res.Pulled), res.Pushed
	}
	data, merr := json.MarshalIndent(rec, "", "  ")
	if merr != nil {
		return merr
	}
	if werr := fsutil.EnsurePrivateDir(c.StateDir); werr != nil {
		return werr
	}
	return fsutil.WriteAtomic(filepath.Join(c.StateDir, "last-sync.json"), append(data, '\n'), fsutil.FilePerm)
}

// printSync says what a sync did in a few lines.
func printSync(f *Factory, res *kbsync.Result, st *index.Stats, isInit bool) {
	w := f.IO.Out
	if isInit && res.Created {
		fmt.Fprintln(w, "Initialised a git repository for your learnings.")
	}
	personal := 0
	for _, h := range res.Held {
		switch h.Reason {
		case kbsync.ReasonPersonal:
			personal++
		case kbsync.ReasonMalformed:
			fmt.Fprintf(f.IO.Err, "reflect: held back %s: %s; fix it ('reflect doctor') and sync again\n", h.Path, oneLine(h.Detail))
		}
	}
	fmt.Fprintf(w, "Committed %s", countOf(len(res.Committed), "file"))
	if personal > 0 {
		fmt.Fprintf(w, " (%d personal kept on this machine)", personal)
	}
	fmt.Fprintln(w, ".")
	for _, k := range res.Kept {
		fmt.Fprintf(w, "Kept %s: deleted on one side, edited on the other.\n", k)
	}
	for _, p := range res.Unlinked {
		fmt.Fprintf(w, "Removed %s: the repository tracked it as a symlink, which is never a learning (the link only; its target is untouched).\n", p)
	}
	for _, p := range res.NeedsReview {
		fmt.Fprintf(w, "Needs review: %s: both machines changed the same lines; both versions are kept under headings. Edit it to one and remove needs_review.\n", p)
	}
	switch {
	case res.Remote == "":
		fmt.Fprintln(w, "No remote: the history is local. Add one with 'reflect sync init REMOTE'.")
	case res.Pushed:
		fmt.Fprintf(w, "Pulled %s, pushed to %s", countOf(len(res.Pulled), "file"), res.Remote)
		if res.Retries > 0 {
			fmt.Fprintf(w, " (after %s)", fmt.Sprintf("%d %s", res.Retries, plural(res.Retries, "retry", "retries")))
		}
		fmt.Fprintln(w, ".")
	}
	if st != nil {
		fmt.Fprintf(w, "Indexed: %d added, %d updated, %d removed.\n", st.Added, st.Updated, st.Removed)
	}
}

// syncError adds what to do to the library's sentinel errors.
func syncError(err error) error {
	var se *kbsync.SecretError
	var re *kbsync.RefusedError
	if j, ok := err.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 1 {
		// A sync can fail to push and have refused or held files too:
		// each gets its own words and hint.
		var parts []string
		for _, e := range j.Unwrap() {
			parts = append(parts, syncError(e).Error())
		}
		return errors.New(strings.Join(parts, "\n"))
	}
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		var b strings.Builder
		for i, r := range re.Refused {
			if i == 20 {
				fmt.Fprintf(&b, "and %d more refused\n", len(re.Refused)-i)
				break
			}
			b.WriteString("refused from the remote: " + r.String() + "\n")
		}
		if re.Whole {
			b.WriteString("nothing from the remote was merged and your learnings are intact; whoever can push to the remote should remove these (git rm, then push), then run 'reflect sync' again")
		} else {
			b.WriteString("the rest of the remote's changes were merged without them, and your push removes them from the remote; see who pushed the commit with git -C DIR show COMMIT")
		}
		return errors.New(b.String())
	case errors.As(err, &se):
		return errors.New(secretHint(se))
	case errors.Is(err, kbsync.ErrNotInitialized):
		return fmt.Errorf("%w\nrun 'reflect sync init REMOTE' first", err)
	case errors.Is(err, kbsync.ErrOffline):
		return fmt.Errorf("%w\nyour changes are committed locally; check the network or the remote URL (git -C DIR remote -v) and sync again", err)
	case errors.Is(err, kbsync.ErrRejected):
		return fmt.Errorf("%w\nyour changes are committed locally; check your access to the remote and sync again", err)
	case errors.Is(err, kbsync.ErrConflict):
		return fmt.Errorf("%w\nresolve it with git in the learnings directory, then run 'reflect sync' again", err)
	}
	return err
}

// secretHint names the files held back for a secret and what to do.
func secretHint(se *kbsync.SecretError) string {
	var b strings.Builder
	for i, h := range se.Held {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "held back %s:%d: it holds a secret (%s)", h.Path, h.Line, h.Kind)
	}
	b.WriteString("\nthe rest was synced; remove the secret (or wrap it in <private>…</private>) and run 'reflect sync' again")
	return b.String()
}

// MergeLearningOptions are the inputs of `reflect merge-learning`: git's
// %O %A %B and the path of the file merged.
type MergeLearningOptions struct {
	Base, Ours, Theirs, Path string
}

// NewCmdMergeLearning builds `reflect merge-learning`, the merge driver
// `reflect sync init` configures git to run; runF, when not nil, runs
// instead with the parsed options.
func NewCmdMergeLearning(f *Factory, runF func(*MergeLearningOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:    "merge-learning BASE OURS THEIRS [PATH]",
		Short:  "Git merge driver for learnings (configured by 'reflect sync init')",
		Hidden: true,
		Args:   func(_ *cobra.Command, args []string) error { return rangeArgs(args, 3, 4) },
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := &MergeLearningOptions{Base: args[0], Ours: args[1], Theirs: args[2], Path: args[1]}
			if len(args) == 4 {
				opts.Path = args[3]
			}
			if runF != nil {
				return runF(opts)
			}
			return mergeLearningRun(cmd, f, opts)
		},
	}
}

func mergeLearningRun(cmd *cobra.Command, f *Factory, opts *MergeLearningOptions) error {
	res, err := kbsync.MergeFileIn(cmd.Context(), opts.Base, opts.Ours, opts.Theirs, opts.Path, kbsync.DriverEnvFrom(f.Getenv))
	if err != nil {
		return err
	}
	if res.Renamed != "" {
		fmt.Fprintf(f.IO.Err, "reflect: %s: two different learnings had this id; the incoming one is kept as %s\n", opts.Path, res.Renamed)
	}
	if res.NeedsReview {
		fmt.Fprintf(f.IO.Err, "reflect: %s: both bodies kept; marked needs_review\n", opts.Path)
	}
	if !res.Clean {
		return quietError{errors.New("conflict")}
	}
	return nil
}

func rangeArgs(args []string, lo, hi int) error {
	if len(args) < lo || len(args) > hi {
		return usagef("expected BASE OURS THEIRS [PATH], got %s", countOf(len(args), "argument"))
	}
	return nil
}
