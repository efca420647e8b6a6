package agents

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/jsonobj"
)

// mutator applies one agent's entries to a parsed settings document and
// records what it changed in res.
type mutator struct {
	agent  agentSpec
	binary string
	res    *Result
}

// oneProc prefixes every command install writes into a hooks file; the
// agents run hook and status-line commands through a shell, which applies
// the assignment. A
// hook lives a few milliseconds and works on one goroutine at a time: with
// a single P the Go runtime has no idle P to start threads for, so a hook
// pays for no thread it would not use. Only the environment can set it
// before the runtime starts its threads; runtime.GOMAXPROCS(1) in main
// comes too late to help.
const oneProc = "GOMAXPROCS=1 "

// timeout is h's timeout in the agent's unit.
func (m *mutator) timeout(h hookSpec) int {
	if m.agent.millis {
		return h.Timeout * 1000
	}
	return h.Timeout
}

// hookName is the name a hook is listed under in agents that name hooks.
func (m *mutator) hookName(h hookSpec) string {
	if m.agent.named {
		return "reflect-" + h.Sub
	}
	return ""
}

func (m *mutator) command(sub string) string {
	return oneProc + shellQuote(m.binary) + " hook " + sub + " --agent " + m.agent.name
}

// hookEntry is the handler object every hooks file holds. Field order is the order
// written to disk.
type hookEntry struct {
	Name          string `json:"name,omitempty"` // Gemini CLI only
	Type          string `json:"type"`
	Command       string `json:"command"`
	Timeout       int    `json:"timeout,omitempty"`
	StatusMessage string `json:"statusMessage,omitempty"`
}

type matcherGroup struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

func (m *mutator) install(root *jsonobj.Object) error {
	hooks, err := root.Object("hooks")
	if err != nil {
		return err
	}
	changed := false
	for _, h := range m.agent.hooks {
		want := hookEntry{Name: m.hookName(h), Type: "command", Command: m.command(h.Sub), Timeout: m.timeout(h), StatusMessage: h.Status}
		groups, err := hooks.Array(h.Event)
		if err != nil {
			return fmt.Errorf("hooks.%s must be a JSON array", h.Event)
		}
		groups, outcome, err := m.ensure(groups, h, want)
		if err != nil {
			return err
		}
		e := Entry{Event: h.Event, Matcher: h.Matcher, Command: want.Command, Timeout: h.Timeout, StatusMessage: want.StatusMessage}
		switch outcome {
		case added:
			m.res.Added = append(m.res.Added, e)
		case updated:
			m.res.Updated = append(m.res.Updated, e)
		default:
			continue
		}
		changed = true
		if err := hooks.Set(h.Event, jsonobj.MarshalArray(groups)); err != nil {
			return err
		}
	}
	retired, err := m.dropRetired(hooks)
	if err != nil {
		return err
	}
	if changed || retired {
		if err := root.SetObject("hooks", hooks); err != nil {
			return err
		}
	}
	if m.agent.statusLine {
		return m.installStatusLine(root)
	}
	return nil
}

// dropRetired removes reflect's hooks under events this version no longer
// registers (an upgrade from a version that did), keeping the user's.
// It reports whether it removed any.
func (m *mutator) dropRetired(hooks *jsonobj.Object) (bool, error) {
	current := map[string]bool{}
	for _, h := range m.agent.hooks {
		current[h.Event] = true
	}
	return m.dropOurs(hooks, func(event string) bool { return !current[event] })
}

// dropOurs removes reflect's hooks under every event for which drop says
// so, recording them in the result. An event left with no group goes
// too. It reports whether it removed any.
func (m *mutator) dropOurs(hooks *jsonobj.Object, drop func(event string) bool) (bool, error) {
	changed := false
	for _, event := range hooks.Keys() {
		if !drop(event) {
			continue
		}
		groups, err := hooks.Array(event)
		if err != nil {
			// Not an array, so it holds nothing install wrote: leave it
			// for the agent to complain about.
			continue
		}
		kept, removed, err := removeOurs(groups, event, m.agent.name)
		if err != nil {
			return false, err
		}
		if len(removed) == 0 {
			continue
		}
		changed = true
		m.res.Removed = append(m.res.Removed, removed...)
		if len(kept) == 0 {
			hooks.Del(event)
		} else if err := hooks.Set(event, jsonobj.MarshalArray(kept)); err != nil {
			return false, err
		}
	}
	return changed, nil
}

type outcome int

const (
	unchanged outcome = iota
	added
	updated
)

// ensure makes groups (one event's matcher groups) contain exactly one
// reflect hook equal to want. A lone existing reflect hook in a group with the
// right matcher is rewritten in place, so an upgrade (new binary path, new
// timeout) does not move it; anything else of ours is dropped and a fresh
// group appended after the user's.
func (m *mutator) ensure(groups []json.RawMessage, h hookSpec, want hookEntry) ([]json.RawMessage, outcome, error) {
	wantRaw := jsonobj.Marshal(want)
	type loc struct{ g, h int }
	var found []loc
	var parsed []*jsonobj.Object
	var lists [][]json.RawMessage
	for gi, g := range groups {
		obj, list, ok := parseGroup(g)
		parsed = append(parsed, obj)
		lists = append(lists, list)
		if !ok {
			continue
		}
		for hi, e := range list {
			if isOurHook(e, m.agent.name) {
				found = append(found, loc{gi, hi})
			}
		}
	}
	if len(found) == 1 {
		f := found[0]
		if groupMatcher(parsed[f.g]) == h.Matcher {
			if jsonobj.Equal(lists[f.g][f.h], wantRaw) {
				return groups, unchanged, nil
			}
			lists[f.g][f.h] = wantRaw
			if err := parsed[f.g].Set("hooks", jsonobj.MarshalArray(lists[f.g])); err != nil {
				return nil, unchanged, err
			}
			out := append([]json.RawMessage(nil), groups...)
			raw, err := parsed[f.g].MarshalJSON()
			if err != nil {
				return nil, unchanged, err
			}
			out[f.g] = raw
			return out, updated, nil
		}
	}
	kept, removed, err := removeOurs(groups, h.Event, m.agent.name)
	if err != nil {
		return nil, unchanged, err
	}
	kept = append(kept, jsonobj.Marshal(matcherGroup{Matcher: h.Matcher, Hooks: []hookEntry{want}}))
	if len(removed) > 0 {
		return kept, updated, nil
	}
	return kept, added, nil
}

func (m *mutator) uninstall(root *jsonobj.Object) error {
	raw, ok := root.Get("hooks")
	if ok && !jsonobj.IsNull(raw) {
		hooks, err := root.Object("hooks")
		if err != nil {
			return err
		}
		// Every event, not just the ones install writes: an entry of ours
		// under another event can only be a leftover.
		changed, err := m.dropOurs(hooks, func(string) bool { return true })
		if err != nil {
			return err
		}
		if changed {
			// Install creates "hooks" when it is missing; dropping it once
			// empty gives back the file the user had.
			if hooks.Len() == 0 {
				root.Del("hooks")
			} else if err := root.SetObject("hooks", hooks); err != nil {
				return err
			}
		}
	}
	if m.agent.statusLine {
		if raw, ok := root.Get("statusLine"); ok {
			if cmd, mine := ourStatusLine(raw); mine {
				root.Del("statusLine")
				m.res.Removed = append(m.res.Removed, Entry{Event: "statusLine", Command: cmd})
			}
		}
	}
	return nil
}

// removeOurs drops agent's reflect hooks from an event's matcher groups. A
// group that only held ours disappears with it; a group the user left empty
// stays, since it is not ours to clean up.
func removeOurs(groups []json.RawMessage, event, agent string) ([]json.RawMessage, []Entry, error) {
	var kept []json.RawMessage
	var removed []Entry
	for _, g := range groups {
		obj, list, ok := parseGroup(g)
		if !ok {
			kept = append(kept, g)
			continue
		}
		var rest []json.RawMessage
		n := 0
		for _, e := range list {
			if isOurHook(e, agent) {
				removed = append(removed, entryOf(event, groupMatcher(obj), e, specs[agent].millis))
				n++
				continue
			}
			rest = append(rest, e)
		}
		switch {
		case n == 0:
			kept = append(kept, g)
		case len(rest) == 0:
			// the whole group was ours
		default:
			if err := obj.Set("hooks", jsonobj.MarshalArray(rest)); err != nil {
				return nil, nil, err
			}
			raw, err := obj.MarshalJSON()
			if err != nil {
				return nil, nil, err
			}
			kept = append(kept, raw)
		}
	}
	return kept, removed, nil
}

// parseGroup reads a matcher group. ok is false for a group whose shape we
// do not understand: it is left exactly as it is, and the agent will report
// it to the user.
func parseGroup(raw json.RawMessage) (obj *jsonobj.Object, list []json.RawMessage, ok bool) {
	obj, err := jsonobj.Parse(raw)
	if err != nil {
		return nil, nil, false
	}
	h, present := obj.Get("hooks")
	if !present {
		return obj, nil, true
	}
	if err := json.Unmarshal(h, &list); err != nil {
		return nil, nil, false
	}
	return obj, list, true
}

func groupMatcher(g *jsonobj.Object) string {
	var s string
	if raw, ok := g.Get("matcher"); ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// entryOf reports a hook entry of the file; millis says its timeout is in
// milliseconds (Gemini), which Entry gives in seconds like every other.
func entryOf(event, matcher string, raw json.RawMessage, millis bool) Entry {
	var h hookEntry
	_ = json.Unmarshal(raw, &h)
	if millis {
		h.Timeout /= 1000
	}
	return Entry{Event: event, Matcher: matcher, Command: h.Command, Timeout: h.Timeout, StatusMessage: h.StatusMessage}
}

func isOurHook(raw json.RawMessage, agent string) bool {
	var h struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	return isOurCommand(h.Command, agent)
}

// isOurCommand recognises `<…/reflect> hook EVENT --agent AGENT`. Matching on
// the binary's base name rather than its full path lets install replace, and
// uninstall remove, entries written by a reflect that has since moved.
func isOurCommand(cmd, agent string) bool {
	// The last " hook ": a binary path may itself contain the word.
	i := strings.LastIndex(cmd, " hook ")
	if i < 0 || !isReflectBinary(cmd[:i]) {
		return false
	}
	args := strings.Fields(cmd[i:])
	for j, a := range args {
		if a == "--agent="+agent || (a == "--agent" && j+1 < len(args) && args[j+1] == agent) {
			return true
		}
	}
	return false
}

func isReflectBinary(prefix string) bool {
	f := strings.Fields(prefix)
	if len(f) == 0 {
		return false
	}
	return isReflectName(filepath.Base(strings.Trim(f[len(f)-1], `'"`)))
}

// isReflectName reports whether a binary's base name is reflect's: reflect,
// or reflect.exe on Windows.
func isReflectName(base string) bool { return base == "reflect" || base == "reflect.exe" }

// shellQuote quotes a path for the shell the agents run commands with, only
// when it needs it, so the common case stays readable in settings.json.
func shellQuote(s string) string {
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%,=", r)) {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
