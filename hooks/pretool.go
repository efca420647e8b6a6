package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/cmdkey"
	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/internal/safetext"
	"github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/recall"
)

// Bounds of the pre-tool warning: one line the model reads before its
// command runs, naming the learning so that it can be looked up.
const (
	maxWarningInsight = 300
	maxWarningTitle   = 120
	// maxCandidates bounds the learnings read for one command: the
	// warning names one, the best of the few most recent.
	maxCandidates = 16
	// maxWarnedFile bounds what a session's warned set may hold on disk.
	maxWarnedFile = 64 << 10
)

// preTool warns before a shell command runs when a learning records the
// same command (program and subcommand, any flags) as failing: a one-line
// <reflect-learnings> block with the learning's title and key insight,
// which says the fix. It never blocks nor asks: the agent gets context,
// not a decision. Anything that is not a shell command, names no program,
// or matches nothing prints nothing. A learning is named once per
// session: the model has it in context after that.
func preTool(ctx context.Context, r *invocation) (answer, error) {
	cmd, ok := shellCommand(r.payload.ToolName, r.payload.Raw)
	if !ok {
		return answer{detail: "not a shell command"}, nil
	}
	return warnAbout(ctx, r, cmd)
}

// warnAbout answers the warning for cmd when a learning records the same
// command as failing and the session was not warned about it yet.
func warnAbout(ctx context.Context, r *invocation, cmd string) (answer, error) {
	keys := cmdkey.Keys(cmd)
	if len(keys) == 0 {
		return answer{detail: "no command to look up"}, nil
	}
	ix, err := r.openIndex(ctx)
	if err != nil {
		return answer{}, err
	}
	defer ix.Close()
	hits, err := ix.FailedCommands(ctx, keys, maxCandidates)
	if err != nil {
		return answer{}, err
	}
	if len(hits) == 0 {
		return answer{detail: "no learning about " + keys[0]}, nil
	}
	warned := loadWarned(r.Config.StateDir, r.payload.SessionID)
	best, ok := bestWarning(hits, gitrepo.Project(ctx, r.payload.Cwd), warned)
	if !ok {
		return answer{detail: "already warned about " + keys[0]}, nil
	}
	if r.payload.SessionID != "" {
		warned[best.ID] = r.now.UTC().Format(time.RFC3339)
		if err := saveWarned(r.Config.StateDir, r.payload.SessionID, warned); err != nil {
			// A repeat later is the cost, not this warning.
			logf(r.Config.StateDir, r.now, "%s: %v", r.Event, err)
		}
	}
	// The ledger says why: the command key the learning records as failing.
	rec := recall.Result{Query: "failing command: " + best.Key, Injected: []recall.Hit{{ID: best.ID}}}
	if err := recall.RecordInjection(r.Config.StateDir, r.Agent, r.Event, r.payload.SessionID, rec, r.now); err != nil {
		logf(r.Config.StateDir, r.now, "%s: %v", r.Event, err)
	}
	return answer{context: warning(best), detail: "warned: " + best.Key + " (" + best.ID + ")"}, nil
}

// shellCommand returns the command line of a shell tool call: Claude's and
// Copilot's Bash, Codex's shell tools, Gemini CLI's run_shell_command,
// OpenCode's bash (the plugin sends Claude's field names).
func shellCommand(tool string, raw []byte) (string, bool) {
	if !shellTools[strings.ToLower(tool)] {
		return "", false
	}
	var p struct {
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return "", false
	}
	cmd := commandOf(p.ToolInput)
	return cmd, strings.TrimSpace(cmd) != ""
}

// bestWarning picks the learning to name: never another project's, nor one
// already named in the session; this project's before global ones, then
// by confidence; hits arrive most recently updated first, which breaks
// ties.
func bestWarning(hits []index.CommandHit, project string, warned map[string]string) (index.CommandHit, bool) {
	rank := func(h index.CommandHit) int {
		r := confidenceRank(h.Confidence)
		if project != "" && h.Project == project {
			r += 10
		}
		return r
	}
	var best index.CommandHit
	found := false
	for _, h := range hits {
		if h.Scope != "global" && h.Project != "" && h.Project != project {
			continue
		}
		if _, seen := warned[h.ID]; seen {
			continue
		}
		if !found || rank(h) > rank(best) {
			best, found = h, true
		}
	}
	return best, found
}

func confidenceRank(c string) int {
	switch c {
	case "high":
		return 3
	case "medium":
		return 2
	}
	return 1
}

// warning is the one-line block the agent gets. The learning's text was
// written from transcripts or by hand: it is neutralised to one inline
// line (safetext) so that it cannot close the block or pose as markup.
func warning(h index.CommandHit) string {
	title := text.ClipRunes(safetext.Inline(h.Title), maxWarningTitle)
	line := fmt.Sprintf("reflect: `%s` failed before here — %s", safetext.Inline(h.Key), title)
	if insight := text.ClipRunes(safetext.Inline(h.KeyInsight), maxWarningInsight); insight != "" && insight != title {
		line += ". " + strings.TrimSuffix(insight, ".") + "."
	}
	line += " (" + safetext.Inline(h.ID) + ")"
	return "<reflect-learnings>\n" + line + "\n</reflect-learnings>"
}

func warnedPath(stateDir, sid string) string {
	return filepath.Join(stateDir, "warned", fsutil.SafeName(sid)+".json")
}

// loadWarned reads the learnings a session was warned about. Missing,
// damaged or oversized state reads as none: at worst a warning repeats.
func loadWarned(stateDir, sid string) map[string]string {
	m := map[string]string{}
	if sid == "" {
		return m
	}
	f, err := os.Open(warnedPath(stateDir, sid))
	if err != nil {
		return m
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxWarnedFile {
		return m
	}
	if json.NewDecoder(f).Decode(&m) != nil || m == nil {
		return map[string]string{}
	}
	return m
}

// maxWarned bounds a session's warned set; the oldest go first.
const maxWarned = 200

// saveWarned writes the set atomically. Two pre-tool hooks of one session
// at once may each miss the other's entry: a repeated warning, never a
// lost or torn file.
func saveWarned(stateDir, sid string, m map[string]string) error {
	if len(m) > maxWarned {
		ids := make([]string, 0, len(m))
		for id := range m {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(a, b string) int { return strings.Compare(m[a], m[b]) })
		for _, id := range ids[:len(m)-maxWarned] {
			delete(m, id)
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	path := warnedPath(stateDir, sid)
	if err := fsutil.EnsureStateSubdir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("save warned set: %w", err)
	}
	if err := fsutil.WriteAtomicNoSync(path, data, fsutil.FilePerm); err != nil {
		return fmt.Errorf("save warned set: %w", err)
	}
	return nil
}
