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
	// hooksRun says whether the agent will run reflect's hooks installed
	// in the file at path, and why (status and doctor); nil: it does.
	hooksRun func(path string) (bool, string)
}

// registry lists the agents reflect installs into, in the order status
// and doctor show them, which is Registry's (registry_test.go holds them
// to it). An agent is added here and in its own file.
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
