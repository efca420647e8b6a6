package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/internal/config"
)

// InstallOptions are the inputs of `reflect install`, `reflect uninstall`
// and `reflect mcp install|uninstall`.
type InstallOptions struct {
	agents.InstallOptions
	// Uninstall is set for the uninstall commands; All is uninstall --all.
	Uninstall, All, JSON bool
}

// NewCmdInstall builds `reflect install` and `reflect uninstall`; runF,
// when not nil, runs instead with the parsed options.
func NewCmdInstall(f *Factory, uninstall bool, runF func(*InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{Uninstall: uninstall}
	verb, short := "install", "Add reflect's hooks to Claude Code, Codex, Gemini CLI, OpenCode or Copilot CLI"
	if uninstall {
		verb, short = "uninstall", "Remove exactly the hooks reflect added"
	}
	args := agentArg(verb)
	if uninstall {
		args = func(cmd *cobra.Command, a []string) error {
			if opts.All {
				if len(a) > 0 || opts.SettingsPath != "" {
					return usagef("uninstall --all takes no agent and no --settings: it removes reflect from every agent's default files")
				}
				return nil
			}
			return agentArg(verb)(cmd, a)
		}
	}
	cmd := &cobra.Command{
		Use:   verb + " " + strings.Join(agents.Names, "|"),
		Short: short,
		Long: short + `.
Claude: ~/.claude/settings.json (or $CLAUDE_CONFIG_DIR). Codex: ~/.codex/hooks.json
(or $CODEX_HOME). Copilot CLI: ~/.copilot/settings.json (or $COPILOT_HOME).
Other hooks and settings are kept; the original file is backed up once as
<file>.reflect-backup; invalid JSON is refused untouched. OpenCode has plugins,
not hooks: reflect writes (and uninstall deletes) its own plugin file,
~/.config/opencode/plugins/reflect.js (or under $XDG_CONFIG_HOME).`,
		Example: "  reflect " + verb + " claude --dry-run\n  reflect " + verb + " codex",
		Args:    args,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				opts.Agent = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return installRun(f, opts)
		},
	}
	if uninstall {
		cmd.Long += `
A file reflect created is removed once nothing else is in it, and the backup
once the file is back to the original. --all removes reflect from every
agent: hooks, status line, MCP server entries and OpenCode's plugin file.`
		cmd.Example += "\n  reflect uninstall --all"
		cmd.Flags().BoolVar(&opts.All, "all", false, "remove hooks, status line and MCP entries from every agent")
	} else {
		cmd.Long += `
Learnings are written by the builtin writer (no LLM, nothing spent) until
you choose an LLM writer: on a terminal install asks once (default no),
naming the writer, its daily caps and the command to change it later;
otherwise it prints that command ('reflect config set drain.writer claude').`
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show what would change; write nothing")
	cmd.Flags().StringVar(&opts.SettingsPath, "settings", "", "settings file to edit instead of the default")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.ValidArgsFunction = completeFirstArg(agents.Names...)
	return cmd
}

// installRun installs or uninstalls the hooks and, after an install, asks
// about the writer.
func installRun(f *Factory, opts *InstallOptions) error {
	if opts.All {
		return runUninstallAll(f, opts.InstallOptions, opts.JSON)
	}
	run := agents.Install
	if opts.Uninstall {
		run = agents.Uninstall
	}
	if err := runInstall(f, run, opts.InstallOptions, opts.Agent, opts.JSON); err != nil || opts.Uninstall || opts.DryRun {
		return err
	}
	return askWriter(f, opts.Agent, opts.JSON)
}

// agentArg accepts exactly one argument naming an agent reflect installs
// into; cmdName is what the usage error calls the command.
func agentArg(cmdName string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 || !slices.Contains(agents.Names, args[0]) {
			return usagef("%s needs the agent: one of %s", cmdName, strings.Join(agents.Names, ", "))
		}
		return nil
	}
}

// runInstall runs an (un)install of hooks or of the MCP server for agent,
// naming this very binary in what it writes, and reports the result.
func runInstall(f *Factory, run func(agents.InstallOptions) (agents.Result, error), opts agents.InstallOptions, agent string, asJSON bool) error {
	opts.Agent = agent
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the reflect binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return fmt.Errorf("find the reflect binary: %w", err)
	}
	opts.Binary = exe
	// The agents' directories come from the environment only, not from
	// config.toml, so a broken config.toml does not block installing.
	opts.Dirs = agents.Dirs(config.ResolveAgentDirs(f.LookupEnv))
	res, err := run(opts)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(f.IO.Out, res)
	}
	writeInstallReport(f.IO.Out, res)
	return nil
}

// runUninstallAll removes reflect from every agent and reports each file;
// an agent that fails does not stop the others.
func runUninstallAll(f *Factory, opts agents.InstallOptions, asJSON bool) error {
	opts.Dirs = agents.Dirs(config.ResolveAgentDirs(f.LookupEnv))
	results, err := agents.UninstallAll(opts)
	if asJSON {
		if results == nil {
			results = []agents.Result{}
		}
		if perr := printJSON(f.IO.Out, results); perr != nil {
			return perr
		}
		return err
	}
	for _, r := range results {
		if r.Changed || r.Deleted || r.BackupRemoved {
			writeInstallReport(f.IO.Out, r)
		}
	}
	if err == nil && !slices.ContainsFunc(results, func(r agents.Result) bool { return r.Changed || r.Deleted || r.BackupRemoved }) {
		fmt.Fprintln(f.IO.Out, "nothing of reflect's in any agent's files")
	}
	return err
}

// writeInstallReport tells people what an install or uninstall (of hooks
// or of the MCP server) did, or would do in a dry run: the file, each entry
// added, updated or removed, the diff of a dry run, the backup and the
// steps left to them.
func writeInstallReport(w io.Writer, r agents.Result) {
	op := r.Op
	switch {
	case !r.Changed && op == "install":
		fmt.Fprintf(w, "%s is already up to date\n", r.Path)
	case !r.Changed && r.Deleted:
		fmt.Fprintf(w, "removed %s, which an older uninstall left empty\n", r.Path)
	case !r.Changed:
		fmt.Fprintf(w, "nothing of reflect's in %s\n", r.Path)
	case r.DryRun:
		fmt.Fprintf(w, "dry run: would update %s (nothing written)\n", r.Path)
	case r.Created:
		fmt.Fprintf(w, "created %s\n", r.Path)
	case r.Deleted:
		fmt.Fprintf(w, "removed %s\n", r.Path)
	default:
		fmt.Fprintf(w, "updated %s\n", r.Path)
	}
	for _, g := range []struct {
		verb string
		list []agents.Entry
	}{{"added", r.Added}, {"updated", r.Updated}, {"removed", r.Removed}} {
		for _, e := range g.list {
			fmt.Fprintf(w, "  %-8s %s", g.verb, e.Event)
			if e.Matcher != "" {
				fmt.Fprintf(w, " [%s]", e.Matcher)
			}
			fmt.Fprintf(w, ": %s", e.Command)
			if e.Timeout > 0 {
				fmt.Fprintf(w, " (timeout %ds)", e.Timeout)
			}
			fmt.Fprintln(w)
		}
	}
	if r.Diff != "" {
		fmt.Fprint(w, r.Diff)
	}
	if r.BackupWritten {
		fmt.Fprintf(w, "backup of the original: %s\n", r.BackupPath)
	}
	if r.BackupRemoved {
		fmt.Fprintf(w, "removed the backup %s: the file is as it was before reflect\n", r.BackupPath)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
