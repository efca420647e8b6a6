package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/hooks"
)

// NewCmdInstall builds `reflect install` and `reflect uninstall`.
func NewCmdInstall(f *Factory, uninstall bool) *cobra.Command {
	opts := hooks.InstallOptions{}
	var asJSON bool
	verb, short := "install", "Add reflect's hooks to Claude Code or Codex"
	if uninstall {
		verb, short = "uninstall", "Remove exactly the hooks reflect added"
	}
	cmd := &cobra.Command{
		Use:   verb + " claude|codex",
		Short: short,
		Long: short + `.
Claude: ~/.claude/settings.json (or $CLAUDE_CONFIG_DIR). Codex: ~/.codex/hooks.json
(or $CODEX_HOME). Other hooks and settings are kept; the original file is backed
up once as <file>.reflect-backup; invalid JSON is refused untouched.`,
		Example: "  reflect " + verb + " claude --dry-run\n  reflect " + verb + " codex",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || (args[0] != "claude" && args[0] != "codex") {
				return usagef("%s needs the agent: claude or codex", verb)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Agent = args[0]
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the reflect binary: %w", err)
			}
			if exe, err = filepath.EvalSymlinks(exe); err != nil {
				return fmt.Errorf("find the reflect binary: %w", err)
			}
			opts.Binary = exe
			if !asJSON {
				opts.Out = f.IO.Out
			}
			run := hooks.Install
			if uninstall {
				run = hooks.Uninstall
			}
			res, err := run(opts)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(f.IO.Out, res)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show what would change; write nothing")
	cmd.Flags().StringVar(&opts.SettingsPath, "settings", "", "settings file to edit instead of the default")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.ValidArgsFunction = completeFirstArg(agents...)
	return cmd
}
