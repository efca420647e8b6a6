package agents

import (
	"fmt"
	"path/filepath"
	"strings"
)

// MCPServerName is the name reflect's MCP server is registered under: the
// key in Claude's mcpServers and Codex's [mcp_servers.<name>], and the
// prefix of its tools in the agents (mcp__reflect__search).
const MCPServerName = "reflect"

// MCPEnvVars are the environment variables reflect's configuration reads
// (internal/config; a test in cmd/reflect keeps the two lists equal). An
// agent that starts MCP servers with a filtered environment (Codex) is told
// to pass them through, so the server sees the knowledge base and settings
// the hooks see.
var MCPEnvVars = []string{
	"REFLECT_DISABLE", "REFLECT_LEARNINGS_DIR", "REFLECT_STATE_DIR", "REFLECT_EMBEDDER",
	"REFLECT_HALF_LIFE_DAYS", "REFLECT_RECALL_MAX", "REFLECT_RECALL_CHARS", "REFLECT_RECALL_GATE",
	"REFLECT_WRITER", "REFLECT_WRITER_COMMAND", "REFLECT_DRAIN_MAX_PER_RUN", "REFLECT_DRAIN_DAILY_MAX",
	"REFLECT_DRAIN_MAX_ATTEMPTS", "REFLECT_DRAIN_DAILY_USD", "REFLECT_DRAIN_TIMEOUT",
	"REFLECT_DRAIN_REVIEW",
}

// mcpArgs is how an agent starts the server: `reflect mcp`.
var mcpArgs = []string{"mcp"}

// DefaultMCPConfigPath returns the file that registers MCP servers for
// agent at user scope: Claude Code's ~/.claude.json (what `claude mcp add
// --scope user` writes; $CLAUDE_CONFIG_DIR/.claude.json when that is set)
// Codex's ~/.codex/config.toml ($CODEX_HOME/config.toml), Gemini CLI's
// ~/.gemini/settings.json, which holds its hooks too, and Copilot CLI's
// ~/.copilot/mcp-config.json.
func DefaultMCPConfigPath(agent string, d Dirs) (string, error) {
	a, err := lookupAgent(agent)
	if err != nil {
		return "", err
	}
	if dir := a.relocated(d); dir != "" {
		return filepath.Join(dir, a.mcpFile), nil
	}
	if d.Home == "" {
		return "", errNoHome
	}
	if a.mcpAtHome {
		return filepath.Join(d.Home, a.mcpFile), nil
	}
	return filepath.Join(d.Home, a.homeDir, a.mcpFile), nil
}

// InstallMCP registers `reflect mcp` as an MCP server of the agent, at user
// scope, keeping everything else in the file as it is. Like Install it is
// idempotent, backs the original up once and supports a dry run. An entry
// named reflect that is not reflect's server is refused, not replaced.
func InstallMCP(opts InstallOptions) (Result, error) { return runMCP(opts, true) }

// UninstallMCP removes exactly the entry InstallMCP adds (recognised by its
// command being a reflect binary run as `reflect mcp`).
func UninstallMCP(opts InstallOptions) (Result, error) { return runMCP(opts, false) }

func runMCP(opts InstallOptions, install bool) (Result, error) {
	a, path, err := target(opts, install, DefaultMCPConfigPath)
	if err != nil {
		return Result{}, err
	}
	if a.editMCP == nil {
		return Result{}, fmt.Errorf("reflect does not register its MCP server with %s yet; its hooks inject recall (reflect install %s)", a.display, a.name)
	}
	j := job{agent: a, opts: opts, install: install, path: path, op: "mcp uninstall"}
	if install {
		j.op = "mcp install"
		j.notes = func(res *Result) {
			if res.Changed {
				res.Notes = append(res.Notes, a.mcpNote)
			}
		}
	}
	j.edit = func(orig []byte, res *Result) ([]byte, error) {
		return a.editMCP(orig, opts.Binary, install, res)
	}
	j.strip = stripWith(func(orig []byte, res *Result) ([]byte, error) {
		return a.editMCP(orig, opts.Binary, false, res)
	})
	if a.mcpFile == a.file && !a.mcpAtHome {
		j.strip = stripAll(a, opts)
	}
	return j.apply()
}

// mcpEntry is the report line for the server entry.
func mcpEntry(key, bin string) Entry {
	return Entry{Event: key, Command: shellQuote(bin) + " " + strings.Join(mcpArgs, " ")}
}

// isOurServer says whether a server definition runs a reflect binary as
// `reflect mcp`: only such an entry is updated or removed.
func isOurServer(command string, args []string) bool {
	return isReflectName(filepath.Base(command)) && len(args) == len(mcpArgs) && args[0] == mcpArgs[0]
}
