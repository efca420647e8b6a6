package doctor

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
	_ "github.com/mattn/go-sqlite3"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/testfs"
	"github.com/reflectkb/reflect/store"
)

// faultKB is a KB of three learnings, reindexed, for damaging.
func faultKB(t *testing.T) *config.Config {
	t.Helper()
	home := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	c := &config.Config{StateDir: filepath.Join(home, "state"), LearningsDir: filepath.Join(home, "kb"),
		File: filepath.Join(home, "state", "config.toml"), Origin: map[string]string{}, Agents: config.AgentDirs{Home: home}}
	c.Drain.Writer = "builtin"
	st := store.Open(c.DocumentsDir())
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c"} {
		l := &store.Learning{ID: id, Title: "Title of " + id, Confidence: "high", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		if err := st.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	opts, err := index.SettingsOptions(index.Settings(c.Index), false)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), c.DocumentsDir(), c.IndexDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(context.Background(), index.UpdateOptions{DropRetired: true}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	return c
}

// runBounded runs doctor, failing the test instead of hanging with it.
func runBounded(t *testing.T, c *config.Config) *Report {
	t.Helper()
	done := make(chan *Report, 1)
	go func() { done <- Run(context.Background(), c) }()
	select {
	case r := <-done:
		return r
	case <-time.After(2 * time.Minute):
		t.Fatal("doctor hung")
		return nil
	}
}

// Each damage to vectors.f32 that needed a human on main (a FIFO hung
// doctor, search and reindex; a directory failed every reindex; NaN values
// went unnoticed) is now found, repaired by the refresh, and reported.
func TestDoctorRepairsVectorFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string
	}{
		{"fifo", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := testfs.Mkfifo(path); err != nil {
				t.Skip("mkfifo:", err)
			}
		}, "is a FIFO, not a regular file"},
		{"directory", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "is a directory"},
		{"nan", func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The last float of the last row.
			binary.LittleEndian.PutUint32(data[len(data)-4:], math.Float32bits(float32(math.NaN())))
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "NaN or infinite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := faultKB(t)
			path := filepath.Join(c.IndexDir(), "vectors.f32")
			tc.damage(t, path)
			r := runBounded(t, c)
			ch := checkNamed(r, "vector file")
			if ch == nil || ch.Status != OK || !strings.Contains(ch.Detail, tc.want) || !strings.HasPrefix(ch.Detail, "repaired: ") {
				t.Fatalf("vector file check = %+v, want repaired: …%s…", ch, tc.want)
			}
			fi, err := os.Lstat(path)
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("vectors.f32 after doctor: %v, %v", fi, err)
			}
			// A second run finds nothing to say.
			if ch := checkNamed(runBounded(t, c), "vector file"); ch != nil {
				t.Errorf("second run: %+v", ch)
			}
		})
	}
}

// Doctor covers the state subdirectories hooks write (on main it looked
// only at the state directory itself): a loose mode is a warning, a
// symlink in place of one a failure.
func TestDoctorStateSubdirs(t *testing.T) {
	c := faultKB(t)
	armed := filepath.Join(c.StateDir, "armed")
	injected := filepath.Join(c.StateDir, "session-injected")
	for _, d := range []string{armed, injected} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := runBounded(t, c)
	ch := checkNamed(r, "state subdirectories")
	if ch == nil || ch.Status != Warn || !strings.Contains(ch.Detail, armed+" (mode -rwxr-xr-x)") || !strings.Contains(ch.Detail, injected) {
		t.Errorf("loose subdirectories: %+v", ch)
	}
	if err := os.Remove(armed); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), armed); err != nil {
		t.Fatal(err)
	}
	r = runBounded(t, c)
	if ch := checkNamed(r, "state armed"); ch == nil || ch.Status != Fail || !strings.Contains(ch.Detail, "is not a directory") {
		t.Errorf("symlinked armed/: %+v", ch)
	}
	if r.Healthy() {
		t.Error("a symlinked armed/ is reported healthy")
	}
}

// While another process rebuilds the index (it holds update.lock and the
// catalog is not there yet), doctor says so instead of reporting the index
// as failed.
func TestDoctorDuringRebuild(t *testing.T) {
	c := faultKB(t)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(c.IndexDir(), "catalog.db"+suffix)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	held := flock.New(filepath.Join(c.IndexDir(), "update.lock"))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	r := Run(context.Background(), c, index.BusyWait(200*time.Millisecond))
	ch := checkNamed(r, "index")
	if ch == nil || ch.Status != Warn || !strings.Contains(ch.Detail, "another process is rebuilding") {
		t.Errorf("index check during a rebuild = %+v, want a warning saying so", ch)
	}
	if !r.Healthy() {
		for _, c := range r.Checks {
			if c.Status == Fail {
				t.Errorf("failed check during a rebuild: %+v", c)
			}
		}
	}
}

// While another process's rebuild holds the catalog's write transaction
// (and update.lock), the integrity check, which writes, cannot run: doctor
// says the update is in progress instead of "fail … database is locked"
// (issue 27).
func TestDoctorDuringRebuildTransaction(t *testing.T) {
	c := faultKB(t)
	held := flock.New(filepath.Join(c.IndexDir(), "update.lock"))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(c.IndexDir(), "catalog.db")+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM docs WHERE 0`); err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), c, index.BusyWait(200*time.Millisecond))
	for _, ch := range r.Checks {
		if ch.Status == Fail {
			t.Errorf("failed check during a rebuild: %+v", ch)
		}
	}
	if ch := checkNamed(r, "index integrity"); ch == nil || ch.Status != Warn || !strings.Contains(ch.Detail, "in progress") {
		t.Errorf("integrity check during a rebuild = %+v, want a warning that it is in progress", ch)
	}
}
