package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/importer"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/recall"
)

// RecallOptions are the inputs of `reflect recall`.
type RecallOptions struct {
	IO      *Streams
	Prompt  string
	Cwd     string
	Session string
	Agent   string
	JSON    bool
	// CwdSet is whether --cwd was given (a session-start recall), even
	// empty.
	CwdSet bool
}

// NewCmdRecall builds `reflect recall`: what a hook would inject, on
// demand; runF, when not nil, runs instead with the parsed options.
func NewCmdRecall(f *Factory, runF func(*RecallOptions) error) *cobra.Command {
	opts := &RecallOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "recall (--prompt TEXT | --cwd DIR)",
		Short: "Show the learnings a hook would inject",
		Long: `Recall runs the same recall as the agent hooks: for a prompt (--prompt) or
for a session starting in a directory (--cwd: project, branch and recent
commits). It prints the <reflect-learnings> block, or nothing when no
learning passes the relevance floor and the gate.

With --session, learnings already injected in that session are skipped and
the new ones are recorded, as in a hook; without it no session state is read
or written. --agent prints the block as that agent's hook would answer:
Claude Code (claude), Codex CLI (codex), Gemini CLI (gemini), OpenCode
(opencode) or Copilot CLI (copilot), without the rules imported from a
file that agent loads itself (reflect import).`,
		Example: `  reflect recall --prompt "login fails with state mismatch after the OAuth callback"
  reflect recall --cwd . --json
  reflect recall --prompt "why is sqlite locked" --session 8f14e45f --agent claude`,
		Args: exactArgs(0, "no arguments (use --prompt TEXT or --cwd DIR)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			promptSet, cwdSet := cmd.Flags().Changed("prompt"), cmd.Flags().Changed("cwd")
			switch {
			case promptSet == cwdSet:
				return usagef("recall needs exactly one of --prompt TEXT or --cwd DIR")
			case opts.Agent != "" && !slices.Contains(hooks.Agents, opts.Agent):
				return usagef("--agent must be one of %s, not %q", strings.Join(hooks.Agents, ", "), opts.Agent)
			case opts.Agent != "" && opts.JSON:
				return usagef("--agent and --json are two output formats; choose one")
			}
			opts.CwdSet = cwdSet
			if runF != nil {
				return runF(opts)
			}
			return recallRun(cmd, f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Prompt, "prompt", "", "recall for this user prompt")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "recall for a session starting in this directory")
	cmd.Flags().StringVar(&opts.Session, "session", "", "skip and record learnings injected in this session")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "print as this agent's hook output: claude, codex, gemini, opencode or copilot")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	_ = cmd.RegisterFlagCompletionFunc("agent", completeValues(hooks.Agents...))
	return cmd
}

func recallRun(cmd *cobra.Command, f *Factory, opts *RecallOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	req := recallRequest(c, opts)
	if opts.Agent != "" && !opts.CwdSet {
		// The hook knows the session's directory; here it is ours.
		req.Cwd, _ = os.Getwd()
	}
	if opts.CwdSet {
		req.Kind = recall.SessionStart
		if req.Cwd, err = filepath.Abs(opts.Cwd); err != nil {
			return usagef("--cwd %s: %v", opts.Cwd, err)
		}
	}
	ix, err := f.OpenIndex(cmd.Context(), true)
	if err != nil {
		return err
	}
	defer ix.Close()
	res, err := recall.Recall(cmd.Context(), ix, req)
	if err != nil {
		return err
	}
	return recallOutput(opts, req.Kind, res)
}

// recallRequest is the recall opts ask for, with the hooks' budgets and
// gate level from c.
func recallRequest(c *config.Config, opts *RecallOptions) recall.Request {
	return recall.Request{
		Kind: recall.Prompt, Prompt: opts.Prompt,
		SessionID: opts.Session, StateDir: c.StateDir,
		Max: c.Recall.Max, Chars: c.Recall.Chars, Gate: recall.Gate(c.Recall.Gate),
		// As in that agent's hook, the rules it loads itself are left out.
		Agent:     opts.Agent,
		AgentDirs: importer.Dirs{Home: c.Agents.Home, Claude: c.Agents.Claude, Codex: c.Agents.Codex},
	}
}

func recallOutput(opts *RecallOptions, kind recall.Kind, res recall.Result) error {
	if res.Warning != "" {
		fmt.Fprintf(opts.IO.Err, "reflect: %s\n", res.Warning)
	}
	switch {
	case opts.JSON:
		return printJSON(opts.IO.Out, res)
	case res.Context == "":
		// stdout stays empty, as a hook's would; the reason is for people.
		fmt.Fprintf(opts.IO.Err, "reflect: nothing to recall: %s\n", res.Skipped)
		return nil
	case opts.Agent != "":
		// One line, as the hook prints it for that agent.
		event := "prompt"
		if kind == recall.SessionStart {
			event = "session-start"
		}
		return hooks.WriteAnswer(opts.IO.Out, opts.Agent, event, res.Context)
	}
	fmt.Fprintln(opts.IO.Out, res.Context)
	return nil
}
