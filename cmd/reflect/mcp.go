package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/mcpserver"
)

// maxMCPLog is when mcp.log is rotated to mcp.log.1, as hooks.log is.
const maxMCPLog = 1 << 20

// NewCmdMCP builds `reflect mcp` (the server) and its install/uninstall.
func NewCmdMCP(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the knowledge base to MCP clients on stdio",
		Long: `mcp runs reflect's Model Context Protocol server on stdin/stdout, for an
agent to start: Claude Code, Codex, Cursor, Claude Desktop or any stdio MCP
client. Tools: search, recall, get, remember, forget, list; every learning
is a resource reflect://learning/<id>; the prompt reflect-reflect asks the
agent to record what it learned. stdout carries the protocol only; the
server logs to $REFLECT_STATE_DIR/logs/mcp.log.

'reflect mcp install claude|codex' registers the server with an agent.
See docs/mcp.md for other clients.`,
		Example: `  reflect mcp install claude
  reflect mcp install codex --dry-run
  npx @modelcontextprotocol/inspector --cli reflect mcp --method tools/list`,
		Args: exactArgs(0, "no arguments (or a subcommand: install, uninstall)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPServer(cmd.Context(), f)
		},
	}
	cmd.AddCommand(newCmdMCPInstall(f, false), newCmdMCPInstall(f, true))
	return cmd
}

func runMCPServer(ctx context.Context, f *Factory) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	logw := openMCPLog(c.StateDir)
	defer logw.Close()
	log := slog.New(slog.NewTextHandler(logw, nil))
	cwd, _ := os.Getwd()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := mcpserver.New(mcpserver.Options{Config: c, Version: version, Cwd: cwd, Logger: log})
	if err != nil {
		return err
	}
	defer s.Close()
	log.Info("serving", "pid", os.Getpid(), "cwd", cwd)
	err = s.Run(ctx, s.Transport(f.IO.In, f.IO.Out))
	if err != nil && ctx.Err() == nil {
		log.Error("server stopped", "err", err)
		return err
	}
	log.Info("client disconnected")
	return nil
}

// openMCPLog opens $STATE/logs/mcp.log for appending, rotating it past
// maxMCPLog. A log that cannot be opened is discarded: the server serves
// regardless, since its stdout is the protocol and cannot carry the news.
func openMCPLog(stateDir string) io.WriteCloser {
	dir := filepath.Join(stateDir, "logs")
	if fsutil.EnsureDir(dir) != nil {
		return discard{}
	}
	path := filepath.Join(dir, "mcp.log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxMCPLog {
		_ = os.Rename(path, path+".1")
	}
	lf, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, fsutil.FilePerm)
	if err != nil {
		return discard{}
	}
	return lf
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

func newCmdMCPInstall(f *Factory, uninstall bool) *cobra.Command {
	opts := hooks.InstallOptions{}
	var asJSON bool
	verb, short := "install", "Register reflect's MCP server with Claude Code or Codex"
	if uninstall {
		verb, short = "uninstall", "Remove exactly the MCP server entry reflect added"
	}
	cmd := &cobra.Command{
		Use:   verb + " claude|codex",
		Short: short,
		Long: short + `.
Claude: mcpServers.reflect in ~/.claude.json (user scope, as 'claude mcp add
--scope user' writes it; $CLAUDE_CONFIG_DIR/.claude.json when set). Codex:
[mcp_servers.reflect] in ~/.codex/config.toml ($CODEX_HOME). Everything else
in the file is kept; the original is backed up once as <file>.reflect-backup;
a file that does not parse, or a reflect entry that is not reflect's, is
refused untouched.`,
		Example: "  reflect mcp " + verb + " claude --dry-run\n  reflect mcp " + verb + " codex",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || (args[0] != "claude" && args[0] != "codex") {
				return usagef("mcp %s needs the agent: claude or codex", verb)
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
			run := hooks.InstallMCP
			if uninstall {
				run = hooks.UninstallMCP
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
	cmd.Flags().StringVar(&opts.SettingsPath, "settings", "", "config file to edit instead of the default")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
