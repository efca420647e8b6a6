// Package doctor inspects a reflect installation and says, for each thing
// it checks, whether it is healthy and what to do when it is not. It reads
// and never repairs: fixing is left to the commands it names.
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/money"
	"github.com/reflectkb/reflect/kbsync"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
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
	// Today is the drainer's writer runs and spend of the current UTC
	// day (nil when drain-cost.jsonl cannot be read).
	Today     *drain.Spend `json:"today,omitempty"`
	Malformed []Malformed  `json:"malformed"`
	// Duplicates lists learnings recent syncs brought in that nearly
	// repeat another learning.
	Duplicates []Duplicate `json:"pulled_duplicates,omitempty"`
	// NeedsReview lists the ids of learnings a sync merge marked
	// needs_review.
	NeedsReview []string `json:"needs_review"`
	Checks      []Check  `json:"checks"`
	// Vectors is how many learnings have a vector (each search scans them
	// all: ARCHITECTURE §5).
	Vectors int `json:"vectors"`
	// Agents lists every agent reflect supports: installed or not, its
	// version, whether it runs reflect's hooks.
	Agents []agents.AgentStatus `json:"agents"`
}

// Duplicate is a pulled learning and the one it nearly repeats.
type Duplicate struct {
	ID    string  `json:"id"`
	Of    string  `json:"of"`
	Share float64 `json:"share"`
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
			"recall.gate":  c.Recall.Gate,
			"disabled":     c.Disabled,
			"origin":       c.Origin,
		},
		Malformed:   []Malformed{},
		NeedsReview: []string{},
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
	r.checkReview(c)
	r.checkSync(c)
	r.checkWriter(c)
	r.checkHooks(ctx, agents.Dirs(c.Agents))
	return r
}

// checkReview lists the learnings a sync merge marked needs_review: two
// machines changed the same lines of the body, and both versions were kept
// under headings for a person to settle.
func (r *Report) checkReview(c *config.Config) {
	ids, err := store.Open(c.DocumentsDir()).NeedingReview()
	if err != nil {
		r.add(Check{Name: "needs review", Status: Warn, Detail: err.Error()})
		return
	}
	r.NeedsReview = append(r.NeedsReview, ids...)
	if len(ids) == 0 {
		r.add(Check{Name: "needs review", Status: OK, Detail: "none"})
		return
	}
	r.add(Check{Name: "needs review", Status: Warn,
		Detail: fmt.Sprintf("%d learning(s) merged by sync with both bodies kept: %s", len(ids), strings.Join(ids, ", ")),
		Fix:    "edit each to one body and remove 'needs_review: true' ('reflect show ID' shows both)"})
}

// checkPulledDuplicates looks for near-duplicates (knowledge.Base.NearDuplicate)
// of the learnings recent syncs brought in: two machines that learned the
// same lesson each wrote it, under different ids.
func (r *Report) checkPulledDuplicates(ctx context.Context, c *config.Config, ix *index.Index) {
	ids := kbsync.RecentlyPulled(c.StateDir)
	if len(ids) == 0 {
		return
	}
	k := knowledge.New(ix)
	seen := map[[2]string]bool{}
	var pairs []string
	for _, id := range ids {
		l, err := k.Store().Read(id)
		if err != nil {
			continue // forgotten since, or malformed (reported above)
		}
		dup, ok, err := k.NearDuplicate(ctx, l)
		if err != nil || !ok {
			continue
		}
		key := [2]string{min(id, dup.ID), max(id, dup.ID)}
		if seen[key] {
			continue
		}
		seen[key] = true
		r.Duplicates = append(r.Duplicates, Duplicate{ID: id, Of: dup.ID, Share: dup.Share})
		pairs = append(pairs, id+" ≈ "+dup.ID)
	}
	if len(pairs) == 0 {
		r.add(Check{Name: "pulled duplicates", Status: OK, Detail: fmt.Sprintf("none among the %d learnings recent syncs brought in", len(ids))})
		return
	}
	r.add(Check{Name: "pulled duplicates", Status: Warn,
		Detail: fmt.Sprintf("%d near-duplicate pair(s) arrived by sync: %s", len(pairs), strings.Join(pairs, "; ")),
		Fix:    "the next 'reflect drain' folds each pair into one (or keep one yourself: 'reflect show ID' to compare, 'reflect forget ID' for the other)"})
}

// checkSync reports, once 'reflect sync init' made the learnings directory
// a git repository, how the last background sync (sync.auto) ended: it
// runs detached, so a failure is otherwise seen by no one.
func (r *Report) checkSync(c *config.Config) {
	if _, err := os.Stat(filepath.Join(c.LearningsDir, ".git")); err != nil {
		return
	}
	mode := "manual ('reflect sync')"
	if c.Sync.Auto {
		mode = "automatic (sync.auto, every " + c.Sync.PullInterval.String() + " at session start and after drains)"
	}
	data, err := os.ReadFile(filepath.Join(c.StateDir, "last-sync.json"))
	if err != nil {
		r.add(Check{Name: "sync", Status: OK, Detail: mode + "; no background sync has run"})
		return
	}
	var last struct {
		At    time.Time `json:"at"`
		OK    bool      `json:"ok"`
		Error string    `json:"error"`
	}
	if err := json.Unmarshal(data, &last); err != nil {
		r.add(Check{Name: "sync", Status: Warn, Detail: "last-sync.json: " + err.Error(), Fix: "run 'reflect sync'"})
		return
	}
	when := last.At.UTC().Format(time.RFC3339)
	if !last.OK {
		msg, _, _ := strings.Cut(last.Error, "\n")
		r.add(Check{Name: "sync", Status: Warn, Detail: fmt.Sprintf("%s; the background sync at %s failed: %s", mode, when, msg),
			Fix: "run 'reflect sync' to see what to do"})
		return
	}
	r.add(Check{Name: "sync", Status: OK, Detail: fmt.Sprintf("%s; last background sync at %s", mode, when)})
}

// installBinary is the reflect binary the hooks check compares installed
// entries with (empty: the running one; tests name a fixed path).
var installBinary = ""

// checkHooks says, for every agent, whether reflect's hooks are in its
// settings, the agent's version and whether it will run them: the first
// thing to look at when nothing is ever recalled. A dry-run uninstall
// (inside agents.Statuses) finds exactly the entries install adds and
// writes nothing; a dry-run install then tells entries this reflect would
// rewrite (another binary path, timeout or command form, as after an
// upgrade).
func (r *Report) checkHooks(ctx context.Context, dirs agents.Dirs) {
	r.Agents = agents.Statuses(ctx, dirs)
	for _, st := range r.Agents {
		agent := st.Agent
		name := agent + " hooks"
		switch {
		case st.Error != "":
			r.add(Check{Name: name, Status: Warn, Detail: st.Error})
		case st.Installed:
			detail := fmt.Sprintf("%d hook entries in %s%s", st.Entries, st.Path, versionNote(st))
			// An error here (a reflect run from a build directory) leaves
			// the entries' presence as the answer.
			if ins, err := agents.Install(agents.InstallOptions{Agent: agent, DryRun: true, Binary: installBinary, Dirs: dirs}); err == nil && len(ins.Updated) > 0 {
				r.add(Check{Name: name, Status: Warn, Detail: fmt.Sprintf("%s; %d written by another reflect (binary path or command differs)", detail, len(ins.Updated)),
					Fix: "run 'reflect install " + agent + "' to update them"})
			} else if _, perHook := hookCheckOf(agent); !st.HooksRun && !perHook {
				// An agent with a check per hook gets those below.
				r.add(Check{Name: name, Status: Warn, Detail: detail + "; " + st.Name + " will not run them: " + st.Detail,
					Fix: "fix " + st.Path + " as it says"})
			} else {
				r.add(Check{Name: name, Status: OK, Detail: detail})
			}
			r.checkWillRun(agent, st.Path)
		default:
			r.add(Check{Name: name, Status: OK, Detail: "not installed (run 'reflect install " + agent + "' to use reflect with it)" + versionNote(st)})
		}
	}
}

// hookCheck is, for an agent that can skip an installed hook without a
// word, the check that says per hook of reflect's whether it will run.
// Each lives in the agent's file (codex.go, gemini.go); hookChecks lists
// them.
type hookCheck struct {
	agent string
	check func(r *Report, path string)
}

// hookChecks are the agents with a check per hook (agents/registry_test.go
// holds them to agents.Registry's Doctor files).
var hookChecks = []hookCheck{codexHookCheck, geminiHookCheck}

// HookCheckAgents are the agents doctor checks hook by hook.
func HookCheckAgents() []string {
	names := make([]string, len(hookChecks))
	for i, c := range hookChecks {
		names[i] = c.agent
	}
	return names
}

func hookCheckOf(agent string) (hookCheck, bool) {
	for _, c := range hookChecks {
		if c.agent == agent {
			return c, true
		}
	}
	return hookCheck{}, false
}

// checkWillRun adds, for agents that can skip an installed hook, whether
// each of reflect's will run.
func (r *Report) checkWillRun(agent, path string) {
	if c, ok := hookCheckOf(agent); ok {
		c.check(r, path)
	}
}

// versionNote names the agent's version for a check's detail, when known.
func versionNote(st agents.AgentStatus) string {
	if st.Version == "" {
		return ""
	}
	return "; " + st.Name + " " + st.Version
}

// checkWriter reports which writer the drainer will use and why.
func (r *Report) checkWriter(c *config.Config) {
	// The same translation as cmd/reflect's writerChoice: doctor reports
	// the writer a drain started with this configuration would use.
	w, why, err := writer.Select(writer.Choice{
		Name: c.Drain.Writer, Command: c.Drain.Command, StateDir: c.StateDir,
		Origin: c.Origin["drain.writer"], CommandOrigin: c.Origin["drain.command"], ConfigFile: c.File,
	}, nil)
	if err != nil {
		r.add(Check{Name: "writer", Status: Fail, Detail: err.Error(),
			Fix: "install it, or set drain.writer / REFLECT_WRITER to builtin"})
		return
	}
	r.Writer = w.Name()
	kind := "no LLM, nothing spent"
	if writer.LLM(w.Name()) {
		kind = "an LLM: each run spends from your account"
	}
	r.add(Check{Name: "writer", Status: OK, Detail: w.Name() + " (" + kind + "; " + why + ")"})
	r.checkSpend(c)
}

// checkSpend reports today's writer runs and spend against the daily caps,
// the spend in cents under a dollar: a run that cost a tenth of a cent is
// not "$0.00".
func (r *Report) checkSpend(c *config.Config) {
	spend, err := drain.TodaySpend(c.StateDir, time.Now())
	if err != nil {
		r.add(Check{Name: "spend today", Status: Warn, Detail: err.Error()})
		return
	}
	r.Today = &spend
	capUSD := "no daily cap (drain.daily_usd = 0)"
	if c.Drain.DailyUSD > 0 {
		capUSD = "of " + money.USD(c.Drain.DailyUSD) + " a day (drain.daily_usd)"
	}
	ch := Check{Name: "spend today", Status: OK,
		Detail: fmt.Sprintf("%d writer run(s) of %d a day (drain.daily_max), %s spent %s", spend.Entries, c.Drain.DailyMax, money.USD(spend.USD), capUSD)}
	if (c.Drain.DailyUSD > 0 && spend.USD >= c.Drain.DailyUSD) || spend.Entries >= c.Drain.DailyMax {
		ch.Status, ch.Fix = Warn, "today's budget is spent: drains wait for the next UTC day (raise drain.daily_usd or drain.daily_max with 'reflect config set')"
	}
	r.add(ch)
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
	codesBefore, _ := ix.VectorCodesProblem(ctx)
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
	case errors.Is(err, index.ErrBusy):
		// A rebuild in progress holds the write lock the check needs: on
		// main this read "fail … database is locked".
		r.add(Check{Name: "index integrity", Status: Warn, Detail: "another process is updating the index, in progress: " + err.Error(),
			Fix: "run 'reflect doctor' again when that update ends"})
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
	r.checkPulledDuplicates(ctx, c, ix)
	r.checkVectors(ctx, c, ix, vecBefore)
	r.checkVectorCodes(ctx, ix, codesBefore)
}

// checkVectorCodes checks vectors.i8, the int8 codes a search scans before
// rescoring from vectors.f32, row by row, and makes it anew from
// vectors.f32 when it is missing, stale or damaged: without it searches
// return the same results, slower. codesBefore is what was wrong before
// the refresh, which makes missing or stale codes anew itself.
func (r *Report) checkVectorCodes(ctx context.Context, ix *index.Index, codesBefore string) {
	problem, err := ix.VectorCodesProblem(ctx)
	if err != nil {
		return
	}
	if problem != "" {
		if err := ix.RewriteVectorCodes(ctx); err != nil {
			r.add(Check{Name: "vector codes", Status: Warn, Detail: problem + "; searches scan the vectors instead, slower: " + err.Error(),
				Fix: "run 'reflect reindex'"})
			return
		}
		if again, err := ix.VectorCodesProblem(ctx); err == nil && again != "" {
			r.add(Check{Name: "vector codes", Status: Warn, Detail: again + "; searches scan the vectors instead, slower",
				Fix: "run 'reflect reindex'"})
			return
		}
	}
	if codesBefore == "" {
		codesBefore = problem
	}
	if codesBefore != "" {
		r.add(Check{Name: "vector codes", Status: OK, Detail: "repaired: " + codesBefore + "; made anew from the vectors"})
	}
}

// checkVectors reports the embedder and how many vectors a search scans
// (exactly, every one: ARCHITECTURE §5).
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
	n, err := ix.VectorCount(ctx)
	switch {
	case err != nil:
		r.add(Check{Name: "vectors", Status: Warn, Detail: name + ": " + err.Error(), Fix: "run 'reflect reindex'"})
		return
	case n == 0:
		r.add(Check{Name: "vectors", Status: OK, Detail: name + ": no vectors yet"})
		return
	}
	r.Vectors = n
	r.add(Check{Name: "vectors", Status: OK, Detail: fmt.Sprintf("%s, %s vectors, searched by exact scan", name, thousands(n))})
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
