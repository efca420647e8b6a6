package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/internal/proc"
)

// MCPOptions are the inputs of `reflect mcp`: none, the server takes its
// settings from the environment.
type MCPOptions struct{}

// NewCmdMCP builds `reflect mcp` (the server) and its install/uninstall;
// runF, when not nil, runs instead of the server with the parsed options.
func NewCmdMCP(f *Factory, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the knowledge base to MCP clients on stdio",
		Long: `mcp runs reflect's Model Context Protocol server on stdin/stdout, for an
agent to start: Claude Code, Codex CLI, Gemini CLI, OpenCode, Copilot CLI,
Cursor, Claude Desktop or any stdio MCP client. Tools: search, recall, get, remember, forget, list; every learning
is a resource reflect://learning/<id>; the prompt reflect-reflect asks the
agent to record what it learned. stdout carries the protocol only; the
server logs to $REFLECT_STATE_DIR/logs/mcp.log.

'reflect mcp install claude|codex|gemini|opencode|copilot' registers the
server with an agent.
See docs/mcp.md for other clients.`,
		Example: `  reflect mcp install claude
  reflect mcp install codex --dry-run
  npx @modelcontextprotocol/inspector --cli reflect mcp --method tools/list`,
		Args: exactArgs(0, "no arguments (or a subcommand: install, uninstall)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runMCPServer()
		},
	}
	cmd.AddCommand(newCmdMCPInstall(f, false, nil), newCmdMCPInstall(f, true, nil))
	return cmd
}

// mcpBinary is the server's own binary. It is separate so that the MCP
// SDK's package initialisation is not paid by every hook (ARCHITECTURE §2).
const mcpBinary = "reflect-mcp"

// errNoMCPBinary says how to get the server binary when it is missing.
var errNoMCPBinary = errors.New("reflect mcp needs the " + mcpBinary + " binary next to reflect or on PATH; " +
	"'make install' installs both, or: go install -tags sqlite_fts5 github.com/reflectkb/reflect/cmd/...@latest")

// runMCPServer hands the process over to reflect-mcp (see execSibling).
func runMCPServer() error {
	return execSibling(mcpBinary, nil, errNoMCPBinary)
}

// execSibling hands the process over to the binary name, found next to
// this binary first (so an agent that starts /path/to/reflect mcp gets the
// server of the same build), then on PATH; missing is the error when it is
// in neither. exec keeps the caller's stdio and pid: nothing of reflect
// stays between the caller and the server.
func execSibling(name string, args []string, missing error) error {
	path := ""
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), name+exeSuffix); isExecutable(p) {
			path = p
		}
	}
	if path == "" {
		p, err := exec.LookPath(name)
		if err != nil {
			return missing
		}
		path = p
	}
	if err := proc.Exec(path, append([]string{name}, args...), os.Environ()); err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	return nil // not reached: Exec replaced the process
}

// exeSuffix ends the name of an executable: the siblings are
// reflect-mcp.exe and reflect-ui.exe on Windows.
var exeSuffix = map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]

// isExecutable reports whether path is a regular file someone may execute
// (on Windows, which has no execute bit, any regular file).
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0)
}

// newCmdMCPInstall builds `reflect mcp install` and `reflect mcp
// uninstall`; runF, when not nil, runs instead with the parsed options.
func newCmdMCPInstall(f *Factory, uninstall bool, runF func(*InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{Uninstall: uninstall}
	verb, short := "install", "Register reflect's MCP server with Claude Code, Codex, Gemini CLI, Copilot CLI or OpenCode"
	if uninstall {
		verb, short = "uninstall", "Remove exactly the MCP server entry reflect added"
	}
	cmd := &cobra.Command{
		Use:   verb + " claude|codex|gemini|copilot|opencode",
		Short: short,
		Long: short + `.
Claude: mcpServers.reflect in ~/.claude.json (user scope, as 'claude mcp add
--scope user' writes it; $CLAUDE_CONFIG_DIR/.claude.json when set). Codex:
[mcp_servers.reflect] in ~/.codex/config.toml ($CODEX_HOME), passing
reflect's REFLECT_* settings through env_vars. Gemini CLI:
mcpServers.reflect in ~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini).
Copilot CLI: ~/.copilot/mcp-config.json ($COPILOT_HOME). OpenCode:
mcp.reflect in ~/.config/opencode/opencode.json ($XDG_CONFIG_HOME). Everything else
in the file is kept; the original is backed up once as <file>.reflect-backup;
a file that does not parse, or a reflect entry that is not reflect's, is
refused untouched.`,
		Example: "  reflect mcp " + verb + " claude --dry-run\n  reflect mcp " + verb + " codex",
		Args:    agentArg("mcp " + verb),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Agent = args[0]
			if runF != nil {
				return runF(opts)
			}
			run := agents.InstallMCP
			if opts.Uninstall {
				run = agents.UninstallMCP
			}
			return runInstall(f, run, opts.InstallOptions, opts.Agent, opts.JSON)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show what would change; write nothing")
	cmd.Flags().StringVar(&opts.SettingsPath, "settings", "", "config file to edit instead of the default")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.ValidArgsFunction = completeFirstArg(agents.Names...)
	return cmd
}
