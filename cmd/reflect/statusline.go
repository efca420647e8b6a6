package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/statusline"
)

// stdinWait bounds how long statusline waits for the agent's JSON: a status
// line must never hang, even when stdin is a pipe nobody writes to.
const stdinWait = 200 * time.Millisecond

// StatuslineOptions are the inputs of `reflect statusline`.
type StatuslineOptions struct {
	Session, Color string
}

// NewCmdStatusline builds `reflect statusline`; runF, when not nil, runs
// instead with the parsed options.
func NewCmdStatusline(f *Factory, runF func(*StatuslineOptions) error) *cobra.Command {
	opts := &StatuslineOptions{}
	cmd := &cobra.Command{
		Use: "statusline",
		Example: `  echo '{"session_id":"s1"}' | reflect statusline
  reflect statusline --session s1 --color never`,
		Short: "Print a one-line status for an agent's status bar",
		Long: `Statusline prints what reflect did lately, e.g. "🧠 recalled 3 · queued 1".
It accepts Claude Code's status-line JSON on stdin and uses its session_id.
Output is plain text when NO_COLOR is set or stdout is not a terminal, unless
--color=always.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return statuslineRun(f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "session id (default: from the JSON on stdin)")
	cmd.Flags().StringVar(&opts.Color, "color", "auto", "auto, always or never")
	_ = cmd.RegisterFlagCompletionFunc("color", completeValues("auto", "always", "never"))
	return cmd
}

func statuslineRun(f *Factory, opts *StatuslineOptions) error {
	f.QuietConfig = true
	c, err := f.Config()
	if err != nil {
		return err
	}
	session := opts.Session
	if session == "" && !f.IO.InTTY {
		session = sessionFromStdin(f.IO.In)
	}
	var color bool
	switch opts.Color {
	case "always":
		color = true
	case "never":
	case "auto":
		color = f.IO.OutTTY && f.Getenv("NO_COLOR") == ""
	default:
		return usagef("--color must be auto, always or never")
	}
	fmt.Fprintln(f.IO.Out, statusline.Line(c.StateDir, session, color, statusDrain(c, time.Now())))
	return nil
}

// statusDrain is the writer a drain would use and today's writer runs and
// spend, for the status line. The day's totals come from last-drain.json,
// which every drain that ran rewrites with them, rather than from summing
// drain-cost.jsonl, which grows for as long as reflect is used and would
// be read on every status bar refresh.
func statusDrain(c *config.Config, now time.Time) statusline.Drain {
	w := currentWriter(c)
	d := statusline.Drain{Writer: w.Name, LLM: w.LLM, Review: knowledge.RecordedPending(c.StateDir)}
	if last, err := drain.LastRun(c.StateDir); err == nil && last != nil {
		y, m, dd := now.UTC().Date()
		if ly, lm, ld := last.Finished.UTC().Date(); ly == y && lm == m && ld == dd {
			d.Runs, d.USD = last.Today.Entries, last.Today.USD
		}
	}
	return d
}

// sessionFromStdin reads the agent's status-line JSON, if any arrives
// quickly, and returns its session_id.
func sessionFromStdin(in io.Reader) string {
	type result struct{ data []byte }
	ch := make(chan result, 1)
	go func() {
		data, _ := io.ReadAll(io.LimitReader(in, 1<<20))
		ch <- result{data}
	}()
	select {
	case r := <-ch:
		var payload struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(r.data, &payload) == nil {
			return payload.SessionID
		}
	case <-time.After(stdinWait):
	}
	return ""
}
