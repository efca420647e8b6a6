package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/reflectkb/reflect/internal/jsonobj"
)

// GitHub Copilot CLI reads user-level hooks from the "hooks" object of
// $COPILOT_HOME/settings.json (default ~/.copilot), one flat list of
// handlers per event: {"type": "command", "bash": CMD, "timeoutSec": N}.
// reflect registers them under the PascalCase event names, for which
// Copilot sends Claude Code's snake_case payload fields (session_id, cwd,
// prompt, tool_name, tool_input, transcript_path) — checked against
// @github/copilot 1.0.102. Copilot reads additionalContext from the top
// level of a SessionStart or UserPromptSubmit answer and appends it to
// the prompt. Its SessionEnd carries no transcript_path, so the session is
// queued on Stop (after every turn; the queue skips what it already has).
var copilotHooks = []hookSpec{
	{Event: "SessionStart", Sub: "session-start", Timeout: 10},
	{Event: "UserPromptSubmit", Sub: "prompt", Timeout: 5},
	{Event: "PreToolUse", Sub: "pre-tool", Timeout: 5},
	{Event: "PostToolUse", Sub: "post-tool", Timeout: 5},
	{Event: "Stop", Sub: "stop", Timeout: 10},
}

var copilotAgent = agentSpec{
	name:       "copilot",
	display:    "GitHub Copilot CLI",
	executable: "copilot",
	relocated:  func(d Dirs) string { return d.Copilot },
	homeDir:    ".copilot",
	file:       "settings.json",
	hooks:      copilotHooks,
	run:        runCopilot,
	mcpFile:    "mcp-config.json",
	editMCP:    editClaudeMCP,
	mcpNote:    "Start a new Copilot CLI session for the reflect MCP tools to load (/mcp lists them).",
	hooksRun: func(path string) (bool, string) {
		if copilotHooksDisabled(path) {
			return false, `settings.json has "disableAllHooks": true`
		}
		return true, "Copilot CLI runs them"
	},
}

// copilotEntry is one handler in Copilot's hooks lists. Field order is the
// order written to disk.
type copilotEntry struct {
	Type       string `json:"type"`
	Bash       string `json:"bash"`
	TimeoutSec int    `json:"timeoutSec,omitempty"`
}

func runCopilot(a agentSpec, opts InstallOptions, path string, install bool) (Result, error) {
	j := job{agent: a, opts: opts, install: install, path: path, op: "uninstall"}
	if install {
		j.op = "install"
		j.notes = func(res *Result) {
			if res.Changed {
				res.Notes = append(res.Notes, "Start a new Copilot CLI session for the hooks to load. They do not run while settings.json has \"disableAllHooks\": true.")
			}
		}
	}
	j.edit = editJSON(a, opts, install, (*mutator).installCopilot, (*mutator).uninstallCopilot)
	j.strip = stripWith(editJSON(a, opts, false, (*mutator).installCopilot, (*mutator).uninstallCopilot))
	return j.apply()
}

func isOurCopilotEntry(raw json.RawMessage) (copilotEntry, bool) {
	var e copilotEntry
	if json.Unmarshal(raw, &e) != nil {
		return e, false
	}
	return e, isOurCommand(e.Bash, "copilot")
}

func (m *mutator) installCopilot(root *jsonobj.Object) error {
	hooks, err := root.Object("hooks")
	if err != nil {
		return err
	}
	changed := false
	for _, h := range m.agent.hooks {
		want := copilotEntry{Type: "command", Bash: m.command(h.Sub), TimeoutSec: h.Timeout}
		wantRaw := jsonobj.Marshal(want)
		list, err := hooks.Array(h.Event)
		if err != nil {
			return fmt.Errorf("hooks.%s must be a JSON array", h.Event)
		}
		var kept []json.RawMessage
		mine, same := 0, false
		for _, e := range list {
			if _, ok := isOurCopilotEntry(e); ok {
				mine++
				same = same || jsonobj.Equal(e, wantRaw)
				if mine == 1 {
					// Rewritten in place, so an upgrade does not move it.
					kept = append(kept, wantRaw)
				}
				continue
			}
			kept = append(kept, e)
		}
		entry := Entry{Event: h.Event, Command: want.Bash, Timeout: want.TimeoutSec}
		switch {
		case mine == 1 && same:
			continue
		case mine == 0:
			kept = append(kept, wantRaw)
			m.res.Added = append(m.res.Added, entry)
		default:
			m.res.Updated = append(m.res.Updated, entry)
		}
		changed = true
		if err := hooks.Set(h.Event, jsonobj.MarshalArray(kept)); err != nil {
			return err
		}
	}
	if changed {
		return root.SetObject("hooks", hooks)
	}
	return nil
}

func (m *mutator) uninstallCopilot(root *jsonobj.Object) error {
	raw, ok := root.Get("hooks")
	if !ok || jsonobj.IsNull(raw) {
		return nil
	}
	hooks, err := root.Object("hooks")
	if err != nil {
		return err
	}
	changed := false
	for _, event := range hooks.Keys() {
		list, err := hooks.Array(event)
		if err != nil {
			continue // not a list: nothing install wrote
		}
		var kept []json.RawMessage
		for _, e := range list {
			if c, ok := isOurCopilotEntry(e); ok {
				m.res.Removed = append(m.res.Removed, Entry{Event: event, Command: c.Bash, Timeout: c.TimeoutSec})
				continue
			}
			kept = append(kept, e)
		}
		if len(kept) == len(list) {
			continue
		}
		changed = true
		if len(kept) == 0 {
			hooks.Del(event)
		} else if err := hooks.Set(event, jsonobj.MarshalArray(kept)); err != nil {
			return err
		}
	}
	if !changed {
		return nil
	}
	if hooks.Len() == 0 {
		root.Del("hooks")
		return nil
	}
	return root.SetObject("hooks", hooks)
}

// copilotHooksDisabled reports whether settings.json at path turns every
// hook off ("disableAllHooks": true).
func copilotHooksDisabled(path string) bool {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err != nil {
		return false
	}
	var s struct {
		DisableAllHooks bool `json:"disableAllHooks"`
	}
	_ = json.Unmarshal(data, &s)
	return s.DisableAllHooks
}
