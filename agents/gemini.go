package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/reflectkb/reflect/internal/jsonobj"
)

// geminiAgent is Gemini CLI: hooks and MCP servers both in
// ~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini when that is set).
//
// Gemini's events map onto reflect's as BeforeAgent (after the user submits
// a prompt) → prompt, AfterTool → post-tool, AfterAgent (the end of a
// turn, Claude's Stop) → stop. SessionStart and BeforeAgent accept
// hookSpecificOutput.additionalContext, which Gemini adds to the prompt.
// Gemini reports a shell command that exits non-zero as a successful
// AfterTool whose result text ends in "Exit Code: N" (internal/geminishell).
//
// BeforeTool is not registered: Gemini gives a BeforeTool hook no channel to
// the model (it may block or rewrite the tool input, nothing else), so the
// pre-tool warning would cost a process per shell command and reach no
// one. AfterTool's additionalContext is appended to the tool result, so
// reflect's post-tool hook gives the warning there, after a command that
// failed.
//
// PreCompress is not registered: Gemini 0.61 fires it before every
// compression check, twice in a one-prompt session that compressed
// nothing, and its chat file keeps every message through a compression
// anyway, so AfterAgent's capture at the end of each turn loses nothing.
//
// Timeouts are written in milliseconds, Gemini's unit (its default is a
// minute); they are a backstop as for Claude (see claudeAgent). Each hook
// is named reflect-SUB, the name `/hooks disable` and the hooks panel use.
var geminiAgent = agentSpec{
	name:         "gemini",
	display:      "Gemini CLI",
	executable:   "gemini",
	relocated:    under(func(d Dirs) string { return d.GeminiHome }, ".gemini"),
	homeDir:      ".gemini",
	file:         "settings.json",
	millis:       true,
	named:        true,
	hooks:        geminiHooks,
	installNotes: geminiInstallNotes,
	mcpFile:      "settings.json",
	editMCP:      editGeminiMCP,
	mcpNote:      "Start a new Gemini CLI session for the reflect MCP tools to load (/mcp lists them).",
	hooksRun:     geminiHooksRun,
}

// geminiHooks are reflect's hooks under Gemini CLI's event names.
var geminiHooks = []hookSpec{
	{Event: "SessionStart", Sub: "session-start", Timeout: 10},
	{Event: "BeforeAgent", Sub: "prompt", Timeout: 5},
	{Event: "AfterTool", Matcher: "run_shell_command", Sub: "post-tool", Timeout: 5},
	{Event: "AfterAgent", Sub: "stop", Timeout: 10},
	{Event: "SessionEnd", Sub: "session-end", Timeout: 10},
}

// geminiHooksRun says whether Gemini CLI runs every hook of reflect's.
func geminiHooksRun(path string) (bool, string) {
	hooks, err := GeminiHooks(path)
	if err != nil {
		return false, err.Error()
	}
	running := 0
	for _, h := range hooks {
		if h.Runs {
			running++
		}
	}
	if running < len(hooks) {
		return false, fmt.Sprintf("Gemini CLI runs %d of reflect's %d hooks; %s", running, len(hooks), GeminiHookFix)
	}
	return true, "Gemini CLI runs them"
}

// geminiInstallNotes: Gemini CLI reads settings.json when it starts, and
// skips hooks the user disabled by name.
func geminiInstallNotes(_ string, changed bool) []string {
	if changed {
		return []string{"Start a new Gemini CLI session for the hooks to load (/hooks panel lists them)."}
	}
	return nil
}

// geminiServer is an mcpServers entry of Gemini's settings.json: a stdio
// server is a command and its args.
type geminiServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func editGeminiMCP(orig []byte, bin string, install bool, res *Result) ([]byte, error) {
	return editMCPServers(orig, install, res, bin, jsonobj.Marshal(geminiServer{Command: bin, Args: mcpArgs}))
}

// GeminiHook says whether Gemini CLI will run one of reflect's hooks as
// its settings file stands.
type GeminiHook struct {
	Hook  string `json:"hook"`  // reflect's event: session-start, prompt, …
	Event string `json:"event"` // Gemini's event: SessionStart, BeforeAgent, …
	Runs  bool   `json:"runs"`
	// Why says why it does not run; "" when it runs.
	Why string `json:"why,omitempty"`
}

// GeminiHookFix is what to do about a hook Gemini will not run.
const GeminiHookFix = "in Gemini CLI run /hooks enable-all (or remove reflect's names from hooksConfig.disabled and set hooksConfig.enabled to true in settings.json)"

// geminiSettings is the part of Gemini's settings.json that decides
// whether a hook runs: hooksConfig.enabled switches every hook off, and
// hooksConfig.disabled lists hooks by name (or, for unnamed ones, by
// command). Releases before hooksConfig kept enabled and disabled inside
// "hooks"; those are read too.
type geminiSettings struct {
	HooksConfig geminiHooksConfig          `json:"hooksConfig"`
	Hooks       map[string]json.RawMessage `json:"hooks"`
}

type geminiHooksConfig struct {
	Enabled  *bool    `json:"enabled"`
	Disabled []string `json:"disabled"`
}

// GeminiHooks reads settingsPath and says, for each of reflect's hooks
// installed there, whether Gemini CLI will run it. A hook that is not
// installed is not listed.
func GeminiHooks(settingsPath string) ([]GeminiHook, error) {
	data, err := os.ReadFile(settingsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s geminiSettings
	// ParseDocument names the line and column of a syntax error, and takes
	// an empty file for the empty object it is to Gemini.
	root, err := jsonobj.ParseDocument(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", settingsPath, err)
	}
	plain, err := root.Render()
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(plain, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", settingsPath, err)
	}
	cfg := s.HooksConfig
	var legacy geminiHooksConfig
	if raw, ok := s.Hooks["enabled"]; ok {
		_ = json.Unmarshal(raw, &legacy.Enabled)
	}
	if raw, ok := s.Hooks["disabled"]; ok {
		_ = json.Unmarshal(raw, &legacy.Disabled)
	}
	off := (cfg.Enabled != nil && !*cfg.Enabled) || (legacy.Enabled != nil && !*legacy.Enabled)
	disabled := map[string]bool{}
	for _, n := range append(cfg.Disabled, legacy.Disabled...) {
		disabled[n] = true
	}
	var out []GeminiHook
	for _, h := range geminiHooks {
		var groups []json.RawMessage
		if json.Unmarshal(s.Hooks[h.Event], &groups) != nil {
			continue
		}
		for _, g := range groups {
			_, list, ok := parseGroup(g)
			if !ok {
				continue
			}
			for _, raw := range list {
				if !isOurHook(raw, "gemini") {
					continue
				}
				var e hookEntry
				_ = json.Unmarshal(raw, &e)
				name := e.Name
				if name == "" {
					name = e.Command // Gemini's key for an unnamed hook
				}
				gh := GeminiHook{Hook: h.Sub, Event: h.Event, Runs: true}
				switch {
				case off:
					gh.Runs, gh.Why = false, "hooksConfig.enabled is false: Gemini runs no hooks"
				case disabled[name]:
					gh.Runs, gh.Why = false, "disabled in hooksConfig.disabled ("+name+")"
				}
				out = append(out, gh)
			}
		}
	}
	return out, nil
}
