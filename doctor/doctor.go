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

	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/hooks"
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
func Run(ctx context.Context, c *config.Config) *Report {
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
	r.checkIndex(ctx, c)
	r.checkWriter(c)
	r.checkHooks()
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
func (r *Report) checkHooks() {
	for _, agent := range hooks.Agents {
		name := agent + " hooks"
		res, err := hooks.Uninstall(hooks.InstallOptions{Agent: agent, DryRun: true})
		switch {
		case err != nil:
			r.add(Check{Name: name, Status: Warn, Detail: err.Error()})
		case len(res.Removed) > 0:
			detail := fmt.Sprintf("%d hook entries in %s", len(res.Removed), res.Path)
			// An error here (a reflect run from a build directory) leaves
			// the entries' presence as the answer.
			if ins, err := hooks.Install(hooks.InstallOptions{Agent: agent, DryRun: true, Binary: installBinary}); err == nil && len(ins.Updated) > 0 {
				r.add(Check{Name: name, Status: Warn, Detail: fmt.Sprintf("%s; %d written by another reflect (binary path or command differs)", detail, len(ins.Updated)),
					Fix: "run 'reflect install " + agent + "' to update them"})
				continue
			}
			r.add(Check{Name: name, Status: OK, Detail: detail})
		default:
			r.add(Check{Name: name, Status: OK, Detail: "not installed (run 'reflect install " + agent + "' to use reflect with it)"})
		}
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

func (r *Report) checkIndex(ctx context.Context, c *config.Config) {
	opts, err := index.ConfigOptions(c.Index, false)
	if err != nil {
		r.add(Check{Name: "index", Status: Fail, Detail: err.Error(), Fix: "set index.embedder to hash, ollama, openai or none in " + c.File})
		return
	}
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir(), opts...)
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
	switch _, _, err := ix.Refresh(ctx); {
	case errors.Is(err, index.ErrBusy):
		r.add(Check{Name: "index refresh", Status: Warn, Detail: err.Error(), Fix: "run 'reflect doctor' again when that update ends"})
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
			Detail: fmt.Sprintf("%d document(s) skipped by the index", len(problems)),
			Fix:    "fix or remove them; 'reflect doctor --json' lists each path and reason"})
	} else {
		r.add(Check{Name: "malformed documents", Status: OK, Detail: "none"})
	}
	r.add(Check{Name: "learnings", Status: OK, Detail: fmt.Sprintf("%d indexed (%d mini)", r.Counts.Learnings, r.Counts.Mini)})
	r.checkVectors(ctx, c, ix)
}

// checkVectors reports the embedder and how its vectors are searched: the
// exact scan, or the HNSW tier when the last reindex found its recall good
// enough (DESIGN §5). Either is healthy; the detail says why, so a slow
// vector search at scale can be traced to a failed self-check.
func (r *Report) checkVectors(ctx context.Context, c *config.Config, ix *index.Index) {
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
