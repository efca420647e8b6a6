package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/internal/config"
)

// Main runs reflect with args, the streams io and the environment env
// reads (os.LookupEnv in the program), and returns the process exit code.
func Main(args []string, io *Streams, env config.LookupFunc) int {
	f := &Factory{IO: io, LookupEnv: env}
	root := NewRootCmd(f)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	err := root.ExecuteContext(context.Background())
	var quiet quietError
	if err != nil && !errors.As(err, &quiet) {
		msg := err.Error()
		if !strings.HasPrefix(msg, "reflect") {
			msg = "reflect: " + msg
		}
		fmt.Fprintln(io.Err, msg)
		if exitCode(err) == exitBusy {
			// The library says what was busy; what to do about it is
			// the command's to say (and the status lets scripts retry).
			fmt.Fprintln(io.Err, "another process is at work; try again once it finishes (exit status 75)")
		}
		var ue usageError
		if errors.As(err, &ue) {
			if cmd, _, ferr := root.Find(args); ferr == nil && cmd != nil {
				fmt.Fprintf(io.Err, "run '%s --help' for usage\n", cmd.CommandPath())
			}
		}
	}
	return exitCode(err)
}

// NewRootCmd builds the command tree.
func NewRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "reflect",
		Short: "Long-term memory for coding agents",
		Long: `reflect gives Claude Code, Codex, Gemini CLI, OpenCode and Copilot CLI a
shared, local memory of learnings: what failed, what fixed it, what the user
corrected. Learnings are markdown
files under ~/.learnings/documents; the index under ~/.learnings/index is
derived from them and can be rebuilt at any time.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError)
	root.PersistentFlags().StringVar(&f.ColorMode, "color", "auto", "colour output: auto, always or never (NO_COLOR turns auto off)")
	_ = root.RegisterFlagCompletionFunc("color", completeValues("auto", "always", "never"))
	root.Args, root.RunE = noSubcommand, showHelp
	root.AddCommand(
		NewCmdSearch(f, nil),
		NewCmdAdd(f, nil),
		NewCmdImport(f, nil),
		NewCmdBackfill(f, nil),
		NewCmdEnrich(f, nil),
		NewCmdPromote(f, nil),
		NewCmdDemote(f, nil),
		NewCmdList(f, nil),
		NewCmdShow(f, nil),
		NewCmdGraph(f, nil),
		NewCmdForget(f, nil),
		NewCmdEdit(f, nil),
		NewCmdMark(f, nil),
		NewCmdReview(f, nil),
		NewCmdLog(f, nil),
		NewCmdReindex(f, nil),
		NewCmdDoctor(f, nil),
		NewCmdVersion(f, nil),
		NewCmdBench(f),
		NewCmdInstall(f, false, nil),
		NewCmdInstall(f, true, nil),
		NewCmdQueue(f, nil),
		NewCmdStatusline(f, nil),
		NewCmdStatus(f, nil),
		NewCmdHook(f, nil),
		NewCmdRecall(f, nil),
		NewCmdDrain(f, nil),
		NewCmdConfig(f, nil),
		NewCmdDocs(f, nil),
		environmentTopic(),
		NewCmdMCP(f, nil),
		NewCmdSync(f, nil),
		NewCmdMergeLearning(f, nil),
		NewCmdUI(f, nil),
	)
	applyConventions(root, f)
	return root
}

// noSubcommand refuses arguments to a command that only groups
// subcommands: they are a misspelt or unknown subcommand (cobra would exit
// 1 for the root and show help with status 0 for any other group).
func noSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return nil
}

func showHelp(cmd *cobra.Command, _ []string) error { return cmd.Help() }

// args validators that report the caller's mistake with exit code 2.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("expected %s, got %s", what, countOf(len(args), "argument"))
		}
		return nil
	}
}

func maxArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > n {
			return usagef("expected at most %s, got %s", what, countOf(len(args), "argument"))
		}
		return nil
	}
}

func minArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < n {
			return usagef("expected %s, got %d", what, len(args))
		}
		return nil
	}
}
