package e2e

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // the test ages OpenCode's session in its database
)

// Backfill with the real clients: each writes a session of its own into
// its usual store, in a world where reflect's hooks were uninstalled before
// it ran, so nothing queued it and `reflect backfill` is the only way in.
// The plan finds it with the right agent, session id and project; a run
// queues it with its harness; a second run queues nothing.

// backfillReport is the part of `reflect backfill --json` read here.
type backfillReport struct {
	Plan   backfillPlan `json:"plan"`
	Result *struct {
		Queued int `json:"queued"`
	} `json:"result"`
}

type backfillPlan struct {
	Sessions []struct {
		Agent     string `json:"agent"`
		Path      string `json:"path"`
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
		Condensed int    `json:"condensed_chars"`
		Status    string `json:"status"`
		Reason    string `json:"reason"`
	} `json:"sessions"`
	Total struct {
		New int `json:"new"`
	} `json:"total"`
}

// backfillWorld is a world for agent whose reflect hooks are removed
// again, so the client's session reaches no queue.
func backfillWorld(t *testing.T, agent string) *world {
	t.Helper()
	w := newWorld(t, agent)
	w.reflectRun("uninstall", agent)
	return w
}

// ageSessions sets every file under the agent's store an hour back:
// backfill leaves alone a session written in the last two minutes (its
// agent probably still has it open), and the client has just written it.
func (w *world) ageSessions(dirs ...string) {
	w.t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, d := range dirs {
		_ = filepath.WalkDir(filepath.Join(w.home, d), func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				if err := os.Chtimes(p, old, old); err != nil {
					w.t.Fatal(err)
				}
			}
			return nil
		})
	}
}

// checkBackfill runs the plan, the backfill and the second backfill for a
// world whose client ran one session, session (its id) in w.repo.
func checkBackfill(t *testing.T, w *world, agent, session string) {
	t.Helper()
	if q := w.pending(); len(q) != 0 {
		t.Fatalf("the queue is not empty before backfill (hooks still installed?): %+v", q)
	}
	var rep backfillReport
	out := w.reflectRun("backfill", "--dry-run", "--json", "--project", w.repo)
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("backfill --dry-run --json: %v\n%s", err, out)
	}
	plan := rep.Plan
	var found int
	for _, s := range plan.Sessions {
		if s.Agent == agent && s.SessionID == session {
			found++
			repo, _ := filepath.EvalSymlinks(w.repo)
			check(t, "backfill/plan-project", s.Cwd == w.repo || s.Cwd == repo, "session %s: cwd %q, want %q", session, s.Cwd, w.repo)
			check(t, "backfill/plan-new", s.Status == "new" && s.Condensed > 0, "session %s: %+v", session, s)
		}
	}
	check(t, "backfill/plan-finds-session", found == 1 && plan.Total.New == 1, "plan of %s session %s:\n%s", agent, session, out)

	w.reflectRun("backfill", "--yes")
	q := w.pending()
	check(t, "backfill/queued", len(q) == 1 && q[0].Harness == agent && q[0].SessionID == session && q[0].TranscriptPath != "",
		"queue after backfill: %+v", q)

	out = w.reflectRun("backfill", "--json", "--yes")
	var again backfillReport
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatalf("second backfill --json: %v\n%s", err, out)
	}
	check(t, "backfill/second-queues-nothing", again.Plan.Total.New == 0 && (again.Result == nil || again.Result.Queued == 0) && len(w.pending()) == 1,
		"second backfill: %s\nqueue: %+v", out, w.pending())
}

func TestBackfillClaude(t *testing.T) {
	setup(t)
	w := backfillWorld(t, "claude")
	first := parseClaude(t, w.client("-p", promptTopic+" Show it to me. FAILCMD:<"+claudeFailCmd+">",
		"--output-format", "json", "--allowedTools", "Bash"))
	if first.SessionID == "" {
		t.Fatalf("claude ran no session: %+v", first)
	}
	w.ageSessions(".claude")
	checkBackfill(t, w, "claude", first.SessionID)
}

func TestBackfillCodex(t *testing.T) {
	setup(t)
	w := backfillWorld(t, "codex")
	w.write(filepath.Join(w.home, ".codex", "config.toml"), codexConfig(w))
	thread, completed := codexThread(t, codexExec(w, promptTopic+" Show it to me. FAILCMD:<"+codexFailCmd+">"))
	if thread == "" || !completed {
		t.Fatalf("codex ran no session: thread %q, completed %v", thread, completed)
	}
	w.ageSessions(".codex")
	checkBackfill(t, w, "codex", thread)
}

func TestBackfillGemini(t *testing.T) {
	setupGemini(t)
	w := newWorld(t, "gemini")
	geminiSettings(w) // before uninstall, which removes the file it made
	w.reflectRun("uninstall", "gemini")
	first := geminiTurn(w, promptTopic+" Show it to me. FAILCMD:<"+claudeFailCmd+">", "")
	if first.SessionID == "" {
		t.Fatalf("gemini ran no session: %+v", first)
	}
	w.ageSessions(".gemini")
	checkBackfill(t, w, "gemini", first.SessionID)
}

func TestBackfillCopilot(t *testing.T) {
	setup(t)
	bin := filepath.Join(extraClient(t, "copilot", "@github/copilot", suite.versions.Copilot), "copilot")
	w := backfillWorld(t, "copilot")
	const session = "0e2e0e2e-0000-4000-8000-0000bacf111d"
	out := w.runAgent(bin, copilotEnv(w), "-p", promptTopic+" FAILCMD:<"+claudeFailCmd+">", "--session-id", session, "--allow-all")
	if !strings.Contains(string(out), "Ran 1 command(s)") {
		t.Logf("copilot printed:\n%s", out)
	}
	w.ageSessions(".copilot")
	checkBackfill(t, w, "copilot", session)
}

// TestBackfillOpenCode: OpenCode keeps its sessions in its own SQLite
// database; with reflect's plugin uninstalled nothing copies them, and
// backfill reads the database itself.
func TestBackfillOpenCode(t *testing.T) {
	setup(t)
	w := backfillWorld(t, "opencode")
	bin, env := openCode(t, w)
	w.runAgent(bin, env, "run", promptTopic+" FAILCMD:<"+claudeFailCmd+">")
	dbPath := filepath.Join(w.home, ".local", "share", "opencode", "opencode.db")
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var session string
	if err := db.QueryRow(`SELECT id FROM session ORDER BY time_created LIMIT 1`).Scan(&session); err != nil {
		t.Fatalf("opencode wrote no session to %s: %v", dbPath, err)
	}
	// Backfill leaves alone a session updated in the last two minutes:
	// set it an hour back, as ageSessions does for the other clients.
	old := time.Now().Add(-time.Hour).UnixMilli()
	if _, err := db.Exec(`UPDATE session SET time_updated = ?`, old); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("E2E_OPENCODE_DB_OUT"); out != "" {
		// Keeps the database for a fixture (backfill/testdata).
		if data, err := os.ReadFile(dbPath); err == nil {
			_ = os.WriteFile(out, data, 0o600)
		}
	}
	checkBackfill(t, w, "opencode", session)
}

// TestBackfillOpenCodePluginCopy: a session reflect's plugin copied (and
// queued) is in OpenCode's database too; backfill plans it once, from
// the plugin's copy, which it leaves as it is.
func TestBackfillOpenCodePluginCopy(t *testing.T) {
	setup(t)
	w := newWorld(t, "opencode")
	bin, env := openCode(t, w)
	w.runAgent(bin, env, "run", promptTopic+" FAILCMD:<"+claudeFailCmd+">")
	q := w.pending()
	if len(q) != 1 || q[0].TranscriptPath == "" {
		t.Fatalf("the plugin queued no session: %+v", q)
	}
	copyBefore, err := os.ReadFile(q[0].TranscriptPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(q[0].TranscriptPath); err == nil {
		db, err := sql.Open("sqlite3", "file:"+filepath.Join(w.home, ".local", "share", "opencode", "opencode.db")+"?mode=ro")
		if err == nil {
			var ms int64
			_ = db.QueryRow(`SELECT time_updated FROM session WHERE id = ?`, q[0].SessionID).Scan(&ms)
			db.Close()
			t.Logf("the session was updated %v after the plugin's copy was written", time.UnixMilli(ms).Sub(fi.ModTime()))
		}
	}
	var rep backfillReport
	out := w.reflectRun("backfill", "--dry-run", "--json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("backfill --dry-run --json: %v\n%s", err, out)
	}
	n := 0
	for _, s := range rep.Plan.Sessions {
		if s.SessionID == q[0].SessionID {
			n++
			// Just written, it is busy (settle) or, once settled, queued:
			// never new, and never a second entry from the database.
			check(t, "backfill/opencode-plugin-copy-queued", (s.Status == "queued" || s.Status == "busy") && s.Path == q[0].TranscriptPath, "session: %+v", s)
		}
	}
	copyAfter, _ := os.ReadFile(q[0].TranscriptPath)
	check(t, "backfill/opencode-plugin-copy-once", n == 1 && rep.Plan.Total.New == 0, "plan:\n%s", out)
	check(t, "backfill/opencode-plugin-copy-kept", string(copyAfter) == string(copyBefore), "the plugin's copy was rewritten")
}
