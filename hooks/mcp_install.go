package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// MCPServerName is the name reflect's MCP server is registered under: the
// key in Claude's mcpServers and Codex's [mcp_servers.<name>], and the
// prefix of its tools in the agents (mcp__reflect__search).
const MCPServerName = "reflect"

// mcpArgs is how an agent starts the server: `reflect mcp`.
var mcpArgs = []string{"mcp"}

// DefaultMCPConfigPath returns the file that registers MCP servers for
// agent at user scope: Claude Code's ~/.claude.json (what `claude mcp add
// --scope user` writes; $CLAUDE_CONFIG_DIR/.claude.json when that is set)
// and Codex's ~/.codex/config.toml ($CODEX_HOME/config.toml).
func DefaultMCPConfigPath(agent string) (string, error) {
	a, err := lookupAgent(agent)
	if err != nil {
		return "", err
	}
	file := "config.toml"
	if a.name == "claude" {
		file = ".claude.json"
	}
	if dir := os.Getenv(a.envDir); dir != "" {
		return filepath.Join(dir, file), nil
	}
	home := os.Getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil || home == "" {
			return "", errors.New("cannot find your home directory: set HOME or pass --settings PATH")
		}
	}
	if a.name == "claude" {
		return filepath.Join(home, file), nil
	}
	return filepath.Join(home, a.homeDir, file), nil
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
	a, err := lookupAgent(opts.Agent)
	if err != nil {
		return Result{}, err
	}
	op := "mcp uninstall"
	if install {
		op = "mcp install"
		if err := checkBinary(opts.Binary); err != nil {
			return Result{}, err
		}
	}
	path := opts.SettingsPath
	if path == "" {
		if path, err = DefaultMCPConfigPath(a.name); err != nil {
			return Result{}, err
		}
	}
	res := Result{Agent: a.name, Path: path, DryRun: opts.DryRun}
	backup := path + BackupSuffix
	if _, err := os.Lstat(backup); err == nil {
		res.BackupPath = backup
	}
	target, err := resolve(path)
	if err != nil {
		return res, err
	}
	orig, err := os.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", path, err)
	}
	res.Created = install && !exists

	edit := editClaudeMCP
	if a.name == "codex" {
		edit = editCodexMCP
	}
	out, err := edit(orig, opts.Binary, install, &res)
	if err != nil {
		return res, refuse(path, op, a.name, err)
	}
	res.Changed = len(res.Added)+len(res.Updated)+len(res.Removed) > 0
	if install && res.Changed {
		res.Notes = append(res.Notes, mcpNote(a.name))
	}
	if !res.Changed {
		res.Created = false
		writeReport(opts.Out, &res, strings.TrimPrefix(op, "mcp "))
		return res, nil
	}
	if opts.DryRun {
		res.NewContent = string(out)
		from := path
		if !exists {
			from = "/dev/null"
		}
		res.Diff = unifiedDiff(from, path, orig, out)
		writeReport(opts.Out, &res, strings.TrimPrefix(op, "mcp "))
		return res, nil
	}
	perm := fsutil.FilePerm
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	if exists && res.BackupPath == "" {
		if err := fsutil.WriteAtomic(backup, orig, perm); err != nil {
			return res, err
		}
		res.BackupPath, res.BackupWritten = backup, true
	}
	if err := fsutil.EnsureDir(filepath.Dir(target)); err != nil {
		return res, err
	}
	if err := fsutil.WriteAtomic(target, out, perm); err != nil {
		return res, err
	}
	writeReport(opts.Out, &res, strings.TrimPrefix(op, "mcp "))
	return res, nil
}

func mcpNote(agent string) string {
	if agent == "codex" {
		return "Start a new Codex session for the reflect MCP tools to load (/mcp lists them)."
	}
	return "Start a new Claude Code session for the reflect MCP tools to load (/mcp lists them)."
}

// mcpEntry is the report line for the server entry.
func mcpEntry(key, bin string) Entry {
	return Entry{Event: key, Command: shellQuote(bin) + " " + strings.Join(mcpArgs, " ")}
}

// isOurServer says whether a server definition runs a reflect binary as
// `reflect mcp`: only such an entry is updated or removed.
func isOurServer(command string, args []string) bool {
	return filepath.Base(command) == "reflect" && len(args) == len(mcpArgs) && args[0] == mcpArgs[0]
}

// ---- Claude: ~/.claude.json mcpServers ----------------------------------

// claudeServer is an mcpServers entry as `claude mcp add --scope user
// reflect -- BIN mcp` writes it.
type claudeServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

func editClaudeMCP(orig []byte, bin string, install bool, res *Result) ([]byte, error) {
	root, err := parseSettings(orig)
	if err != nil {
		return nil, err
	}
	servers, err := root.object("mcpServers")
	if err != nil {
		return nil, err
	}
	key := "mcpServers." + MCPServerName
	raw, have := servers.get(MCPServerName)
	var cur claudeServer
	if have && (json.Unmarshal(raw, &cur) != nil || !isOurServer(cur.Command, cur.Args)) {
		if !install {
			return orig, nil // someone else's server of that name: not ours to remove
		}
		return nil, fmt.Errorf("%s is already defined and does not run `reflect mcp` (%s); remove or rename it", key, bytes.TrimSpace(raw))
	}
	if !install {
		if !have {
			return orig, nil
		}
		servers.del(MCPServerName)
		res.Removed = append(res.Removed, mcpEntry(key, cur.Command))
		if len(servers.keys) == 0 {
			// Exact uninstall: an mcpServers reflect created goes with it.
			root.del("mcpServers")
		} else if err := root.setObject("mcpServers", servers); err != nil {
			return nil, err
		}
		return render(root)
	}
	want := mustJSON(claudeServer{Type: "stdio", Command: bin, Args: mcpArgs, Env: map[string]string{}})
	if have && sameJSON(raw, want) {
		return orig, nil
	}
	if err := servers.set(MCPServerName, want); err != nil {
		return nil, err
	}
	if have {
		res.Updated = append(res.Updated, mcpEntry(key, bin))
	} else {
		res.Added = append(res.Added, mcpEntry(key, bin))
	}
	if err := root.setObject("mcpServers", servers); err != nil {
		return nil, err
	}
	return render(root)
}

// ---- Codex: config.toml [mcp_servers.reflect] ----------------------------

// codexMCPHeader is the table reflect writes; the file is edited as text so
// that the user's comments and layout survive, and parsed before and after
// to make sure the edit means what it should.
var codexMCPHeader = "[mcp_servers." + MCPServerName + "]"

type codexConfig struct {
	MCPServers map[string]struct {
		Command string   `toml:"command"`
		Args    []string `toml:"args"`
	} `toml:"mcp_servers"`
}

func parseCodexConfig(data []byte) (codexConfig, error) {
	var c codexConfig
	if _, err := toml.Decode(string(data), &c); err != nil {
		return c, fmt.Errorf("invalid TOML: %v", err)
	}
	return c, nil
}

func codexBlock(bin string) string {
	return codexMCPHeader + "\ncommand = " + strconv.Quote(bin) + "\nargs = [\"mcp\"]\n"
}

func editCodexMCP(orig []byte, bin string, install bool, res *Result) ([]byte, error) {
	c, err := parseCodexConfig(orig)
	if err != nil {
		return nil, err
	}
	key := "mcp_servers." + MCPServerName
	cur, have := c.MCPServers[MCPServerName]
	if have && !isOurServer(cur.Command, cur.Args) {
		if !install {
			return orig, nil
		}
		return nil, fmt.Errorf("[%s] is already defined and does not run `reflect mcp` (command %q); remove or rename it", key, cur.Command)
	}
	if install && have && cur.Command == bin {
		return orig, nil
	}
	if !install && !have {
		return orig, nil
	}
	lines := strings.SplitAfter(string(orig), "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if start < 0 && t == codexMCPHeader {
			start = i
			continue
		}
		if start >= 0 && strings.HasPrefix(t, "[") {
			end = i
			break
		}
	}
	if have && start < 0 {
		return nil, fmt.Errorf("%s is defined in a form reflect does not edit (inline or dotted keys); edit it by hand", key)
	}
	// The table's own lines end at the last non-blank line before the
	// next table (or the end of the file).
	blockEnd := end
	for start >= 0 && blockEnd > start+1 && strings.TrimSpace(lines[blockEnd-1]) == "" {
		blockEnd--
	}
	var out string
	switch {
	case !install:
		// Drop the table and the blank line install put before it.
		if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
			start--
		}
		out = strings.Join(lines[:start], "") + strings.Join(lines[blockEnd:], "")
		res.Removed = append(res.Removed, mcpEntry(key, cur.Command))
	case have:
		// An older binary path: rewrite the table in place.
		out = strings.Join(lines[:start], "") + codexBlock(bin) + strings.Join(lines[blockEnd:], "")
		res.Updated = append(res.Updated, mcpEntry(key, bin))
	default:
		out = string(orig)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out != "" {
			out += "\n"
		}
		out += codexBlock(bin)
		res.Added = append(res.Added, mcpEntry(key, bin))
	}
	// The edit must mean what it says: reflect's server defined (or gone),
	// everything else as it was.
	after, err := parseCodexConfig([]byte(out))
	if err != nil {
		return nil, fmt.Errorf("internal error: the edited file would not parse (%v); nothing written", err)
	}
	got, ok := after.MCPServers[MCPServerName]
	if install != ok || (install && (got.Command != bin || !isOurServer(got.Command, got.Args))) {
		return nil, fmt.Errorf("internal error: the edit did not %s [%s] cleanly; nothing written, edit it by hand", map[bool]string{true: "add", false: "remove"}[install], key)
	}
	return []byte(out), nil
}
