package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/statusline"
)

// stdinWait bounds how long statusline waits for the agent's JSON: a status
// line must never hang, even when stdin is a pipe nobody writes to.
const stdinWait = 200 * time.Millisecond

// NewCmdStatusline builds `reflect statusline`.
func NewCmdStatusline(f *Factory) *cobra.Command {
	var session, colorMode string
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
			f.QuietConfig = true
			c, err := f.Config()
			if err != nil {
				return err
			}
			if session == "" && !f.IO.InTTY {
				session = sessionFromStdin(f.IO.In)
			}
			var color bool
			switch colorMode {
			case "always":
				color = true
			case "never":
			case "auto":
				color = f.IO.OutTTY && f.Getenv("NO_COLOR") == ""
			default:
				return usagef("--color must be auto, always or never")
			}
			fmt.Fprintln(f.IO.Out, statusline.Line(c.StateDir, session, color))
			return nil
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "session id (default: from the JSON on stdin)")
	cmd.Flags().StringVar(&colorMode, "color", "auto", "auto, always or never")
	_ = cmd.RegisterFlagCompletionFunc("color", completeValues("auto", "always", "never"))
	return cmd
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
