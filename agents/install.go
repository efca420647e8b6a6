package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/jsonobj"
	"github.com/reflectkb/reflect/internal/udiff"
)

// BackupSuffix is appended to a settings file's path to name the copy of the
// original that the installers keep. It is written once, before the first
// change, and never overwritten: it is the user's way back to the file as it
// was before reflect ever touched it.
const BackupSuffix = ".reflect-backup"

// InstallOptions says which agent to (un)install for and where.
type InstallOptions struct {
	// Agent is one of Names.
	Agent string
	// SettingsPath overrides the default file (see DefaultSettingsPath).
	SettingsPath string
	// Dirs locate the default file when SettingsPath is empty.
	Dirs Dirs
	// Binary is the absolute path of the running reflect executable. Hooks
	// run it by absolute path so they work even when the agent is started
	// with a PATH that does not contain it.
	Binary string
	// DryRun computes the result, the new content and a diff but writes
	// nothing, not even the backup.
	DryRun bool
}

// Entry is one hook (or the status line) that reflect added, updated or
// removed.
type Entry struct {
	Event         string `json:"event"` // agent event name, or "statusLine"
	Matcher       string `json:"matcher,omitempty"`
	Command       string `json:"command"`
	Timeout       int    `json:"timeout,omitempty"` // seconds, whatever unit the agent's file uses
	StatusMessage string `json:"status_message,omitempty"`
}

// Result says what Install or Uninstall did (or, for a dry run, would do).
// It is meant to be printed as JSON by `--json`.
type Result struct {
	Agent   string `json:"agent"`
	Path    string `json:"path"`
	DryRun  bool   `json:"dry_run"`
	Changed bool   `json:"changed"`
	// Created is true when the settings file did not exist before;
	// Deleted when uninstall removed a file that was wholly reflect's
	// (OpenCode's plugin, or a settings file install created).
	Created bool    `json:"created,omitempty"`
	Deleted bool    `json:"deleted,omitempty"`
	Added   []Entry `json:"added,omitempty"`
	// Updated lists reflect entries that existed with another binary path,
	// timeout or status message and were rewritten.
	Updated []Entry `json:"updated,omitempty"`
	Removed []Entry `json:"removed,omitempty"`
	// BackupPath is the copy of the original file, when one exists;
	// BackupWritten is true when this run wrote it, BackupRemoved when an
	// uninstall removed it because the file is back to what it held.
	BackupPath    string `json:"backup_path,omitempty"`
	BackupWritten bool   `json:"backup_written,omitempty"`
	BackupRemoved bool   `json:"backup_removed,omitempty"`
	// NewContent and Diff are filled for dry runs that would change the file.
	NewContent string `json:"new_content,omitempty"`
	Diff       string `json:"diff,omitempty"`
	// Notes are things the user must do next (trust the hooks in Codex, …).
	Notes []string `json:"notes,omitempty"`
	// Trust says, for Codex, whether Codex will run each reflect entry as
	// the file now stands (not filled for dry runs).
	Trust []HookTrust `json:"trust,omitempty"`
	// Op is "install" or "uninstall", for the caller's report; --json
	// output names it by the command run.
	Op string `json:"-"`
}

// hookSpec is one hook reflect registers.
type hookSpec struct {
	Event   string // the agent's event name
	Matcher string // "" = no matcher key (every occurrence)
	Sub     string // `reflect hook SUB`
	Timeout int    // seconds
	Status  string // Codex statusMessage; "" = none
}

// Dirs are where the agents keep their own configuration. The command
// layer reads them from the environment (config.AgentDirs, which has the
// same fields: agents.Dirs(c.Agents)); this package reads no environment.
type Dirs struct {
	Home   string // $HOME
	Claude string // $CLAUDE_CONFIG_DIR; empty: $HOME/.claude
	Codex  string // $CODEX_HOME; empty: $HOME/.codex
	// GeminiHome is $GEMINI_CLI_HOME, which replaces $HOME for Gemini CLI
	// (its directory is then $GEMINI_CLI_HOME/.gemini); empty: $HOME.
	GeminiHome string
	// XDGConfig is $XDG_CONFIG_HOME, the parent of OpenCode's directory;
	// empty: $HOME/.config.
	XDGConfig string
	Copilot   string // $COPILOT_HOME; empty: $HOME/.copilot
}

// under is a relocated for an agent whose variable names the parent of
// its directory (GEMINI_CLI_HOME, XDG_CONFIG_HOME): sub under dir(d), or
// "" when the variable is not set.
func under(dir func(Dirs) string, sub string) func(Dirs) string {
	return func(d Dirs) string {
		if dir(d) == "" {
			return ""
		}
		return filepath.Join(dir(d), sub)
	}
}

// agentSpec describes one agent: its settings file, the hooks reflect
// registers there and where its MCP servers are registered. claude.go and
// codex.go each fill one.
type agentSpec struct {
	name    string
	display string // the agent's own name, for people: "Claude Code"
	// executable is the command the agent is started with; status and
	// doctor run `executable --version`.
	executable string
	// relocated is the agent's config directory when its variable moves
	// it (CLAUDE_CONFIG_DIR, CODEX_HOME, …), else "".
	relocated func(Dirs) string
	homeDir   string // default directory under $HOME
	file      string
	// run replaces the shared hooks edit for an agent whose file is not a
	// hooks JSON (OpenCode's plugin); it gets the file's path.
	run   func(a agentSpec, opts InstallOptions, path string, install bool) (Result, error)
	hooks []hookSpec
	// millis says the agent reads hook timeouts in milliseconds (Gemini
	// CLI); hookSpec.Timeout is in seconds for every agent.
	millis bool
	// named gives each hook a "name" ("reflect-SUB"), which the agent
	// shows in its hook list and uses to enable or disable it.
	named      bool
	statusLine bool // the file also takes a top-level statusLine
	// installNotes are the steps left to the user after an install of the
	// hooks into the file at path.
	installNotes func(path string, changed bool) []string
	// afterWrite runs once an install has left the file at path as
	// reflect wants it (not for dry runs); nil does nothing.
	afterWrite func(res *Result, path string)
	// mcpFile is the file MCP servers are registered in, in relocated when
	// that is set, else in homeDir or, when mcpAtHome, in $HOME itself.
	mcpFile   string
	mcpAtHome bool
	// editMCP adds (or removes) reflect's server in the MCP config orig.
	editMCP func(orig []byte, bin string, install bool, res *Result) ([]byte, error)
	// mcpNote is the step left to the user after registering the server.
	mcpNote string
}

// registry lists the agents reflect installs into, in the order status
// and doctor show them. An agent is added here and in its own file.
var registry = []agentSpec{claudeAgent, codexAgent, geminiAgent, openCodeAgent, copilotAgent}

// specs are the agents reflect installs into, by name.
var specs = func() map[string]agentSpec {
	m := map[string]agentSpec{}
	for _, a := range registry {
		m[a.name] = a
	}
	return m
}()

// Names are the agents reflect installs into.
var Names = func() []string {
	var n []string
	for _, a := range registry {
		n = append(n, a.name)
	}
	return n
}()

func lookupAgent(name string) (agentSpec, error) {
	a, ok := specs[name]
	if !ok {
		return agentSpec{}, fmt.Errorf("unknown agent %q: choose one of %s", name, strings.Join(Names, ", "))
	}
	return a, nil
}

// DefaultSettingsPath returns the file the installer edits for agent:
// $HOME/.claude/settings.json for claude, $HOME/.codex/hooks.json for
// codex, $HOME/.gemini/settings.json for gemini,
// $HOME/.config/opencode/plugins/reflect.js for opencode and
// $HOME/.copilot/settings.json for copilot. CLAUDE_CONFIG_DIR, CODEX_HOME,
// GEMINI_CLI_HOME, XDG_CONFIG_HOME and COPILOT_HOME (in d), which move the
// agents' own configuration, move it too: hooks written anywhere else would
// never load.
func DefaultSettingsPath(agent string, d Dirs) (string, error) {
	a, err := lookupAgent(agent)
	if err != nil {
		return "", err
	}
	if dir := a.relocated(d); dir != "" {
		return filepath.Join(dir, a.file), nil
	}
	if d.Home == "" {
		return "", errNoHome
	}
	return filepath.Join(d.Home, a.homeDir, a.file), nil
}

// errNoHome is the error for a default path without a home directory.
var errNoHome = errors.New("cannot find your home directory: set HOME or pass --settings PATH")

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

// target checks what every (un)install needs before it reads a file: a
// known agent, for an install a usable reflect binary, and the file to
// edit (opts.SettingsPath, else the agent's default from defaultPath).
func target(opts InstallOptions, install bool, defaultPath func(agent string, d Dirs) (string, error)) (agentSpec, string, error) {
	a, err := lookupAgent(opts.Agent)
	if err != nil {
		return agentSpec{}, "", err
	}
	if install {
		if err := checkBinary(opts.Binary); err != nil {
			return agentSpec{}, "", err
		}
	}
	path := opts.SettingsPath
	if path == "" {
		if path, err = defaultPath(a.name, opts.Dirs); err != nil {
			return agentSpec{}, "", err
		}
	}
	return a, path, nil
}

func run(opts InstallOptions, install bool) (Result, error) {
	a, path, err := target(opts, install, DefaultSettingsPath)
	if err != nil {
		return Result{}, err
	}
	if a.run != nil {
		return a.run(a, opts, path, install)
	}
	j := job{agent: a, opts: opts, install: install, path: path, op: "uninstall"}
	if install {
		j.op = "install"
		j.notes = func(res *Result) { res.Notes = append(res.Notes, a.installNotes(path, res.Changed)...) }
		j.afterWrite = a.afterWrite
	}
	j.edit = editJSON(a, opts, install, (*mutator).install, (*mutator).uninstall)
	j.strip = stripAll(a, opts)
	return j.apply()
}

// stripAll is the strip of everything reflect writes into the agent's
// settings file: its hooks and, when the agent keeps MCP servers in the
// same file (Gemini CLI), its server entry.
func stripAll(a agentSpec, opts InstallOptions) func([]byte) ([]byte, bool, error) {
	hooks := editJSON(a, opts, false, (*mutator).install, (*mutator).uninstall)
	if a.editMCP == nil || a.mcpFile != a.file || a.mcpAtHome {
		return stripWith(hooks)
	}
	return stripWith(func(data []byte, res *Result) ([]byte, error) {
		out, err := hooks(data, res)
		if err != nil {
			return nil, err
		}
		return a.editMCP(out, opts.Binary, false, res)
	})
}

// stripWith turns an uninstall edit into a job's strip: the content with
// reflect's entries removed, and whether there were any.
func stripWith(edit func([]byte, *Result) ([]byte, error)) func([]byte) ([]byte, bool, error) {
	return func(data []byte) ([]byte, bool, error) {
		var r Result
		out, err := edit(data, &r)
		return out, len(r.Removed) > 0, err
	}
}

// editJSON is the edit of a JSON settings file: parse it, let a mutator
// add (install) or remove reflect's entries, and render it again.
func editJSON(a agentSpec, opts InstallOptions, install bool, add, remove func(*mutator, *jsonobj.Object) error) func([]byte, *Result) ([]byte, error) {
	return func(orig []byte, res *Result) ([]byte, error) {
		root, err := jsonobj.ParseDocument(orig)
		if err != nil {
			return nil, err
		}
		m := mutator{agent: a, binary: opts.Binary, res: res}
		if install {
			err = add(&m, root)
		} else {
			err = remove(&m, root)
		}
		if err != nil {
			return nil, err
		}
		return root.Render()
	}
}

// job is one install or uninstall of one agent's file: the part every
// installer shares (backup, dry run, atomic write) around the edit that
// differs.
type job struct {
	agent   agentSpec
	opts    InstallOptions
	install bool
	path    string // the file to edit, as the user names it
	op      string // the command, for errors: "install", "mcp uninstall", …
	// edit returns the new content of the file for orig (empty when the
	// file does not exist) and records what it changes in res.
	edit func(orig []byte, res *Result) ([]byte, error)
	// strip is the uninstall edit, for telling a file (or a backup) that
	// holds nothing but reflect's entries from one the user had.
	strip func(data []byte) (out []byte, removed bool, err error)
	// notes adds the steps left to the user, once res.Changed is known.
	notes func(res *Result)
	// afterWrite runs when the file is as reflect wants it (not for dry
	// runs), with the path actually written.
	afterWrite func(res *Result, target string)
}

// apply runs the job: it reads the file (through a symlink: settings files
// are often links into a dotfiles repository), edits it and, unless nothing
// changes or this is a dry run, backs the original up once and writes the
// new content atomically. A file that cannot be edited is refused
// untouched.
func (j job) apply() (Result, error) {
	a, opts, path := j.agent, j.opts, j.path
	res := Result{Agent: a.name, Path: path, DryRun: opts.DryRun, Op: strings.TrimPrefix(j.op, "mcp ")}
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
	res.Created = j.install && !exists

	out, err := j.edit(orig, &res)
	if err != nil {
		return res, refuse(path, j.op, a.name, err)
	}
	res.Changed = len(res.Added)+len(res.Updated)+len(res.Removed) > 0
	if j.notes != nil {
		j.notes(&res)
	}
	if !res.Changed {
		res.Created = false
		if !opts.DryRun && j.afterWrite != nil {
			j.afterWrite(&res, target)
		}
		if !opts.DryRun && !j.install && exists && isEmptyDoc(orig) {
			return j.dropLeftovers(res, target)
		}
		return res, nil
	}
	if opts.DryRun {
		res.NewContent = string(out)
		from := path
		if !exists {
			from = "/dev/null"
		}
		res.Diff = udiff.Unified(from, path, orig, out)
		return res, nil
	}

	perm := fsutil.FilePerm
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	if !j.install {
		return j.finishUninstall(res, target, out, perm)
	}
	// A file that holds only reflect's entries is one reflect created:
	// its original is no file at all, so no "backup of the original" is
	// written (it would hold reflect's own hooks).
	if exists && res.BackupPath == "" && !j.onlyOurs(orig) {
		if err := fsutil.WriteAtomic(backup, orig, perm); err != nil {
			return res, err
		}
		res.BackupPath, res.BackupWritten = backup, true
	}
	if err := fsutil.WriteAtomic(target, out, perm); err != nil {
		return res, err
	}
	if j.afterWrite != nil {
		j.afterWrite(&res, target)
	}
	return res, nil
}

// finishUninstall writes what an uninstall leaves, out, so that nothing
// reflect created stays behind:
//   - a backup whose original, less any entries of reflect's it holds, is
//     what the file now says has done its job and is removed (the file
//     gets the backup's exact bytes back when the backup held nothing of
//     reflect's);
//   - a file reflect created (no backup, or a backup that held nothing but
//     reflect's entries, which older releases wrote) that is now empty is
//     deleted instead of being left as {}.
func (j job) finishUninstall(res Result, target string, out []byte, perm os.FileMode) (Result, error) {
	ours := res.BackupPath == "" && isEmptyDoc(out)
	dropBackup := false
	if res.BackupPath != "" && j.strip != nil {
		orig, err := os.ReadFile(res.BackupPath)
		if err != nil {
			return res, fmt.Errorf("read %s: %w", res.BackupPath, err)
		}
		if stripped, removed, err := j.strip(orig); err == nil && sameDoc(out, stripped) {
			dropBackup = true
			switch {
			case removed && isEmptyDoc(stripped):
				ours = true
			case !removed:
				out = orig
			}
		}
	}
	if ours {
		if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
		res.Deleted = true
	} else if err := fsutil.WriteAtomic(target, out, perm); err != nil {
		return res, err
	}
	if dropBackup {
		if err := os.Remove(res.BackupPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
		res.BackupRemoved = true
	}
	return res, nil
}

// dropLeftovers removes what an uninstall by an older release left of a
// file reflect created: the file emptied to {} and a backup that holds
// nothing but reflect's own entries. A backup of anything else is the
// user's original and stays, with the file.
func (j job) dropLeftovers(res Result, target string) (Result, error) {
	if res.BackupPath == "" {
		return res, nil
	}
	orig, err := os.ReadFile(res.BackupPath)
	if err != nil || !j.onlyOurs(orig) {
		return res, nil
	}
	for _, p := range []string{target, res.BackupPath} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
	}
	res.Deleted, res.BackupRemoved = true, true
	return res, nil
}

// onlyOurs reports whether data holds reflect's entries and nothing else.
func (j job) onlyOurs(data []byte) bool {
	if j.strip == nil {
		return false
	}
	stripped, removed, err := j.strip(data)
	return err == nil && removed && isEmptyDoc(stripped)
}

// isEmptyDoc reports whether a settings file says nothing: blank, or a
// JSON object without keys.
func isEmptyDoc(data []byte) bool {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(t, &m) == nil && len(m) == 0
}

// sameDoc reports whether a and b say the same: equal but for surrounding
// blanks, or JSON with the same meaning.
func sameDoc(a, b []byte) bool {
	if bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b)) {
		return true
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// checkBinary insists on an absolute path named reflect: the agent runs the
// command from arbitrary directories, and uninstall recognises our entries by
// the binary's base name.
func checkBinary(bin string) error {
	if bin == "" || !filepath.IsAbs(bin) {
		return fmt.Errorf("install needs the absolute path of the reflect binary, got %q", bin)
	}
	if !isReflectName(filepath.Base(bin)) {
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
// a single P the Go runtime has no idle P to start threads for, which made
// the stop, pre-compact and post-tool hooks faster and slowed none
// (measured in docs/benchmarks.md). Only the environment can set it before the runtime starts its
// threads; runtime.GOMAXPROCS(1) in main comes too late to help.
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

// hookEntry is the handler object both agents read. Field order is the order
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
	if changed {
		if err := root.SetObject("hooks", hooks); err != nil {
			return err
		}
	}
	if m.agent.statusLine {
		return m.installStatusLine(root)
	}
	return nil
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
		changed := false
		// Every event, not just the ones install writes: an entry of ours
		// under another event can only be a leftover.
		for _, event := range hooks.Keys() {
			groups, err := hooks.Array(event)
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
				hooks.Del(event)
			} else if err := hooks.Set(event, jsonobj.MarshalArray(kept)); err != nil {
				return err
			}
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

// UninstallAll removes every trace of reflect from every agent, in
// registry order: hooks and status line (Uninstall; OpenCode's plugin file)
// and MCP server entries (UninstallMCP) from each agent's default files,
// found through opts.Dirs. opts.Agent and opts.SettingsPath are ignored.
// It goes on past an agent that fails and returns every result it has with
// the errors joined, each naming its agent.
func UninstallAll(opts InstallOptions) ([]Result, error) {
	opts.SettingsPath = ""
	var results []Result
	var errs []error
	for _, a := range registry {
		opts.Agent = a.name
		runs := []func(InstallOptions) (Result, error){Uninstall}
		if a.editMCP != nil {
			runs = append(runs, UninstallMCP)
		}
		for _, run := range runs {
			res, err := run(opts)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", a.display, err))
				continue
			}
			results = append(results, res)
		}
	}
	return results, errors.Join(errs...)
}
