package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"golang.org/x/term"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/safetext"
	textutil "github.com/reflectkb/reflect/internal/text" // main_test.go declares text
	"github.com/reflectkb/reflect/kbsync"
	"github.com/reflectkb/reflect/queue"
)

// Streams is where a command reads and writes; tests substitute buffers.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// InTTY, OutTTY and ErrTTY say whether the streams are terminals:
	// progress bars and colour only go to terminals, and nothing waits for
	// input typed at one.
	InTTY, OutTTY, ErrTTY bool
}

// SystemStreams are the process's stdin, stdout and stderr.
func SystemStreams() *Streams {
	return &Streams{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// Factory gives commands lazy access to configuration and the index, so a
// command that needs neither (version, hook no-ops) pays for neither.
type Factory struct {
	IO *Streams
	// LookupEnv reads the environment (os.LookupEnv in the program; a
	// map in tests). Configuration and the terminal conventions (NO_COLOR,
	// TERM, COLUMNS) read it through here and nowhere else.
	LookupEnv config.LookupFunc
	// ColorMode is --color: auto, always or never.
	ColorMode string
	// LookPath finds an executable on PATH (exec.LookPath when nil; tests
	// substitute a fake, as they do terminals through IO).
	LookPath func(string) (string, error)
	// QuietConfig keeps warnings about config.toml off stderr, for the
	// commands agents run (hook, statusline), whose stderr users never see.
	QuietConfig bool
	cfg         *config.Config
	// lastSyncResult is what the last sync in this process did, for the
	// background sync's record.
	lastSyncResult *kbsync.Result
}

// Getenv is the value of the environment variable key, empty when unset.
func (f *Factory) Getenv(key string) string {
	v, _ := f.LookupEnv(key)
	return v
}

// lookPath is LookPath, or exec.LookPath when none is set.
func (f *Factory) lookPath() func(string) (string, error) {
	if f.LookPath != nil {
		return f.LookPath
	}
	return exec.LookPath
}

// Color says whether stdout gets colour (see useColor).
func (f *Factory) Color() bool { return useColor(f.ColorMode, f.IO, f.Getenv) }

// Config loads the configuration once.
func (f *Factory) Config() (*config.Config, error) {
	if f.cfg != nil {
		return f.cfg, nil
	}
	c, err := config.Load(f.LookupEnv)
	if err != nil {
		return nil, err
	}
	f.cfg = c
	if !f.QuietConfig {
		for _, k := range c.Unknown {
			hint := ""
			if near := config.Nearest(k); near != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", near)
			}
			fmt.Fprintf(f.IO.Err, "reflect: %s: unknown key %s%s is ignored\n", c.File, k, hint)
		}
	}
	return c, nil
}

// OpenIndex opens the catalog, tells the user on stderr when it had to be
// rebuilt, and (when refresh is set) picks up documents added, removed or
// replaced on disk since the last reindex (an edit in place needs
// 'reflect reindex').
func (f *Factory) OpenIndex(ctx context.Context, refresh bool, opts ...index.OpenOption) (*index.Index, error) {
	c, err := f.Config()
	if err != nil {
		return nil, err
	}
	cfgOpts, err := index.SettingsOptions(index.Settings(c.Index), false)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir(), append(append(cfgOpts, f.RebuildNotice()), opts...)...)
	if err != nil {
		return nil, fmt.Errorf("%w\nrun 'reflect doctor' to see what is wrong", err)
	}
	if ix.Rebuilt != "" {
		fmt.Fprintf(f.IO.Err, "reflect: index: %s\n", ix.Rebuilt)
	}
	if ix.Repaired != "" {
		fmt.Fprintf(f.IO.Err, "reflect: index: %s\n", ix.Repaired)
	}
	if refresh {
		st, ran, err := ix.Refresh(ctx)
		if errors.Is(err, index.ErrBusy) {
			// A reindex running elsewhere: its commit is all or nothing,
			// so the index as it stands is consistent, only not current.
			fmt.Fprintf(f.IO.Err, "reflect: %v; using it as it stands (documents changed since the last reindex may be missing)\n", err)
			err = nil
		}
		if index.NoSpace(err) {
			// The update was rolled back whole: the index as it stands is
			// consistent, only not current. Answer from it.
			fmt.Fprintf(f.IO.Err, "reflect: cannot update the index (%v); answering from it as it stands until space is freed\n", err)
			err = nil
		}
		if err != nil {
			ix.Close()
			return nil, fmt.Errorf("%w\nrun 'reflect doctor' to see what is wrong", err)
		}
		if ran {
			// Name each file: a document dropped in by hand or by git pull
			// is easier to fix when the message says which it is.
			for _, p := range st.Problems {
				fmt.Fprintf(f.IO.Err, "reflect: skipped %v\n", p)
			}
		}
	}
	return ix, nil
}

// RebuildNotice is the OpenOption that says on stderr, before it starts,
// that the index is being rebuilt and why (a damaged catalog made the next
// search spend seconds rebuilding without a word).
func (f *Factory) RebuildNotice() index.OpenOption {
	return index.OnRebuild(func(reason string, docs int) {
		if reason == "catalog.db was missing" {
			return // the first run: the rebuild's own line says enough
		}
		fmt.Fprintf(f.IO.Err, "reflect: index: %s; rebuilding it from %d documents (this may take a while)…\n", reason, docs)
	})
}

// WaitNotice is the OpenOption of the commands that change the index (add,
// forget, reindex): when another process is updating it, they say on
// stderr why they pause before waiting for it.
func (f *Factory) WaitNotice() index.OpenOption {
	return index.OnBusy(func(wait time.Duration) {
		fmt.Fprintf(f.IO.Err, "reflect: another process is updating the index; waiting for it to finish (up to %s)\n", wait)
	})
}

// notIndexedYet reports a change that is on disk but not yet in the index
// because another process's update outlasted the wait: the next search or
// reindex picks it up. Any other error is returned as it is.
func (f *Factory) notIndexedYet(err error, what string) error {
	if !errors.Is(err, index.ErrBusy) {
		return err
	}
	fmt.Fprintf(f.IO.Err, "reflect: %s: %v; the next search or 'reflect reindex' catches up\n", what, err)
	return nil
}

// usageError marks errors that are the caller's mistake: exit code 2.
type usageError struct{ error }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitBusy is the exit code of a command that gave up because another
// process held the index's update lock or the queue's lock for longer than
// it waits: EX_TEMPFAIL of sysexits.h, which says "try again later", so
// scripts can retry on it and on nothing else.
const exitBusy = 75

// exitCode maps an error to the documented exit codes: 0 success,
// 1 failure, 2 usage, 75 busy (exitBusy).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	if errors.Is(err, index.ErrBusy) || errors.Is(err, queue.ErrLocked) || errors.Is(err, kbsync.ErrBusy) {
		return exitBusy
	}
	return 1
}

// errNoMatch ends a search that found nothing with exit status 1 and no
// further message (the command has said so on stderr), as grep and rg do:
// scripts can tell "nothing found" from success without parsing output.
var errNoMatch = quietError{errors.New("no match")}

// quietError is a failure the command has already explained: Main prints
// nothing more for it.
type quietError struct{ error }

// printJSON writes v as indented JSON, the format of every --json flag.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// oneLine flattens text for single-line terminal output, without the
// escape sequences and control characters learning text may hold.
func oneLine(s string) string {
	return textutil.OneLine(safetext.Terminal(s))
}

// Queue opens the reflection queue in the state directory.
func (f *Factory) Queue() (*queue.Queue, error) {
	c, err := f.Config()
	if err != nil {
		return nil, err
	}
	return queue.Open(c.StateDir)
}
