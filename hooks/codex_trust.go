package hooks

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
	"strconv"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
)

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
	root, err := parseSettings(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hooksPath, err)
	}
	states, err := codexHookStates(filepath.Join(filepath.Dir(abs), "config.toml"))
	if err != nil {
		return nil, err
	}
	raw, ok := root.get("hooks")
	if !ok || isNull(raw) {
		return nil, nil
	}
	events, err := root.object("hooks")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hooksPath, err)
	}
	var out []HookTrust
	for _, event := range events.keys {
		groups, err := events.array(event)
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

// reflectHookName maps an agent event name back to reflect's hook name;
// an event reflect does not handle keeps its own name.
func reflectHookName(event string) string {
	for _, e := range Events {
		if agentEventName(e) == event {
			return e
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
