package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/recall"
)

// LogOptions are the inputs of `reflect log`.
type LogOptions struct {
	Session, Since string
	JSON           bool
	// Now is when --since counts back from.
	Now time.Time
}

// NewCmdLog builds `reflect log`; runF, when not nil, runs instead with
// the parsed options.
func NewCmdLog(f *Factory, runF func(*LogOptions) error) *cobra.Command {
	opts := &LogOptions{}
	cmd := &cobra.Command{
		Use:   "log",
		Short: "List what the hooks injected, when, into which session and why",
		Long: `Log lists the injection ledger, oldest first: every time a hook put learnings
into an agent's context, with the time, the agent, the hook, the session, the
learnings (each with the relevance evidence that cleared the floor) and the
query recalled for (the prompt, or the project, branch and commits at
session start), redacted and clipped.

The ledger is one file a day under the state directory (injections/), kept
90 days and at most 5 MB: a day's file stops at 1 MB, and the oldest days go
first when the rest pass 4 MB.

--since takes a duration (90m, 36h, 7d), a date (2026-11-28) or a time
(2026-11-28T10:00:00Z).`,
		Example: `  reflect log --since 1d
  reflect log --session 8f14e45f-ceea-4c3a-a5d1-1a2b3c4d5e6f
  reflect log --json --since 2026-11-01`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Now = time.Now()
			if runF != nil {
				return runF(opts)
			}
			return logRun(f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "only this session's injections")
	cmd.Flags().StringVar(&opts.Since, "since", "", "only injections since `WHEN`: a duration back (7d, 36h), a date or a time")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func logRun(f *Factory, opts *LogOptions) error {
	since, err := parseSince(opts.Since, opts.Now)
	if err != nil {
		return err
	}
	c, err := f.Config()
	if err != nil {
		return err
	}
	entries, err := recall.ReadLedger(c.StateDir, recall.LedgerFilter{Session: opts.Session, Since: since})
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{"injections": entries})
	}
	if len(entries) == 0 {
		fmt.Fprintln(f.IO.Err, "No injections recorded (for this filter).")
		return nil
	}
	for _, e := range entries {
		fmt.Fprintf(f.IO.Out, "%s  %s %s  session %s\n", e.Time.Local().Format("2006-01-02 15:04:05"), oneLine(e.Agent), oneLine(e.Hook), oneLine(e.Session))
		for i, id := range e.IDs {
			ev := ""
			if i < len(e.Evidence) {
				ev = fmt.Sprintf("  (evidence %.2f)", e.Evidence[i])
			}
			fmt.Fprintf(f.IO.Out, "  - %s%s\n", oneLine(id), ev)
		}
		if e.Query != "" {
			fmt.Fprintf(f.IO.Out, "  for: %s\n", oneLine(e.Query))
		}
	}
	return nil
}

// parseSince reads --since: "" (no bound), a duration back from now (Go's
// units, plus d for days), a date, or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	return time.Time{}, usagef("--since %q: give a duration (7d, 36h), a date (2026-11-28) or a time (2026-11-28T10:00:00Z)", s)
}
