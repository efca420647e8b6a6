package agents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
	"github.com/reflectkb/reflect/internal/jsonobj"
)

// Codex has no PostToolUseFailure: a failed Bash call is a PostToolUse
// (0.169 leaves the exit code to the rollout, see hooks/codex_rollout.go).
// Codex 0.169 fires SessionEnd but clamps its timeout to 3 s, so that is
// what is written: a longer one would read as a promise Codex breaks.
// Timeouts are a backstop, as for Claude (see claudeAgent).
var codexHooks = []hookSpec{
	{Event: "SessionStart", Sub: "session-start", Timeout: 10, Status: "🧠 recalling…"},
	{Event: "UserPromptSubmit", Sub: "prompt", Timeout: 5, Status: "🧠 recalling…"},
	{Event: "PreToolUse", Matcher: "Bash", Sub: "pre-tool", Timeout: 5, Status: "🧠 checking past failures…"},
	{Event: "PostToolUse", Matcher: "Bash", Sub: "post-tool", Timeout: 5, Status: "🧠 noting the result…"},
	{Event: "PreCompact", Sub: "pre-compact", Timeout: 10, Status: "🧠 saving session…"},
	{Event: "Stop", Sub: "stop", Timeout: 10, Status: "🧠 saving session…"},
	{Event: "SessionEnd", Sub: "session-end", Timeout: 3, Status: "🧠 saving session…"},
}

// codexAgent is Codex CLI: hooks in ~/.codex/hooks.json ($CODEX_HOME),
// trusted per entry in config.toml beside it, where the MCP server is
// registered too.
var codexAgent = agentSpec{
	name:         "codex",
	display:      "Codex CLI",
	executable:   "codex",
	relocated:    func(d Dirs) string { return d.Codex },
	homeDir:      ".codex",
	file:         "hooks.json",
	hooks:        codexHooks,
	installNotes: codexInstallNotes,
	afterWrite:   addTrust,
	mcpFile:      "config.toml",
	editMCP:      editCodexMCP,
	mcpNote:      "Start a new Codex session for the reflect MCP tools to load (/mcp lists them).",
	hooksRun:     codexHooksRun,
}

// codexHooksRun says whether Codex trusts every hook of reflect's.
func codexHooksRun(path string) (bool, string) {
	trust, err := CodexTrust(path)
	if err != nil {
		return false, err.Error()
	}
	running := 0
	for _, t := range trust {
		if t.Runs() {
			running++
		}
	}
	if running < len(trust) {
		return false, fmt.Sprintf("Codex runs %d of reflect's %d hooks; %s", running, len(trust), CodexTrustFix)
	}
	return true, "every hook trusted"
}

// codexInstallNotes are given on every install, changed or not; which
// entries Codex trusts is added once the file is written (addTrust).
func codexInstallNotes(path string, _ bool) []string {
	cfg := filepath.Join(filepath.Dir(path), "config.toml")
	return []string{
		"Hooks are on by default in current Codex. If " + cfg + " has [features] hooks = false (or the deprecated codex_hooks = false), set it to true. Codex releases from before hooks were on by default need [features] hooks = true there (codex_hooks = true on the oldest).",
	}
}

// Codex runs a hook from hooks.json only when the user has trusted that
// exact definition. Trust lives in $CODEX_HOME/config.toml:
//
//	[hooks.state."<abs hooks.json>:<event_snake>:<group>:<handler>"]
//	trusted_hash = "sha256:…"
//	enabled = false   # optional: the user turned it off
//
// The hash covers a normalized form of the definition (event, matcher,
// command, timeout, async, statusMessage), so a reinstall that changes a
// command or timeout needs trusting again, and the key holds the position:
// moving reflect's group to another index loses its trust too. An
// untrusted hook is skipped silently, which is why doctor and install
// report it.

// Trust states of a Codex hook entry.
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
	// TrustModified: trusted for an older definition of the entry.
	TrustModified = "modified"
	TrustDisabled = "disabled"
)

// CodexTrustFix says how to make Codex run untrusted entries.
const CodexTrustFix = "start codex, open /hooks and trust the reflect entries; for automation, run codex with --dangerously-bypass-hook-trust"

// HookTrust is whether Codex will run one of reflect's entries.
type HookTrust struct {
	Key   string `json:"key"`
	Event string `json:"event"` // Codex's name, as /hooks shows it
	// Hook is reflect's name for the event (`reflect hook HOOK`).
	Hook    string `json:"hook"`
	Command string `json:"command"`
	Status  string `json:"status"`
	// CurrentHash is the trusted_hash Codex records when the user trusts
	// the entry as it is now.
	CurrentHash string `json:"current_hash"`
}

// Runs reports whether Codex runs the entry without a bypass flag.
func (h HookTrust) Runs() bool { return h.Status == TrustTrusted }

// Describe is the status in words for people.
func (h HookTrust) Describe() string {
	switch h.Status {
	case TrustTrusted:
		return "trusted: Codex runs it"
	case TrustModified:
		return "trusted for an older definition: Codex will not run it until it is trusted again"
	case TrustDisabled:
		return "turned off in Codex's /hooks: Codex will not run it"
	}
	return "not trusted: Codex will not run it"
}

// CodexTrust reports, for each reflect entry in the Codex hooks file at
// hooksPath, whether Codex will run it, from the [hooks.state] tables of
// config.toml beside it. A missing hooks file has no entries; a missing
// config.toml trusts nothing.
func CodexTrust(hooksPath string) ([]HookTrust, error) {
	abs, err := filepath.Abs(hooksPath)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	root, err := jsonobj.ParseDocument(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hooksPath, err)
	}
	states, err := codexHookStates(filepath.Join(filepath.Dir(abs), "config.toml"))
	if err != nil {
		return nil, err
	}
	raw, ok := root.Get("hooks")
	if !ok || jsonobj.IsNull(raw) {
		return nil, nil
	}
	events, err := root.Object("hooks")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hooksPath, err)
	}
	var out []HookTrust
	for _, event := range events.Keys() {
		groups, err := events.Array(event)
		if err != nil {
			continue // not an array: nothing of ours
		}
		for gi, g := range groups {
			obj, list, ok := parseGroup(g)
			if !ok {
				continue
			}
			for hi, h := range list {
				if !isOurHook(h, "codex") {
					continue
				}
				var entry hookEntry
				_ = json.Unmarshal(h, &entry)
				key := abs + ":" + snakeCase(event) + ":" + strconv.Itoa(gi) + ":" + strconv.Itoa(hi)
				t := HookTrust{Key: key, Event: event, Hook: reflectHookName(event), Command: entry.Command, Status: TrustUntrusted,
					CurrentHash: codexHookHash(event, groupMatcher(obj), h)}
				st, ok := states[key]
				switch {
				case ok && st.Enabled != nil && !*st.Enabled:
					t.Status = TrustDisabled
				case ok && st.TrustedHash == t.CurrentHash:
					t.Status = TrustTrusted
				case ok && st.TrustedHash != "":
					t.Status = TrustModified
				}
				out = append(out, t)
			}
		}
	}
	return out, nil
}

type codexHookState struct {
	TrustedHash string `toml:"trusted_hash"`
	Enabled     *bool  `toml:"enabled"`
}

// codexHookStates reads [hooks.state] from Codex's config.toml.
func codexHookStates(path string) (map[string]codexHookState, error) {
	var cfg struct {
		Hooks struct {
			State map[string]codexHookState `toml:"state"`
		} `toml:"hooks"`
	}
	_, err := toml.DecodeFile(path, &cfg)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read Codex trust from %s: %w", path, err)
	}
	return cfg.Hooks.State, nil
}

// codexHookHash is Codex's trust hash of one command handler: SHA-256 of
// the compact JSON, keys sorted, of {event_name, matcher, hooks: [handler]}
// where the handler has its timeout filled in (600 by default; SessionEnd
// 1, clamped to 1–3), async always present, and unset optional fields
// left out. Codex ignores the matcher of UserPromptSubmit and Stop.
func codexHookHash(event, matcher string, raw json.RawMessage) string {
	var h struct {
		Command       string  `json:"command"`
		Timeout       *uint64 `json:"timeout"`
		Async         bool    `json:"async"`
		StatusMessage *string `json:"statusMessage"`
	}
	_ = json.Unmarshal(raw, &h)
	timeout := uint64(600)
	if event == "SessionEnd" {
		timeout = 1
	}
	if h.Timeout != nil {
		timeout = *h.Timeout
	}
	timeout = max(timeout, 1)
	if event == "SessionEnd" {
		timeout = min(timeout, 3)
	}
	handler := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": h.Async}
	if h.StatusMessage != nil {
		handler["statusMessage"] = *h.StatusMessage
	}
	identity := map[string]any{"event_name": snakeCase(event), "hooks": []any{handler}}
	if event != "UserPromptSubmit" && event != "Stop" && matcher != "" {
		identity["matcher"] = matcher
	}
	// encoding/json sorts map keys, as Codex's canonical form does; HTML
	// escaping is off because serde_json does not escape <, > or &.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(identity)
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// reflectHookName maps a Codex event name back to reflect's hook name;
// an event reflect does not handle keeps its own name.
func reflectHookName(event string) string {
	for _, h := range codexHooks {
		if h.Event == event {
			return h.Sub
		}
	}
	return event
}

// snakeCase turns Codex's event names into its state-key labels:
// UserPromptSubmit → user_prompt_submit.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// addTrust reads, for Codex, whether Codex will run each reflect entry of
// the file at path, and notes the ones it will not: Codex skips untrusted
// hooks without a word, so this is the only place the user learns of it.
func addTrust(res *Result, path string) {
	trust, err := CodexTrust(path)
	if err != nil {
		res.Notes = append(res.Notes, "Could not read Codex's hook trust: "+err.Error())
		return
	}
	res.Trust = trust
	if note := trustNote(trust); note != "" {
		res.Notes = append([]string{note}, res.Notes...)
	}
}

// trustNote says which entries Codex will not run and how to fix it; ""
// when it runs them all.
func trustNote(trust []HookTrust) string {
	var untrusted, modified, disabled []string
	for _, t := range trust {
		switch t.Status {
		case TrustUntrusted:
			untrusted = append(untrusted, t.Event)
		case TrustModified:
			modified = append(modified, t.Event)
		case TrustDisabled:
			disabled = append(disabled, t.Event)
		}
	}
	n := len(untrusted) + len(modified) + len(disabled)
	if n == 0 {
		return ""
	}
	var parts []string
	if len(untrusted) > 0 {
		parts = append(parts, "not trusted: "+strings.Join(untrusted, ", "))
	}
	if len(modified) > 0 {
		parts = append(parts, "trusted for an older definition: "+strings.Join(modified, ", "))
	}
	if len(disabled) > 0 {
		parts = append(parts, "turned off: "+strings.Join(disabled, ", "))
	}
	return fmt.Sprintf("Codex will not run %d of reflect's %d hooks (%s). To fix it, %s.",
		n, len(trust), strings.Join(parts, "; "), CodexTrustFix)
}

// codexMCPHeader is the table reflect writes; the file is edited as text so
// that the user's comments and layout survive, and parsed before and after
// to make sure the edit means what it should.
var codexMCPHeader = "[mcp_servers." + MCPServerName + "]"

type codexConfig struct {
	MCPServers map[string]struct {
		Command string   `toml:"command"`
		Args    []string `toml:"args"`
		EnvVars []string `toml:"env_vars"`
	} `toml:"mcp_servers"`
}

func parseCodexConfig(data []byte) (codexConfig, error) {
	var c codexConfig
	if _, err := toml.Decode(string(data), &c); err != nil {
		return c, fmt.Errorf("invalid TOML: %v", err)
	}
	return c, nil
}

// codexBlock is reflect's server table. Codex starts MCP servers with a
// minimal environment (HOME, PATH and a few more), so the settings a user
// exports for reflect (REFLECT_LEARNINGS_DIR above all: without it the
// server would read and write another knowledge base than the hooks) are
// passed through by name with env_vars.
func codexBlock(bin string) string {
	quoted := make([]string, len(MCPEnvVars))
	for i, v := range MCPEnvVars {
		quoted[i] = strconv.Quote(v)
	}
	return codexMCPHeader + "\ncommand = " + strconv.Quote(bin) + "\nargs = [\"mcp\"]\nenv_vars = [" + strings.Join(quoted, ", ") + "]\n"
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
	if install && have && cur.Command == bin && slices.Equal(cur.EnvVars, MCPEnvVars) {
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
		// An older binary path, or a table written before env_vars:
		// rewrite the table in place.
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
