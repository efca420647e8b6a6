package backfill

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/transcript"
)

// testdata/opencode.db is the database OpenCode 1.18.33 wrote for one
// `opencode run` (e2e TestBackfillOpenCode, its WAL checkpointed): a
// prompt, a bash call that failed, an answer.
const (
	ocFixtureSession = "ses_dddc2ca07ffeDgPYsWJhiMg0nz"
	ocFixtureDir     = "/tmp/TestBackfillOpenCode1184585878/001/src/widget-service"
	ocFixtureCommand = "ls /nonexistent/widget-cache"
)

// openCodeWorld is newWorld with OpenCode's database under
// $XDG_DATA_HOME, its session last updated at updated; edit, when set,
// changes the database first (the test's own copy).
func openCodeWorld(t *testing.T, updated time.Time, edit func(db *sql.DB)) (w *world, dbPath, copyPath string) {
	t.Helper()
	w = newWorld(t)
	w.dirs.XDGData = filepath.Join(w.dirs.Home, "xdg-data")
	dbPath = filepath.Join(w.dirs.XDGData, "opencode", "opencode.db")
	data, err := os.ReadFile(filepath.Join("testdata", "opencode.db"))
	if err != nil {
		t.Fatal(err)
	}
	w.write(t, dbPath, data, clock.Add(-time.Hour))
	db, err := sql.Open("sqlite3", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE session SET time_updated = ?`, updated.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(db)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return w, dbPath, filepath.Join(w.dirs.StateDir, "transcripts", "opencode", ocFixtureSession+".jsonl")
}

// sessionsOf is the plan's sessions with the id.
func sessionsOf(p *Plan, id string) []Session {
	var out []Session
	for _, s := range p.Sessions {
		if s.SessionID == id {
			out = append(out, s)
		}
	}
	return out
}

func TestOpenCodeDatabaseSessionPlannedQueuedOnce(t *testing.T) {
	t.Parallel()
	w, dbPath, copyPath := openCodeWorld(t, clock.Add(-time.Hour), nil)
	before, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	p := w.plan(t, Options{Agents: []string{"opencode"}})
	got := sessionsOf(p, ocFixtureSession)
	if len(got) != 1 || got[0].Agent != "opencode" || got[0].Status != StatusNew || got[0].Cwd != ocFixtureDir ||
		got[0].Path != copyPath || got[0].Condensed == 0 {
		t.Fatalf("plan of the database's session: %+v (problems %+v)", got, p.Problems)
	}
	if !got[0].Modified.Equal(clock.Add(-time.Hour).Truncate(time.Millisecond)) {
		t.Errorf("the copy is dated %v, want the session's time_updated %v", got[0].Modified, clock.Add(-time.Hour))
	}
	// The copy is what the condenser reads of a plugin's copy: the
	// prompt, the failed command and its output.
	c, err := transcript.Condense(copyPath, "opencode", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if c.SessionID != ocFixtureSession || !strings.Contains(c.Text, ocFixtureCommand) ||
		!strings.Contains(c.Text, "Where does sprocket read its configuration from?") || !strings.Contains(c.Text, "No such file or directory") {
		t.Errorf("condensed copy (session %q):\n%s", c.SessionID, c.Text)
	}
	_, res := w.run(t, Options{Agents: []string{"opencode"}})
	if res.Queued != 2 { // the database's session and the plugin copy of newWorld
		t.Errorf("run queued %d, want 2: %+v", res.Queued, res)
	}
	p2, res2 := w.run(t, Options{Agents: []string{"opencode"}})
	if res2.Queued != 0 || p2.Total.New != 0 || len(sessionsOf(p2, ocFixtureSession)) != 1 {
		t.Errorf("second run: queued %d, plan %+v", res2.Queued, p2.Sessions)
	}
	after, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("backfill changed OpenCode's database")
	}
	if ents, _ := os.ReadDir(filepath.Dir(dbPath)); len(ents) != 1 {
		t.Errorf("backfill created files beside OpenCode's database: %v", ents)
	}
}

func TestOpenCodeDatabaseLeavesPluginCopy(t *testing.T) {
	t.Parallel()
	w, _, copyPath := openCodeWorld(t, clock.Add(-2*time.Hour), nil)
	// The plugin copied the session when it turned idle: a copy written
	// after the session's last update, or just before OpenCode wrote the
	// session's title.
	plugin := []byte(`{"info":{"id":"msg_1","sessionID":"` + ocFixtureSession + `","role":"user","path":{"cwd":"/home/dev/proj"}},"parts":[{"type":"text","text":"the plugin's copy"}]}` + "\n")
	for _, mod := range []time.Time{clock.Add(-90 * time.Minute), clock.Add(-2*time.Hour - 20*time.Second)} {
		w.write(t, copyPath, plugin, mod)
		p := w.plan(t, Options{Agents: []string{"opencode"}})
		if got := sessionsOf(p, ocFixtureSession); len(got) != 1 || got[0].Cwd != "/home/dev/proj" {
			t.Errorf("copy of %v: plan %+v, want the plugin's copy once", mod, got)
		}
		if data, _ := os.ReadFile(copyPath); !bytes.Equal(data, plugin) {
			t.Errorf("copy of %v: the plugin's copy was replaced:\n%s", mod, data)
		}
	}
}

func TestOpenCodeDatabaseUpdatedSinceCopyIsCopiedAgain(t *testing.T) {
	t.Parallel()
	w, _, copyPath := openCodeWorld(t, clock.Add(-time.Hour), nil)
	// A copy older than the session's last update: the session went on
	// without the plugin.
	w.write(t, copyPath, []byte(`{"info":{"id":"msg_1","sessionID":"`+ocFixtureSession+`","role":"user"},"parts":[]}`+"\n"), clock.Add(-3*time.Hour))
	p := w.plan(t, Options{Agents: []string{"opencode"}})
	if got := sessionsOf(p, ocFixtureSession); len(got) != 1 || got[0].Status != StatusNew || got[0].Cwd != ocFixtureDir {
		t.Errorf("plan: %+v", got)
	}
	if data, _ := os.ReadFile(copyPath); !bytes.Contains(data, []byte(ocFixtureCommand)) {
		t.Errorf("the stale copy was not replaced:\n%s", data)
	}
}

func TestOpenCodeDatabaseSessionBeingWrittenIsBusy(t *testing.T) {
	t.Parallel()
	w, _, _ := openCodeWorld(t, clock.Add(-30*time.Second), nil)
	p := w.plan(t, Options{Agents: []string{"opencode"}})
	if got := sessionsOf(p, ocFixtureSession); len(got) != 1 || got[0].Status != StatusBusy {
		t.Errorf("plan of a session updated 30 s ago: %+v", got)
	}
}

func TestOpenCodeDatabaseFilters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"since", Options{Since: clock.Add(-30 * time.Minute)}},
		{"project", Options{Project: "/home/dev/proj"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _, copyPath := openCodeWorld(t, clock.Add(-time.Hour), nil)
			tc.o.Agents = []string{"opencode"}
			p := w.plan(t, tc.o)
			if got := sessionsOf(p, ocFixtureSession); len(got) != 0 {
				t.Errorf("plan: %+v", got)
			}
			if _, err := os.Lstat(copyPath); err == nil {
				t.Error("a session out of range was copied")
			}
		})
	}
}

func TestOpenCodeDatabaseRedactedAndClipped(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 2*ocMaxOutput)
	w, _, copyPath := openCodeWorld(t, clock.Add(-time.Hour), func(db *sql.DB) {
		_, err := db.Exec(`UPDATE part SET data = json_set(data, '$.state.output', ?) WHERE data LIKE '%"tool":"bash"%'`,
			"key AKIAIOSFODNN7EXAMPLE then "+long)
		if err != nil {
			t.Fatal(err)
		}
	})
	w.plan(t, Options{Agents: []string{"opencode"}})
	data, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("AKIAIOSFODNN7EXAMPLE")) || !bytes.Contains(data, []byte("[REDACTED:")) {
		t.Errorf("the copy keeps the secret:\n%.2000s", data)
	}
	if bytes.Contains(data, []byte(long[:ocMaxOutput+1])) {
		t.Error("the tool output was not clipped")
	}
	if !bytes.Contains(data, []byte(`"metadata":{"exit":2,"truncated":false}`)) {
		t.Error("the metadata's copy of the output was kept")
	}
}

func TestOpenCodeDatabaseMissingOrNotAFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.dirs.XDGData = filepath.Join(w.dirs.Home, "none")
	p := w.plan(t, Options{Agents: []string{"opencode"}})
	if len(p.Problems) != 0 || p.Total.Sessions != 1 {
		t.Errorf("no database: problems %+v, sessions %d", p.Problems, p.Total.Sessions)
	}
	if _, err := os.Lstat(filepath.Join(w.dirs.XDGData, "opencode", "opencode.db")); err == nil {
		t.Error("backfill created OpenCode's database")
	}
	if err := os.MkdirAll(filepath.Join(w.dirs.XDGData, "opencode", "opencode.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	p = w.plan(t, Options{Agents: []string{"opencode"}})
	if len(p.Problems) != 1 || !strings.Contains(p.Problems[0].Reason, "not a regular file") {
		t.Errorf("a directory for a database: problems %+v", p.Problems)
	}
}

// TestOpenCodeDatabaseReadsTheLog: with OpenCode running, the latest
// writes are in the write-ahead log, not yet in the file; the read sees
// them.
func TestOpenCodeDatabaseReadsTheLog(t *testing.T) {
	t.Parallel()
	w, dbPath, _ := openCodeWorld(t, clock.Add(-30*time.Second), nil)
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE session SET time_updated = ?`, clock.Add(-time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	p := w.plan(t, Options{Agents: []string{"opencode"}})
	if got := sessionsOf(p, ocFixtureSession); len(got) != 1 || got[0].Status != StatusNew {
		t.Errorf("plan with the update in the log: %+v (problems %+v)", got, p.Problems)
	}
}

// TestOpenCodeDatabaseBounded: a part over the row cap is not loaded and
// a stub stands for it; a message over the plugin's cap is replaced by a
// stub saying so; the rest of the session is copied.
func TestOpenCodeDatabaseBounded(t *testing.T) {
	t.Parallel()
	const user, answer = "msg_2223d3880001pz0TCvrOYVPIlj", "msg_2223d6e0f0016jyeCp0g97AAL5"
	w, _, copyPath := openCodeWorld(t, clock.Add(-time.Hour), func(db *sql.DB) {
		ins := `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, 0, 0, ?)`
		huge := `{"type":"text","text":"` + strings.Repeat("h", ocMaxRowBytes) + `"}`
		if _, err := db.Exec(ins, "prt_z_huge", user, ocFixtureSession, huge); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < ocMaxMessageBytes/ocMaxText+1; i++ {
			text := `{"type":"text","text":"` + strings.Repeat("b", ocMaxText) + `"}`
			if _, err := db.Exec(ins, fmt.Sprintf("prt_z_%03d", i), answer, ocFixtureSession, text); err != nil {
				t.Fatal(err)
			}
		}
	})
	w.plan(t, Options{Agents: []string{"opencode"}})
	fi, err := os.Stat(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 1<<20 {
		t.Errorf("the copy is %d bytes", fi.Size())
	}
	data, _ := os.ReadFile(copyPath)
	for _, want := range []string{"[a part over reflect's cap was left out]", "over reflect's cap, was left out]", ocFixtureCommand} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the copy has no %q:\n%.3000s", want, data)
		}
	}
}
