package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// BackupSuffix is appended to a settings file's path to name the copy of the
// original that the installers keep. It is written once, before the first
// change, and never overwritten: it is the user's way back to the file as it
// was before reflect ever touched it.
const BackupSuffix = ".reflect-backup"

// InstallOptions says which agent to (un)install for and where.
type InstallOptions struct {
	// Agent is "claude" or "codex".
	Agent string
	// SettingsPath overrides the default file (see DefaultSettingsPath).
	SettingsPath string
	// Binary is the absolute path of the running reflect executable. Hooks
	// run it by absolute path so they work even when the agent is started
	// with a PATH that does not contain it.
	Binary string
	// DryRun computes the result, the new content and a diff but writes
	// nothing, not even the backup.
	DryRun bool
	// Out receives a human-readable report (what changed, the diff of a dry
	// run, notes). Nil means silent: callers printing Result as JSON pass nil.
	Out io.Writer
}

// Entry is one hook (or the status line) that reflect added, updated or
// removed.
type Entry struct {
	Event         string `json:"event"` // agent event name, or "statusLine"
	Matcher       string `json:"matcher,omitempty"`
	Command       string `json:"command"`
	Timeout       int    `json:"timeout,omitempty"` // seconds
	StatusMessage string `json:"status_message,omitempty"`
}

// Result says what Install or Uninstall did (or, for a dry run, would do).
// It is meant to be printed as JSON by `--json`.
type Result struct {
	Agent   string `json:"agent"`
	Path    string `json:"path"`
	DryRun  bool   `json:"dry_run"`
	Changed bool   `json:"changed"`
	// Created is true when the settings file did not exist before.
	Created bool    `json:"created,omitempty"`
	Added   []Entry `json:"added,omitempty"`
	// Updated lists reflect entries that existed with another binary path,
	// timeout or status message and were rewritten.
	Updated []Entry `json:"updated,omitempty"`
	Removed []Entry `json:"removed,omitempty"`
	// BackupPath is the copy of the original file, when one exists;
	// BackupWritten is true when this run wrote it.
	BackupPath    string `json:"backup_path,omitempty"`
	BackupWritten bool   `json:"backup_written,omitempty"`
	// NewContent and Diff are filled for dry runs that would change the file.
	NewContent string `json:"new_content,omitempty"`
	Diff       string `json:"diff,omitempty"`
	// Notes are things the user must do next (trust the hooks in Codex, …).
	Notes []string `json:"notes,omitempty"`
	// Trust says, for Codex, whether Codex will run each reflect entry as
	// the file now stands (not filled for dry runs).
	Trust []HookTrust `json:"trust,omitempty"`
}

// hookSpec is one hook reflect registers.
type hookSpec struct {
	Event   string // the agent's event name
	Matcher string // "" = no matcher key (every occurrence)
	Sub     string // `reflect hook SUB`
	Timeout int    // seconds
	Status  string // Codex statusMessage; "" = none
}

// agentSpec describes one agent's settings file.
type agentSpec struct {
	name       string
	envDir     string // env var that relocates the agent's config directory
	homeDir    string // default directory under $HOME
	file       string
	hooks      []hookSpec
	statusLine bool // the file also takes a top-level statusLine
}

// Timeouts are a backstop, not a budget: every handler stops itself after its
// own internal deadline (1.5 s by default, see ARCHITECTURE §4). They are explicit
// because the agents' defaults are wrong for us both ways: 600 s would let a
// wedged hook freeze a prompt for ten minutes, and Claude gives SessionEnd
// only 1.5 s unless a hook declares more.
var agents = map[string]agentSpec{
	"claude": {
		name:    "claude",
		envDir:  "CLAUDE_CONFIG_DIR",
		homeDir: ".claude",
		file:    "settings.json",
		hooks: []hookSpec{
			{Event: "SessionStart", Sub: "session-start", Timeout: 10},
			{Event: "UserPromptSubmit", Sub: "prompt", Timeout: 5},
			{Event: "PostToolUse", Matcher: "Bash", Sub: "post-tool", Timeout: 5},
			{Event: "PostToolUseFailure", Matcher: "Bash", Sub: "post-tool", Timeout: 5},
			{Event: "PreCompact", Sub: "pre-compact", Timeout: 10},
			{Event: "Stop", Sub: "stop", Timeout: 10},
			{Event: "SessionEnd", Sub: "session-end", Timeout: 10},
		},
		statusLine: true,
	},
	// Codex has no PostToolUseFailure: a failed Bash call is a PostToolUse
	// (0.169 leaves the exit code to the rollout, see codex_rollout.go).
	// Codex 0.169 fires SessionEnd but clamps its timeout to 3 s, so that is
	// what is written: a longer one would read as a promise Codex breaks.
	"codex": {
		name:    "codex",
		envDir:  "CODEX_HOME",
		homeDir: ".codex",
		file:    "hooks.json",
		hooks: []hookSpec{
			{Event: "SessionStart", Sub: "session-start", Timeout: 10, Status: "🧠 recalling…"},
			{Event: "UserPromptSubmit", Sub: "prompt", Timeout: 5, Status: "🧠 recalling…"},
			{Event: "PostToolUse", Matcher: "Bash", Sub: "post-tool", Timeout: 5, Status: "🧠 noting the result…"},
			{Event: "PreCompact", Sub: "pre-compact", Timeout: 10, Status: "🧠 saving session…"},
			{Event: "Stop", Sub: "stop", Timeout: 10, Status: "🧠 saving session…"},
			{Event: "SessionEnd", Sub: "session-end", Timeout: 3, Status: "🧠 saving session…"},
		},
	},
}

func lookupAgent(name string) (agentSpec, error) {
	a, ok := agents[name]
	if !ok {
		return agentSpec{}, fmt.Errorf("unknown agent %q: choose claude or codex", name)
	}
	return a, nil
}

// DefaultSettingsPath returns the file the installer edits for agent:
// $HOME/.claude/settings.json for claude and $HOME/.codex/hooks.json for
// codex. CLAUDE_CONFIG_DIR and CODEX_HOME, which move the agents' own
// configuration, move it too: hooks written anywhere else would never load.
func DefaultSettingsPath(agent string) (string, error) {
	a, err := lookupAgent(agent)
	if err != nil {
		return "", err
	}
	if dir := os.Getenv(a.envDir); dir != "" {
		return filepath.Join(dir, a.file), nil
	}
	home := os.Getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil || home == "" {
			return "", fmt.Errorf("cannot find your home directory: set HOME or pass --settings PATH")
		}
	}
	return filepath.Join(home, a.homeDir, a.file), nil
}

// Install merges reflect's hooks into the agent's settings file. It keeps
// every other key and hook in place and in order, backs the original up once,
// and is idempotent: a second run reports Changed == false and writes nothing.
func Install(opts InstallOptions) (Result, error) {
	return run(opts, true)
}

// Uninstall removes exactly the entries Install adds (recognised by their
// command, so entries written by an older reflect binary go too) and leaves
// everything else, including the user's own hooks, untouched.
func Uninstall(opts InstallOptions) (Result, error) {
	return run(opts, false)
}

func run(opts InstallOptions, install bool) (Result, error) {
	a, err := lookupAgent(opts.Agent)
	if err != nil {
		return Result{}, err
	}
	op := "uninstall"
	if install {
		op = "install"
		if err := checkBinary(opts.Binary); err != nil {
			return Result{}, err
		}
	}
	path := opts.SettingsPath
	if path == "" {
		if path, err = DefaultSettingsPath(a.name); err != nil {
			return Result{}, err
		}
	}
	res := Result{Agent: a.name, Path: path, DryRun: opts.DryRun}
	backup := path + BackupSuffix
	if _, err := os.Lstat(backup); err == nil {
		res.BackupPath = backup
	}

	// Write through a symlink rather than over it: settings files are often
	// links into a dotfiles repository.
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

	root, err := parseSettings(orig)
	if err != nil {
		return res, refuse(path, op, a.name, err)
	}
	m := mutator{agent: a, binary: opts.Binary, res: &res}
	if install {
		err = m.install(root)
	} else {
		err = m.uninstall(root)
	}
	if err != nil {
		return res, refuse(path, op, a.name, err)
	}
	res.Changed = len(res.Added)+len(res.Updated)+len(res.Removed) > 0
	if install {
		res.Notes = append(res.Notes, installNotes(a, path, res.Changed)...)
	}
	if !res.Changed {
		res.Created = false
		if install && !opts.DryRun {
			res.addTrust(a, target)
		}
		writeReport(opts.Out, &res, op)
		return res, nil
	}

	out, err := render(root)
	if err != nil {
		return res, err
	}
	if opts.DryRun {
		res.NewContent = string(out)
		from := path
		if !exists {
			from = "/dev/null"
		}
		res.Diff = unifiedDiff(from, path, orig, out)
		writeReport(opts.Out, &res, op)
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
	if err := fsutil.WriteAtomic(target, out, perm); err != nil {
		return res, err
	}
	if install {
		res.addTrust(a, target)
	}
	writeReport(opts.Out, &res, op)
	return res, nil
}

// addTrust reads, for Codex, whether Codex will run each reflect entry of
// the file at path, and notes the ones it will not: Codex skips untrusted
// hooks without a word, so this is the only place the user learns of it.
func (res *Result) addTrust(a agentSpec, path string) {
	if a.name != "codex" {
		return
	}
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

// checkBinary insists on an absolute path named reflect: the agent runs the
// command from arbitrary directories, and uninstall recognises our entries by
// the binary's base name.
func checkBinary(bin string) error {
	if bin == "" || !filepath.IsAbs(bin) {
		return fmt.Errorf("install needs the absolute path of the reflect binary, got %q", bin)
	}
	if filepath.Base(bin) != "reflect" {
		return fmt.Errorf("binary %s is not named reflect: rename or link it as reflect, then run install again", bin)
	}
	return nil
}

func resolve(path string) (string, error) {
	p, err := filepath.EvalSymlinks(path)
	if err == nil {
		return p, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	return "", fmt.Errorf("resolve %s: %w", path, err)
}

// refuse wraps a parse or shape error so the user knows which file, where,
// and what to do; nothing has been written when it is returned.
func refuse(path, op, agent string, err error) error {
	return fmt.Errorf("%s: %w; fix or move the file, then run reflect %s %s again", path, err, op, agent)
}

// installNotes are the steps left to the user. Codex's are given on every
// install, changed or not; which entries Codex trusts is added once the
// file is written (Result.addTrust).
func installNotes(a agentSpec, path string, changed bool) []string {
	switch {
	case a.name == "codex":
		cfg := filepath.Join(filepath.Dir(path), "config.toml")
		return []string{
			"Hooks are on by default in current Codex. If " + cfg + " has [features] hooks = false (or the deprecated codex_hooks = false), set it to true. Codex releases from before hooks were on by default need [features] hooks = true there (codex_hooks = true on the oldest).",
		}
	case changed:
		return []string{"Start a new Claude Code session (or review them in /hooks) for the hooks to load."}
	}
	return nil
}

// mutator applies one agent's entries to a parsed settings document and
// records what it changed in res.
type mutator struct {
	agent  agentSpec
	binary string
	res    *Result
}

// oneProc prefixes every command install writes; both agents run hook and
// status-line commands through a shell, which applies the assignment. A
// hook lives a few milliseconds and works on one goroutine at a time: with
// a single P the Go runtime has no idle P to start threads for, which took
// 0.3–0.4 ms off the stop, pre-compact and post-tool hooks (3.6–4.3 ms)
// and never slowed prompt or session-start (interleaved A/B, 300–400 runs
// each). Only the environment can set it before the runtime starts its
// threads; runtime.GOMAXPROCS(1) in main comes too late to help.
const oneProc = "GOMAXPROCS=1 "

func (m *mutator) command(sub string) string {
	return oneProc + shellQuote(m.binary) + " hook " + sub + " --agent " + m.agent.name
}

// statusCommand forces the 🧠 form: Claude Code runs the status line with
// stdout on a pipe, where `reflect statusline` would otherwise print its
// plain form, and it renders the emoji and ANSI styles itself.
func (m *mutator) statusCommand() string {
	return oneProc + shellQuote(m.binary) + " statusline --color=always"
}

// hookEntry is the handler object both agents read. Field order is the order
// written to disk.
type hookEntry struct {
	Type          string `json:"type"`
	Command       string `json:"command"`
	Timeout       int    `json:"timeout,omitempty"`
	StatusMessage string `json:"statusMessage,omitempty"`
}

type statusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

type matcherGroup struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

func (m *mutator) install(root *object) error {
	hooks, err := root.object("hooks")
	if err != nil {
		return err
	}
	changed := false
	for _, h := range m.agent.hooks {
		want := hookEntry{Type: "command", Command: m.command(h.Sub), Timeout: h.Timeout, StatusMessage: h.Status}
		groups, err := hooks.array(h.Event)
		if err != nil {
			return err
		}
		groups, outcome, err := m.ensure(groups, h, want)
		if err != nil {
			return err
		}
		e := Entry{Event: h.Event, Matcher: h.Matcher, Command: want.Command, Timeout: want.Timeout, StatusMessage: want.StatusMessage}
		switch outcome {
		case added:
			m.res.Added = append(m.res.Added, e)
		case updated:
			m.res.Updated = append(m.res.Updated, e)
		default:
			continue
		}
		changed = true
		if err := hooks.set(h.Event, marshalArray(groups)); err != nil {
			return err
		}
	}
	if changed {
		if err := root.setObject("hooks", hooks); err != nil {
			return err
		}
	}
	if m.agent.statusLine {
		return m.installStatusLine(root)
	}
	return nil
}

// installStatusLine adds ours only where the user has none: a status line is
// a single slot, and replacing the user's would be destructive.
func (m *mutator) installStatusLine(root *object) error {
	want := m.statusCommand()
	raw, ok := root.get("statusLine")
	if ok && !isNull(raw) {
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
	return root.set("statusLine", mustJSON(statusLine{Type: "command", Command: want}))
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
	wantRaw := mustJSON(want)
	type loc struct{ g, h int }
	var found []loc
	var parsed []*object
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
			if sameJSON(lists[f.g][f.h], wantRaw) {
				return groups, unchanged, nil
			}
			lists[f.g][f.h] = wantRaw
			if err := parsed[f.g].set("hooks", marshalArray(lists[f.g])); err != nil {
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
	kept = append(kept, mustJSON(matcherGroup{Matcher: h.Matcher, Hooks: []hookEntry{want}}))
	if len(removed) > 0 {
		return kept, updated, nil
	}
	return kept, added, nil
}

func (m *mutator) uninstall(root *object) error {
	raw, ok := root.get("hooks")
	if ok && !isNull(raw) {
		hooks, err := root.object("hooks")
		if err != nil {
			return err
		}
		changed := false
		// Every event, not just the ones install writes: an entry of ours
		// under another event can only be a leftover.
		for _, event := range append([]string(nil), hooks.keys...) {
			groups, err := hooks.array(event)
			if err != nil {
				// Not an array, so it holds nothing install wrote: leave
				// it for the agent to complain about.
				continue
			}
			kept, removed, err := removeOurs(groups, event, m.agent.name)
			if err != nil {
				return err
			}
			if len(removed) == 0 {
				continue
			}
			changed = true
			m.res.Removed = append(m.res.Removed, removed...)
			if len(kept) == 0 {
				hooks.del(event)
			} else if err := hooks.set(event, marshalArray(kept)); err != nil {
				return err
			}
		}
		if changed {
			// Install creates "hooks" when it is missing; dropping it once
			// empty gives back the file the user had.
			if len(hooks.keys) == 0 {
				root.del("hooks")
			} else if err := root.setObject("hooks", hooks); err != nil {
				return err
			}
		}
	}
	if m.agent.statusLine {
		if raw, ok := root.get("statusLine"); ok {
			if cmd, mine := ourStatusLine(raw); mine {
				root.del("statusLine")
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
				removed = append(removed, entryOf(event, groupMatcher(obj), e))
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
			if err := obj.set("hooks", marshalArray(rest)); err != nil {
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
func parseGroup(raw json.RawMessage) (obj *object, list []json.RawMessage, ok bool) {
	obj, err := parseObject(raw)
	if err != nil {
		return nil, nil, false
	}
	h, present := obj.get("hooks")
	if !present {
		return obj, nil, true
	}
	if err := json.Unmarshal(h, &list); err != nil {
		return nil, nil, false
	}
	return obj, list, true
}

func groupMatcher(g *object) string {
	var s string
	if raw, ok := g.get("matcher"); ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func entryOf(event, matcher string, raw json.RawMessage) Entry {
	var h hookEntry
	_ = json.Unmarshal(raw, &h)
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
	return filepath.Base(strings.Trim(f[len(f)-1], `'"`)) == "reflect"
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

// shellQuote quotes a path for the shell both agents run commands with, only
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

// ---- order-preserving JSON ------------------------------------------------

// object is a JSON object that remembers its key order. encoding/json maps
// sort keys on output, which would reshuffle a user's settings file on every
// install; here untouched values are kept as raw bytes and keys are written
// back in the order they were read, new keys last.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

// parseObject reads a JSON object from data, which must already be valid
// JSON. A repeated key keeps its first position and its last value, which is
// what the agents' own parsers do.
func parseObject(data []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := newObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if _, seen := o.vals[key]; !seen {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *object) get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// set replaces key's value in place, or appends key when it is new.
func (o *object) set(key string, v json.RawMessage) error {
	if !json.Valid(v) {
		return fmt.Errorf("internal error: invalid JSON for %q", key)
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
	return nil
}

func (o *object) setObject(key string, v *object) error {
	raw, err := v.MarshalJSON()
	if err != nil {
		return err
	}
	return o.set(key, raw)
}

func (o *object) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// object returns key's value as an object; a missing or null key is an empty
// object, anything else that is not an object is an error.
func (o *object) object(key string) (*object, error) {
	raw, ok := o.get(key)
	if !ok || isNull(raw) {
		return newObject(), nil
	}
	obj, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%q must be a JSON object", key)
	}
	return obj, nil
}

// array returns key's value as a list of raw elements; missing or null is
// empty.
func (o *object) array(key string) ([]json.RawMessage, error) {
	raw, ok := o.get(key)
	if !ok || isNull(raw) {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("hooks.%s must be a JSON array", key)
	}
	return list, nil
}

// MarshalJSON writes the object compactly, keys in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(k))
		b.WriteByte(':')
		if err := json.Compact(&b, o.vals[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalArray(list []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// mustJSON encodes values the installer itself builds (strings, hookEntry,
// matcherGroup), which cannot fail. HTML escaping is off so a command with
// `&&` or `>` stays readable in the file.
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// parseSettings validates data and returns its top-level object. Empty (or
// all-whitespace) data is an empty object: that is what a missing file
// means, and an empty file is no different to the agents.
func parseSettings(data []byte) (*object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset)
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, se)
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("the top level must be a JSON object")
	}
	return parseObject(data)
}

// position turns a byte offset from encoding/json into a 1-based line and
// column. The offset points just past the offending byte.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off > 0 {
		off--
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// render writes the document the way Claude Code writes settings.json
// (two-space indent, trailing newline), so a file Claude wrote keeps its
// formatting and a rendered file renders to itself.
func render(root *object) ([]byte, error) {
	compact, err := root.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// ---- reporting ----------------------------------------------------------

func writeReport(w io.Writer, r *Result, op string) {
	if w == nil {
		return
	}
	switch {
	case !r.Changed && op == "install":
		fmt.Fprintf(w, "%s is already up to date\n", r.Path)
	case !r.Changed:
		fmt.Fprintf(w, "nothing of reflect's in %s\n", r.Path)
	case r.DryRun:
		fmt.Fprintf(w, "dry run: would update %s (nothing written)\n", r.Path)
	case r.Created:
		fmt.Fprintf(w, "created %s\n", r.Path)
	default:
		fmt.Fprintf(w, "updated %s\n", r.Path)
	}
	for _, g := range []struct {
		verb string
		list []Entry
	}{{"added", r.Added}, {"updated", r.Updated}, {"removed", r.Removed}} {
		for _, e := range g.list {
			fmt.Fprintf(w, "  %-8s %s", g.verb, e.Event)
			if e.Matcher != "" {
				fmt.Fprintf(w, " [%s]", e.Matcher)
			}
			fmt.Fprintf(w, ": %s", e.Command)
			if e.Timeout > 0 {
				fmt.Fprintf(w, " (timeout %ds)", e.Timeout)
			}
			fmt.Fprintln(w)
		}
	}
	if r.Diff != "" {
		fmt.Fprint(w, r.Diff)
	}
	if r.BackupWritten {
		fmt.Fprintf(w, "backup of the original: %s\n", r.BackupPath)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// unifiedDiff is a small line diff with three lines of context, enough to
// show a dry run's effect on a settings file.
func unifiedDiff(fromName, toName string, from, to []byte) string {
	a, b := splitLines(from), splitLines(to)
	ops := diffLines(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", fromName, toName)
	const ctx = 3
	// aPos/bPos[i]: lines of a/b before op i.
	aPos, bPos := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, op := range ops {
		aPos[i+1], bPos[i+1] = aPos[i], bPos[i]
		if op.kind != '+' {
			aPos[i+1]++
		}
		if op.kind != '-' {
			bPos[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*ctx {
				break
			}
		}
		end = min(end+ctx, len(ops))
		ac, bc := aPos[end]-aPos[start], bPos[end]-bPos[start]
		as, bs := aPos[start]+1, bPos[start]+1
		if ac == 0 {
			as--
		}
		if bc == 0 {
			bs--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", as, ac, bs, bc)
		for _, op := range ops[start:end] {
			fmt.Fprintf(&out, "%c%s\n", op.kind, op.line)
		}
		i = end
	}
	return out.String()
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

func splitLines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffLines is a longest-common-subsequence diff. Settings files are small;
// past a few million cells it gives up on alignment and replaces everything.
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	n, m := len(a), len(b)
	if (n+1)*(m+1) > 4_000_000 {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// lcs[i][j] = LCS length of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}
