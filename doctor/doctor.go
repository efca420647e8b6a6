// Package doctor inspects a reflect installation and says, for each thing
// it checks, whether it is healthy and what to do when it is not. It reads
// and never repairs: fixing is left to the commands it names.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/internal/config"
)

// Status of one check.
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "fail"
)

// Check is one finding.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Fix says what to do when Status is not OK.
	Fix string `json:"fix,omitempty"`
}

// Report is everything doctor found.
type Report struct {
	StateDir     string         `json:"state_dir"`
	LearningsDir string         `json:"learnings_dir"`
	ConfigFile   string         `json:"config_file"`
	Settings     map[string]any `json:"settings"`
	Counts       index.Counts   `json:"counts"`
	Writer       string         `json:"writer"`
	Malformed    []Malformed    `json:"malformed"`
	Checks       []Check        `json:"checks"`
	// ANN is how vectors are searched, as the last reindex decided; null
	// when none recorded it.
	ANN *index.ANNStatus `json:"ann"`
}

// Malformed is a document the index had to skip.
type Malformed struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Healthy reports whether no check failed.
func (r *Report) Healthy() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return false
		}
	}
	return true
}

// Run performs every check. It opens the index (which rebuilds it when it
// is missing or damaged, as any command would) and refreshes it, so the
// counts and malformed documents are current.
//
// opts are added to the index's open options (a command passes
// index.OnRebuild to say that a rebuild is under way).
func Run(ctx context.Context, c *config.Config, opts ...index.OpenOption) *Report {
	r := &Report{
		StateDir: c.StateDir, LearningsDir: c.LearningsDir, ConfigFile: c.File,
		Settings: map[string]any{
			"embedder":     c.Index.Embedder,
			"recall.max":   c.Recall.Max,
			"recall.chars": c.Recall.Chars,
			"disabled":     c.Disabled,
			"origin":       c.Origin,
		},
		Malformed: []Malformed{},
	}
	r.checkDir("state directory", c.StateDir, "it is created by the first hook or drain")
	r.checkStateDirs(c.StateDir)
	r.checkDir("documents directory", c.DocumentsDir(), "it is created by the first 'reflect add' or drain")
	r.checkDir("index directory", c.IndexDir(), "it is created by any search or reindex")
	if _, err := os.Stat(c.File); err == nil {
		r.add(Check{Name: "config", Status: OK, Detail: c.File})
	} else {
		r.add(Check{Name: "config", Status: OK, Detail: "no config.toml; defaults and environment variables apply"})
	}
	if c.Disabled {
		r.add(Check{Name: "hooks", Status: Warn, Detail: "REFLECT_DISABLE=1: every hook is a no-op", Fix: "unset REFLECT_DISABLE"})
	}
	r.checkIndex(ctx, c, opts)
	r.checkWriter(c)
	r.checkHooks(agents.Dirs(c.Agents))
	return r
}

// installBinary is the reflect binary the hooks check compares installed
// entries with (empty: the running one; tests name a fixed path).
var installBinary = ""

// checkHooks says whether reflect's hooks are in each agent's settings: the
// first thing to look at when nothing is ever recalled. A dry-run uninstall
// finds exactly the entries install adds and writes nothing; a dry-run
// install then tells entries this reflect would rewrite (another binary
// path, timeout or command form, as after an upgrade).
func (r *Report) checkHooks(dirs agents.Dirs) {
	for _, agent := range agents.Names {
		name := agent + " hooks"
		res, err := agents.Uninstall(agents.InstallOptions{Agent: agent, DryRun: true, Dirs: dirs})
		switch {
		case err != nil:
			r.add(Check{Name: name, Status: Warn, Detail: err.Error()})
		case len(res.Removed) > 0:
			detail := fmt.Sprintf("%d hook entries in %s", len(res.Removed), res.Path)
			// An error here (a reflect run from a build directory) leaves
			// the entries' presence as the answer.
			if ins, err := agents.Install(agents.InstallOptions{Agent: agent, DryRun: true, Binary: installBinary, Dirs: dirs}); err == nil && len(ins.Updated) > 0 {
				r.add(Check{Name: name, Status: Warn, Detail: fmt.Sprintf("%s; %d written by another reflect (binary path or command differs)", detail, len(ins.Updated)),
					Fix: "run 'reflect install " + agent + "' to update them"})
				if agent == "codex" {
					r.checkCodexTrust(res.Path)
				}
				continue
			}
			r.add(Check{Name: name, Status: OK, Detail: detail})
			if agent == "codex" {
				r.checkCodexTrust(res.Path)
			}
		default:
			r.add(Check{Name: name, Status: OK, Detail: "not installed (run 'reflect install " + agent + "' to use reflect with it)"})
		}
	}
}

// checkCodexTrust says, per reflect entry, whether Codex will run it:
// Codex skips an untrusted hook, or one trusted for an older definition,
// without a word, so "installed" alone would read as working.
func (r *Report) checkCodexTrust(hooksPath string) {
	trust, err := agents.CodexTrust(hooksPath)
	if err != nil {
		r.add(Check{Name: "codex hook trust", Status: Warn, Detail: err.Error(),
			Fix: "fix Codex's config.toml; Codex will not start with it either"})
		return
	}
	for _, t := range trust {
		// Named by reflect's hook so the name fits doctor's column; the
		// detail names the event as Codex's /hooks shows it.
		c := Check{Name: "codex " + t.Hook, Status: OK, Detail: t.Event + " " + t.Describe()}
		if !t.Runs() {
			c.Status, c.Fix = Warn, agents.CodexTrustFix
		}
		r.add(c)
	}
}

// checkWriter reports which writer the drainer will use and why.
func (r *Report) checkWriter(c *config.Config) {
	w, why, err := drain.Select(c, nil)
	if err != nil {
		r.add(Check{Name: "writer", Status: Fail, Detail: err.Error(),
			Fix: "install it, or set drain.writer / REFLECT_WRITER to builtin"})
		return
	}
	r.Writer = w.Name()
	r.add(Check{Name: "writer", Status: OK, Detail: w.Name() + " (" + why + ")"})
}

func (r *Report) add(c Check) { r.Checks = append(r.Checks, c) }

func (r *Report) checkDir(name, dir, missingHint string) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.add(Check{Name: name, Status: OK, Detail: dir + " does not exist yet; " + missingHint})
		return
	case err != nil:
		r.add(Check{Name: name, Status: Fail, Detail: err.Error(), Fix: "check the permissions of " + filepath.Dir(dir)})
		return
	case !fi.IsDir():
		r.add(Check{Name: name, Status: Fail, Detail: dir + " is not a directory", Fix: "move it away; reflect needs a directory there"})
		return
	}
	probe, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		r.add(Check{Name: name, Status: Fail, Detail: dir + " is not writable: " + err.Error(), Fix: "chmod u+rwx " + dir})
		return
	}
	probe.Close()
	os.Remove(probe.Name())
	if fi.Mode().Perm()&0o077 != 0 {
		r.add(Check{Name: name, Status: Warn, Detail: fmt.Sprintf("%s is readable by others (mode %v)", dir, fi.Mode().Perm()), Fix: "chmod 700 " + dir})
		return
	}
	r.add(Check{Name: name, Status: OK, Detail: dir})
}

// stateSubdirs are the directories hooks write under the state directory:
// what a session was shown, armed failure watchers, spilled queue records
// and logs. Each holds prompts, commands or paths.
var stateSubdirs = []string{"armed", "session-injected", "spill", "logs"}

// checkStateDirs warns about a state subdirectory others can read or
// write (hooks tighten one when they next write there, doctor only says
// so), and one that is not a directory at all (a symlink planted there
// would redirect what hooks write).
func (r *Report) checkStateDirs(stateDir string) {
	var loose []string
	for _, name := range stateSubdirs {
		dir := filepath.Join(stateDir, name)
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			r.add(Check{Name: "state " + name, Status: Fail, Detail: err.Error(), Fix: "check the permissions of " + stateDir})
		case !fi.IsDir():
			r.add(Check{Name: "state " + name, Status: Fail, Detail: dir + " is not a directory (" + fi.Mode().Type().String() + ")",
				Fix: "remove it; reflect recreates it"})
		case fi.Mode().Perm()&0o077 != 0:
			loose = append(loose, fmt.Sprintf("%s (mode %v)", dir, fi.Mode().Perm()))
		}
	}
	if len(loose) > 0 {
		r.add(Check{Name: "state subdirectories", Status: Warn, Detail: "readable or writable by others: " + strings.Join(loose, ", "),
			Fix: "chmod 700 each of them (hooks tighten them on their next write)"})
	}
}

// rebuildBinary is the fix for a reflect whose SQLite lacks FTS5: the
// catalog is fine, the binary is not, and no reindex can help.
const rebuildBinary = "rebuild reflect with the sqlite_fts5 tag: go install -tags sqlite_fts5 github.com/reflectkb/reflect/cmd/reflect@latest (in a clone: make install)"

// indexFix is the fix doctor suggests for a failing index operation.
func indexFix(err error) string {
	if index.IsNoFTS5(err) {
		return rebuildBinary
	}
	return "run 'reflect reindex --full'"
}

func (r *Report) checkIndex(ctx context.Context, c *config.Config, extra []index.OpenOption) {
	opts, err := index.SettingsOptions(index.Settings(c.Index), false)
	if err != nil {
		r.add(Check{Name: "index", Status: Fail, Detail: err.Error(), Fix: "set index.embedder to hash, ollama, openai or none in " + c.File})
		return
	}
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir(), append(opts, extra...)...)
	if errors.Is(err, index.ErrBusy) {
		// Another process is rebuilding it: not a failure of the index,
		// which is being made (on main doctor reported a contradictory
		// fail here while a rebuild ran).
		r.add(Check{Name: "index", Status: Warn, Detail: "another process is rebuilding the index: " + err.Error(),
			Fix: "run 'reflect doctor' again when it has finished"})
		return
	}
	if err != nil {
		fix := "move " + filepath.Join(c.IndexDir(), "catalog.db") + " away and run 'reflect reindex --full'"
		if fi, serr := os.Stat(c.DocumentsDir()); serr == nil && !fi.IsDir() {
			fix = "fix the documents directory first (see above)"
		}
		if index.IsNoFTS5(err) {
			fix = rebuildBinary
		}
		r.add(Check{Name: "index", Status: Fail, Detail: err.Error(), Fix: fix})
		return
	}
	defer ix.Close()
	if ix.Rebuilt != "" {
		r.add(Check{Name: "index rebuild", Status: Warn, Detail: ix.Rebuilt})
	}
	if ix.Repaired != "" {
		r.add(Check{Name: "index repair", Status: OK, Detail: "repaired: " + ix.Repaired})
	}
	// Looked at before the refresh, which rewrites a damaged vector file:
	// doctor says what it found and what it did.
	vecBefore, _ := ix.VectorFileProblem(ctx)
	switch _, _, err := ix.Refresh(ctx); {
	case errors.Is(err, index.ErrBusy):
		r.add(Check{Name: "index refresh", Status: Warn, Detail: err.Error(), Fix: "run 'reflect doctor' again when that update ends"})
	case index.NoSpace(err):
		r.add(Check{Name: "index refresh", Status: Warn, Detail: err.Error() + "; searches answer from the index as it stands",
			Fix: "free space on the disk of " + c.IndexDir() + ", then run 'reflect reindex'"})
	case err != nil:
		r.add(Check{Name: "index refresh", Status: Fail, Detail: err.Error(), Fix: indexFix(err)})
	}
	health, err := ix.Check(ctx)
	switch {
	case err != nil:
		r.add(Check{Name: "index integrity", Status: Fail, Detail: err.Error(), Fix: indexFix(err)})
	case health != "ok":
		r.add(Check{Name: "index integrity", Status: Fail, Detail: health, Fix: "run 'reflect reindex --full'"})
	default:
		r.add(Check{Name: "index integrity", Status: OK, Detail: ix.Path()})
	}
	if r.Counts, err = ix.Count(ctx); err != nil {
		r.add(Check{Name: "index counts", Status: Fail, Detail: err.Error()})
		return
	}
	problems, err := ix.Problems(ctx)
	if err != nil {
		r.add(Check{Name: "malformed documents", Status: Fail, Detail: err.Error()})
		return
	}
	for _, p := range problems {
		r.Malformed = append(r.Malformed, Malformed{Path: p.Path, Reason: p.Reason})
	}
	if len(problems) > 0 {
		r.add(Check{Name: "malformed documents", Status: Warn,
			Detail: fmt.Sprintf("%d %s skipped by the index", len(problems), map[bool]string{true: "document", false: "documents"}[len(problems) == 1]),
			Fix:    "fix or remove them; 'reflect doctor --json' lists each path and reason"})
	} else {
		r.add(Check{Name: "malformed documents", Status: OK, Detail: "none"})
	}
	r.add(Check{Name: "learnings", Status: OK, Detail: fmt.Sprintf("%d indexed (%d mini)", r.Counts.Learnings, r.Counts.Mini)})
	r.checkVectors(ctx, c, ix, vecBefore)
}

// checkVectors reports the embedder and how its vectors are searched: the
// exact scan, or the HNSW tier when the last reindex found its recall good
// enough (ARCHITECTURE §5). Either is healthy; the detail says why, so a slow
// vector search at scale can be traced to a failed self-check.
//
// vecBefore is what was wrong with vectors.f32 before the refresh: a
// problem the refresh repaired is reported as repaired, one it did not as
// a warning with the command that repairs it.
func (r *Report) checkVectors(ctx context.Context, c *config.Config, ix *index.Index, vecBefore string) {
	name := c.Index.Embedder
	if name == "" {
		name = embed.ProviderHash
	}
	if name == index.NoEmbedder {
		r.add(Check{Name: "vectors", Status: OK, Detail: "none: the vector signal is off (index.embedder = none)"})
		return
	}
	if c.Index.EmbedderModel != "" {
		name += " (" + c.Index.EmbedderModel + ")"
	}
	switch problem, err := ix.VectorFileProblem(ctx); {
	case err != nil || problem != "":
		if err != nil {
			problem = err.Error()
		}
		r.add(Check{Name: "vector file", Status: Warn,
			Detail: problem + "; searches use the other signals until it is rewritten",
			Fix:    "run 'reflect reindex' (it rewrites the file from the catalog)"})
	case vecBefore != "":
		r.add(Check{Name: "vector file", Status: OK, Detail: "repaired: " + vecBefore + "; rewritten from the catalog"})
	}
	st, err := ix.ANN(ctx)
	switch {
	case err != nil:
		r.add(Check{Name: "vectors", Status: Warn, Detail: name + ": " + err.Error(), Fix: "run 'reflect reindex'"})
		return
	case st == nil && r.Counts.Learnings > 0:
		r.add(Check{Name: "vectors", Status: Warn, Detail: name + ": no reindex has decided how vectors are searched yet",
			Fix: "run 'reflect reindex'"})
		return
	case st == nil:
		r.add(Check{Name: "vectors", Status: OK, Detail: name + ": no vectors yet"})
		return
	}
	r.ANN = st
	detail := name + ", " + st.Reason
	if !strings.Contains(st.Reason, " vectors") {
		// The reasons for a failed self-check name the recall, not the size.
		detail += " (" + thousands(st.Vectors) + " vectors)"
	}
	r.add(Check{Name: "vectors", Status: OK, Detail: detail})
}

// thousands formats n with comma separators, as the vector package writes
// counts in its reasons.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
