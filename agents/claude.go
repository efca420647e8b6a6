package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reflectkb/reflect/internal/jsonobj"
)

// claudeAgent is Claude Code: hooks and the status line in
// ~/.claude/settings.json ($CLAUDE_CONFIG_DIR), the MCP server in
// ~/.claude.json's mcpServers.
//
// Timeouts are a backstop, not a budget: every handler stops itself after its
// own internal deadline (1.5 s by default, see ARCHITECTURE §4). They are explicit
// because the agents' defaults are wrong for us both ways: 600 s would let a
// wedged hook freeze a prompt for ten minutes, and Claude gives SessionEnd
// only 1.5 s unless a hook declares more.
var claudeAgent = agentSpec{
	name:       "claude",
	display:    "Claude Code",
	executable: "claude",
	relocated:  func(d Dirs) string { return d.Claude },
	homeDir:    ".claude",
	file:       "settings.json",
	hooks: []hookSpec{
		{Event: "SessionStart", Sub: "session-start", Timeout: 10},
		{Event: "UserPromptSubmit", Sub: "prompt", Timeout: 5},
		{Event: "PreToolUse", Matcher: "Bash", Sub: "pre-tool", Timeout: 5},
		{Event: "PostToolUse", Matcher: "Bash", Sub: "post-tool", Timeout: 5},
		{Event: "PostToolUseFailure", Matcher: "Bash", Sub: "post-tool", Timeout: 5},
		{Event: "PreCompact", Sub: "pre-compact", Timeout: 10},
		{Event: "Stop", Sub: "stop", Timeout: 10},
		{Event: "SessionEnd", Sub: "session-end", Timeout: 10},
	},
	statusLine:   true,
	installNotes: claudeInstallNotes,
	mcpFile:      ".claude.json",
	mcpAtHome:    true,
	editMCP:      editClaudeMCP,
	mcpNote:      "Start a new Claude Code session for the reflect MCP tools to load (/mcp lists them).",
}

// claudeInstallNotes: Claude Code reads its hooks when a session starts.
func claudeInstallNotes(_ string, changed bool) []string {
	if changed {
		return []string{"Start a new Claude Code session (or review them in /hooks) for the hooks to load."}
	}
	return nil
}

// statusCommand forces the 🧠 form: Claude Code runs the status line with
// stdout on a pipe, where `reflect statusline` would otherwise print its
// plain form, and it renders the emoji and ANSI styles itself.
func (m *mutator) statusCommand() string {
	return oneProc + shellQuote(m.binary) + " statusline --color=always"
}

type statusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// installStatusLine adds ours only where the user has none: a status line is
// a single slot, and replacing the user's would be destructive.
func (m *mutator) installStatusLine(root *jsonobj.Object) error {
	want := m.statusCommand()
	raw, ok := root.Get("statusLine")
	if ok && !jsonobj.IsNull(raw) {
		cmd, mine := ourStatusLine(raw)
		switch {
		case !mine:
			m.res.Notes = append(m.res.Notes, "Kept your own statusLine; to show reflect's status too, run `"+want+"` from your status line script.")
			return nil
		case cmd == want:
			return nil
		}
		m.res.Updated = append(m.res.Updated, Entry{Event: "statusLine", Command: want})
	} else {
		m.res.Added = append(m.res.Added, Entry{Event: "statusLine", Command: want})
	}
	return root.Set("statusLine", jsonobj.Marshal(statusLine{Type: "command", Command: want}))
}

func ourStatusLine(raw json.RawMessage) (string, bool) {
	var sl struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(raw, &sl) != nil {
		return "", false
	}
	cmd := strings.TrimSpace(sl.Command)
	// Older installs wrote "… statusline" without the color flag.
	for _, suffix := range []string{" statusline --color=always", " statusline"} {
		if rest, ok := strings.CutSuffix(cmd, suffix); ok && isReflectBinary(rest) {
			return sl.Command, true
		}
	}
	return sl.Command, false
}

// claudeServer is an mcpServers entry as `claude mcp add --scope user
// reflect -- BIN mcp` writes it.
type claudeServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

func editClaudeMCP(orig []byte, bin string, install bool, res *Result) ([]byte, error) {
	return editMCPServers(orig, install, res, bin, jsonobj.Marshal(claudeServer{Type: "stdio", Command: bin, Args: mcpArgs, Env: map[string]string{}}))
}

// editMCPServers adds want, reflect's server entry for the binary bin, to
// a JSON file's top-level mcpServers (or, to uninstall, removes ours).
// Claude Code and Gemini CLI keep their servers this way, each entry with
// a command and args.
func editMCPServers(orig []byte, install bool, res *Result, bin string, want json.RawMessage) ([]byte, error) {
	return editServerSection(orig, "mcpServers", install, res, bin, want, func(raw json.RawMessage) (string, bool) {
		var cur claudeServer
		if json.Unmarshal(raw, &cur) != nil || !isOurServer(cur.Command, cur.Args) {
			return "", false
		}
		return cur.Command, true
	})
}

// editServerSection adds want under section.reflect of a JSON file's top
// level, or, to uninstall, removes the entry there when ours recognises it
// as reflect's (and returns the binary it runs). An entry of that name that
// is not reflect's is refused on install and left alone on uninstall; a
// section reflect created goes when its entry does.
func editServerSection(orig []byte, section string, install bool, res *Result, bin string, want json.RawMessage, ours func(json.RawMessage) (string, bool)) ([]byte, error) {
	root, err := jsonobj.ParseDocument(orig)
	if err != nil {
		return nil, err
	}
	servers, err := root.Object(section)
	if err != nil {
		return nil, err
	}
	key := section + "." + MCPServerName
	raw, have := servers.Get(MCPServerName)
	curBin, isOurs := "", false
	if have {
		curBin, isOurs = ours(raw)
	}
	if have && !isOurs {
		if !install {
			return orig, nil // someone else's server of that name: not ours to remove
		}
		return nil, fmt.Errorf("%s is already defined and does not run `reflect mcp` (%s); remove or rename it", key, bytes.TrimSpace(raw))
	}
	if !install {
		if !have {
			return orig, nil
		}
		servers.Del(MCPServerName)
		res.Removed = append(res.Removed, mcpEntry(key, curBin))
		if servers.Len() == 0 {
			// Exact uninstall: a section reflect created goes with it.
			root.Del(section)
		} else if err := root.SetObject(section, servers); err != nil {
			return nil, err
		}
		return root.Render()
	}
	if have && jsonobj.Equal(raw, want) {
		return orig, nil
	}
	if err := servers.Set(MCPServerName, want); err != nil {
		return nil, err
	}
	if have {
		res.Updated = append(res.Updated, mcpEntry(key, bin))
	} else {
		res.Added = append(res.Added, mcpEntry(key, bin))
	}
	if err := root.SetObject(section, servers); err != nil {
		return nil, err
	}
	return root.Render()
}
