package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/hooks"
	textutil "github.com/reflectkb/reflect/internal/text" // main_test.go declares text
)

// processStart approximates when this process started: package variables
// are set before main runs. A hook's deadline counts from it, so reading a
// huge payload is not free.
var processStart = time.Now()

// HookOptions are the inputs of `reflect hook`.
type HookOptions struct {
	Event, Agent string
}

// NewCmdHook builds `reflect hook EVENT --agent AGENT`, the entry
// point of every agent hook. It always exits 0: whatever goes wrong is
// logged to logs/hooks.log, never shown to the agent as a failure. runF,
// when not nil, runs instead with the parsed options.
func NewCmdHook(f *Factory, runF func(*HookOptions) error) *cobra.Command {
	opts := &HookOptions{}
	cmd := &cobra.Command{
		Use:   "hook EVENT --agent " + strings.Join(hooks.Agents, "|"),
		Short: "Handle an agent hook event (reads the agent's JSON on stdin)",
		Long: `Hook handles one hook event of Claude Code, Codex CLI, Gemini CLI, OpenCode
(through reflect's plugin) or Copilot CLI. EVENT is one of
session-start, prompt, pre-tool, post-tool, pre-compact, stop, session-end. It reads the
agent's JSON payload on stdin and answers in that agent's format, printing
nothing when there is nothing to add. It always exits 0; problems go to
$REFLECT_STATE_DIR/logs/hooks.log. REFLECT_DISABLE=1 turns every hook into a
no-op. 'reflect install' sets these up for you.`,
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Event = ""
			if len(args) > 0 {
				opts.Event = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			hookRun(cmd, f, opts)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "", textutil.OrList(hooks.Agents))
	_ = cmd.RegisterFlagCompletionFunc("agent", completeValues(hooks.Agents...))
	cmd.ValidArgsFunction = completeFirstArg(hooks.Events...)
	cmd.Example = `  echo '{"session_id":"s1","cwd":"/tmp"}' | reflect hook session-start --agent claude`
	return cmd
}

// hookRun handles the event; it returns nothing, as a hook never fails.
func hookRun(cmd *cobra.Command, f *Factory, opts *HookOptions) {
	f.QuietConfig = true
	cfg, _ := f.Config() // a broken config.toml must not break the agent
	hooks.Run(cmd.Context(), hooks.Options{
		Event: opts.Event, Agent: opts.Agent, In: f.IO.In, Out: f.IO.Out, Config: cfg,
		Start: processStart,
	})
}
