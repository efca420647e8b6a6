package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// newTestQueue opens a queue on a fresh state directory with a pinned clock.
func newTestQueue(t testing.TB) *Queue {
	t.Helper()
	q, err := Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	q.now = func() time.Time { return time.Date(2026, 11, 22, 10, 42, 0, 123456789, time.UTC) }
	return q
}

// writeTranscript creates a transcript file with content and returns its path.
func writeTranscript(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func testRecord(path, session string) Record {
	return Record{
		TranscriptPath: path,
		SessionID:      session,
		Trigger:        TriggerStop,
		Harness:        HarnessClaude,
		Cwd:            "/home/u/project",
	}
}

func mustEnqueue(t testing.TB, q *Queue, r Record) {
	t.Helper()
	ok, reason, err := q.Enqueue(r)
	if err != nil || !ok {
		t.Fatalf("Enqueue(%s) = %v, %q, %v; want queued", r.SessionID, ok, reason, err)
	}
}

func mustList(t testing.TB, q *Queue) ([]Record, []BadLine) {
	t.Helper()
	recs, bad, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	return recs, bad
}

func markHashed(t testing.TB, q *Queue, path string) {
	t.Helper()
	size, sum, err := HashFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.MarkProcessed(Processed{Path: path, Size: size, SHA256: sum, Outcome: "reflected"}); err != nil {
		t.Fatal(err)
	}
}

func TestEnqueueSkipRules(t *testing.T) {
	t.Parallel()
	const content = `{"type":"user","message":"fix the build"}` + "\n"
	tests := []struct {
		name string
		// setup prepares the queue and returns the record to enqueue; tr is
		// an existing, non-empty transcript in dir.
		setup      func(t *testing.T, q *Queue, dir, tr string) Record
		wantQueued bool
		wantReason string
		wantErr    string
		wantDepth  int // records pending afterwards
	}{
		{
			name:       "new transcript is queued",
			setup:      func(t *testing.T, q *Queue, dir, tr string) Record { return testRecord(tr, "s1") },
			wantQueued: true, wantDepth: 1,
		},
		{
			name:       "no transcript path",
			setup:      func(t *testing.T, q *Queue, dir, tr string) Record { return testRecord("", "s1") },
			wantReason: ReasonNoTranscript,
		},
		{
			name: "transcript does not exist",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				return testRecord(filepath.Join(dir, "gone.jsonl"), "s1")
			},
			wantReason: ReasonTranscriptMissing,
		},
		{
			name: "empty transcript",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				return testRecord(writeTranscript(t, dir, "empty.jsonl", ""), "s1")
			},
			wantReason: ReasonEmptyTranscript,
		},
		{
			name: "same session already pending",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				mustEnqueue(t, q, testRecord(writeTranscript(t, dir, "old.jsonl", content), "s1"))
				return testRecord(tr, "s1")
			},
			wantReason: ReasonAlreadyQueued, wantDepth: 1,
		},
		{
			name: "same transcript pending under another session id",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				mustEnqueue(t, q, testRecord(tr, "s0"))
				return testRecord(tr, "s1")
			},
			wantReason: ReasonAlreadyQueued, wantDepth: 1,
		},
		{
			name: "session id that only appears in another field is not pending",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				other := testRecord(writeTranscript(t, dir, "other.jsonl", content), "s0")
				other.Cwd = "s1"
				mustEnqueue(t, q, other)
				return testRecord(tr, "s1")
			},
			wantQueued: true, wantDepth: 2,
		},
		{
			name: "other session pending",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				mustEnqueue(t, q, testRecord(writeTranscript(t, dir, "other.jsonl", content), "s0"))
				return testRecord(tr, "s1")
			},
			wantQueued: true, wantDepth: 2,
		},
		{
			name: "empty session ids do not match each other",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				mustEnqueue(t, q, testRecord(writeTranscript(t, dir, "other.jsonl", content), ""))
				return testRecord(tr, "")
			},
			wantQueued: true, wantDepth: 2,
		},
		{
			name: "processed at this size and hash",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				markHashed(t, q, tr)
				return testRecord(tr, "s1")
			},
			wantReason: ReasonAlreadyReflected,
		},
		{
			name: "processed at this size but content was rewritten",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				markHashed(t, q, tr)
				same := strings.Replace(content, "fix", "FIX", 1)
				if err := os.WriteFile(tr, []byte(same), 0o600); err != nil {
					t.Fatal(err)
				}
				return testRecord(tr, "s1")
			},
			wantQueued: true, wantDepth: 1,
		},
		{
			name: "processed before the session added turns",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				markHashed(t, q, tr)
				f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if _, err := f.WriteString(`{"type":"assistant"}` + "\n"); err != nil {
					t.Fatal(err)
				}
				return testRecord(tr, "s1")
			},
			wantQueued: true, wantDepth: 1,
		},
		{
			name: "an identical transcript at another path is not covered",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				markHashed(t, q, writeTranscript(t, dir, "twin.jsonl", content))
				return testRecord(tr, "s1")
			},
			wantQueued: true, wantDepth: 1,
		},
		{
			name: "relative transcript path",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				return testRecord("x.jsonl", "s1")
			},
			wantErr: "not absolute",
		},
		{
			name:    "transcript is a directory",
			setup:   func(t *testing.T, q *Queue, dir, tr string) Record { return testRecord(dir, "s1") },
			wantErr: "not a regular file",
		},
		{
			name: "unknown trigger",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				r := testRecord(tr, "s1")
				r.Trigger = "precompact"
				return r
			},
			wantErr: "unknown trigger",
		},
		{
			name: "unknown harness",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				r := testRecord(tr, "s1")
				r.Harness = "cursor"
				return r
			},
			wantErr: "unknown harness",
		},
		{
			name: "oversized session id",
			setup: func(t *testing.T, q *Queue, dir, tr string) Record {
				return testRecord(tr, strings.Repeat("a", maxSessionID+1))
			},
			wantErr: "session id",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t)
			dir := t.TempDir()
			tr := writeTranscript(t, dir, "session.jsonl", content)
			rec := tt.setup(t, q, dir, tr)

			queued, reason, err := q.Enqueue(rec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if queued != tt.wantQueued || reason != tt.wantReason {
				t.Errorf("Enqueue = %v, %q; want %v, %q", queued, reason, tt.wantQueued, tt.wantReason)
			}
			recs, bad := mustList(t, q)
			if len(recs) != tt.wantDepth || len(bad) != 0 {
				t.Errorf("after Enqueue: %d records, %d bad lines; want %d, 0", len(recs), len(bad), tt.wantDepth)
			}
			if tt.wantQueued {
				last := recs[len(recs)-1]
				if last.TranscriptPath != rec.TranscriptPath || last.SessionID != rec.SessionID {
					t.Errorf("queued record = %+v, want the enqueued one", last)
				}
			}
		})
	}
}

func TestEnqueueRecordFormat(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	tr := writeTranscript(t, t.TempDir(), "a & b.jsonl", "x\n")
	rec := testRecord(tr, "8f14e45f-ceea-467f-a8f5-7c1b4e0d1a2b")
	rec.Trigger = TriggerPreCompactAuto
	rec.Harness = HarnessCodex
	mustEnqueue(t, q, rec)

	data, err := os.ReadFile(q.pendingPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(data, []byte("\n")) != 1 || !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("queue file is not exactly one line: %q", data)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"attempts", "cwd", "harness", "id", "not_before", "queued_at", "session_id", "transcript_path", "trigger"}
	if len(m) != len(want) {
		t.Errorf("record has keys %v, want exactly %v", m, want)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("record lacks %q: %s", k, data)
		}
	}
	if m["queued_at"] != "2026-11-22T10:42:00Z" {
		t.Errorf("queued_at = %v, want RFC 3339 UTC at second precision", m["queued_at"])
	}
	if m["not_before"] != nil || m["attempts"] != float64(0) {
		t.Errorf("not_before = %v, attempts = %v; want null and 0", m["not_before"], m["attempts"])
	}
	if m["trigger"] != "precompact-auto" || m["harness"] != "codex" || m["transcript_path"] != tr {
		t.Errorf("fields not stored as given: %s", data)
	}
	id, _ := m["id"].(string)
	if !strings.HasPrefix(id, "q-20261122T104200-") || len(id) != len("q-20261122T104200-")+12 {
		t.Errorf("id = %q, want q-<time>-<12 hex>", id)
	}
	if !bytes.Contains(data, []byte("a & b.jsonl")) {
		t.Errorf("path was HTML-escaped: %s", data)
	}
}

func TestEnqueueAfterTornLine(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	if err := os.MkdirAll(q.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	torn := `{"id":"q-torn","transcript_path":"/x`
	if err := os.WriteFile(q.pendingPath, []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, q, testRecord(writeTranscript(t, t.TempDir(), "t.jsonl", "x\n"), "s1"))
	recs, bad := mustList(t, q)
	if len(recs) != 1 || recs[0].SessionID != "s1" {
		t.Errorf("records = %+v, want the new one intact", recs)
	}
	if len(bad) != 1 || bad[0].Line != 1 || bad[0].Text != torn {
		t.Errorf("bad lines = %+v, want the torn line kept as line 1", bad)
	}
}

func TestListMalformedLines(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	if err := os.MkdirAll(q.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"id":"q-1","transcript_path":"/t/1.jsonl","session_id":"s1","trigger":"stop","harness":"claude","cwd":"/p","queued_at":"2026-11-22T10:42:00Z","attempts":0,"not_before":null}`,
		`not json at all`,
		`{"id":"q-2","transcript_path":"/t/2.jsonl","session_id":"s2","trigger":"stop","harness":"codex","cwd":"/p","queued_at":"2026-11-22T10:43:00Z","attempts":2,"not_before":"2026-11-22T11:00:00Z"}`,
		`{"id":"q-bad","attempts":"many"}`,
		``,
		`{}`,
		`{"id":"q-3","transcript_path":"/t/3.jsonl","session_id":"s3","trigger":"manual","harness":"claude","cwd":"/p","queued_at":"2026-11-22T10:44:00Z","attempts":0,"not_before":null,"future_field":1}`,
		`{"id":"q-torn","transcript`, // no final newline: a crashed writer
	}
	if err := os.WriteFile(q.pendingPath, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, bad := mustList(t, q)

	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, ",") != "q-1,q-2,q-3" {
		t.Errorf("record ids = %v, want q-1,q-2,q-3 in file order", ids)
	}
	if recs[1].Attempts != 2 || recs[1].NotBefore == nil || !recs[1].NotBefore.Equal(time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("q-2 retry fields = %d, %v", recs[1].Attempts, recs[1].NotBefore)
	}
	wantBad := map[int]string{2: lines[1], 4: lines[3], 6: lines[5], 8: lines[7]}
	if len(bad) != len(wantBad) {
		t.Fatalf("bad lines = %+v, want lines 2, 4, 6, 8", bad)
	}
	for _, b := range bad {
		if wantBad[b.Line] != b.Text || b.Reason == "" {
			t.Errorf("bad line %d = %q (reason %q), want %q with a reason", b.Line, b.Text, b.Reason, wantBad[b.Line])
		}
	}
	if got := q.Depth(); got != 7 {
		t.Errorf("Depth = %d, want 7 non-blank lines", got)
	}
}

func TestListAndDepthOnMissingState(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "never-created")
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, bad, err := q.List()
	if err != nil || recs != nil || bad != nil {
		t.Errorf("List = %v, %v, %v; want nothing", recs, bad, err)
	}
	if d := q.Depth(); d != 0 {
		t.Errorf("Depth = %d", d)
	}
	if ok, err := q.Reflected("/x", 1, func() (string, error) { t.Error("hash called"); return "", nil }); ok || err != nil {
		t.Errorf("Reflected = %v, %v", ok, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("read-only calls created the state directory (stat err %v)", err)
	}
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	if _, err := Open(""); err == nil {
		t.Error("Open(\"\") succeeded")
	}
	file := writeTranscript(t, t.TempDir(), "f", "x")
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Open(file) err = %v", err)
	}
}

func TestDrop(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	dir := t.TempDir()
	for _, s := range []string{"s1", "s2", "s3"} {
		mustEnqueue(t, q, testRecord(writeTranscript(t, dir, s+".jsonl", "x\n"), s))
	}
	// A malformed line must survive a rewrite byte for byte.
	f, err := os.OpenFile(q.pendingPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("garbage {\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, _ := mustList(t, q)

	if err := q.Drop(before[1].ID); err != nil {
		t.Fatal(err)
	}
	recs, bad := mustList(t, q)
	if len(recs) != 2 || recs[0] != before[0] || recs[1].ID != before[2].ID {
		t.Errorf("after Drop: %+v, want s1 and s3 unchanged and in order", recs)
	}
	if len(bad) != 1 || bad[0].Text != "garbage {" {
		t.Errorf("bad lines after Drop = %+v, want the garbage line kept", bad)
	}
	fi, err := os.Stat(q.pendingPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("queue mode after Drop = %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(q.dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}

	data, _ := os.ReadFile(q.pendingPath)
	for _, id := range []string{before[1].ID, "q-unknown", ""} {
		err := q.Drop(id)
		// The library names the id; the hint naming a command is
		// cmd/reflect's to give.
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), fmt.Sprintf("%q", id)) || strings.Contains(err.Error(), "reflect ") {
			t.Errorf("Drop(%q) err = %v, want ErrNotFound naming the id and no command", id, err)
		}
	}
	if after, _ := os.ReadFile(q.pendingPath); !bytes.Equal(after, data) {
		t.Error("a failed Drop changed the queue file")
	}

	// The dropped session can be queued again.
	mustEnqueue(t, q, testRecord(before[1].TranscriptPath, "s2"))
}

func TestReflected(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	tr := writeTranscript(t, t.TempDir(), "t.jsonl", "hello\n")
	markHashed(t, q, tr)
	// Noise the ledger reader must skip: a torn line and another path.
	if err := appendLine(q.processedPath, []byte(`{"path":`+string(jsonString(tr))+`,"size":6,"sha`+"\n")); err != nil {
		t.Fatal(err)
	}
	if err := q.MarkProcessed(Processed{Path: tr + ".other", Size: 6, SHA256: "00", Outcome: "reflected"}); err != nil {
		t.Fatal(err)
	}
	_, sum, _ := HashFile(tr)
	poisoned := tr + ".poisoned"
	if err := q.MarkProcessed(Processed{Path: poisoned, Size: 6, SHA256: sum, Outcome: OutcomePoisoned}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		path      string
		size      int64
		hash      string
		hashErr   error
		want      bool
		wantCalls int
		wantErr   bool
	}{
		{name: "same size and hash", path: tr, size: 6, hash: sum, want: true, wantCalls: 1},
		{name: "hash is compared case-insensitively", path: tr, size: 6, hash: strings.ToUpper(sum), want: true, wantCalls: 1},
		{name: "same size, other hash", path: tr, size: 6, hash: "ff", wantCalls: 1},
		{name: "other size is never hashed", path: tr, size: 7, hash: sum},
		{name: "unknown path is never hashed", path: tr + ".new", size: 6, hash: sum},
		{name: "hash error", path: tr, size: 6, hashErr: errors.New("disk on fire"), wantCalls: 1, wantErr: true},
		// A poisoned outcome does not count: a re-armed entry must run.
		{name: "poisoned at this size", path: poisoned, size: 6, hash: sum, wantCalls: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			got, err := q.Reflected(tt.path, tt.size, func() (string, error) {
				calls++
				return tt.hash, tt.hashErr
			})
			if (err != nil) != tt.wantErr || got != tt.want || calls != tt.wantCalls {
				t.Errorf("Reflected = %v, %v with %d hash calls; want %v, err %v, %d calls",
					got, err, calls, tt.want, tt.wantErr, tt.wantCalls)
			}
		})
	}
}

func TestMarkProcessed(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	if err := q.MarkProcessed(Processed{Path: "/t.jsonl"}); err == nil {
		t.Error("MarkProcessed without sha256 succeeded")
	}
	if err := q.MarkProcessed(Processed{Path: "/t.jsonl", Size: 5, SHA256: "ABCD", Outcome: "reflected"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(q.processedPath)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"path":"/t.jsonl","size":5,"sha256":"abcd","outcome":"reflected","at":"2026-11-22T10:42:00.123456789Z"}` + "\n"
	if string(data) != want {
		t.Errorf("ledger = %s, want %s", data, want)
	}
}

func TestFilePermissions(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	tr := writeTranscript(t, t.TempDir(), "t.jsonl", "x\n")
	mustEnqueue(t, q, testRecord(tr, "s1"))
	markHashed(t, q, tr)
	for path, want := range map[string]os.FileMode{
		q.dir: 0o700, q.pendingPath: 0o600, q.lockPath: 0o600, q.processedPath: 0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode = %v, want %v", filepath.Base(path), fi.Mode().Perm(), want)
		}
	}
}

func TestLockIsBounded(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	tr := writeTranscript(t, t.TempDir(), "t.jsonl", "x\n")
	mustEnqueue(t, q, testRecord(tr, "s0"))
	q.lockWait = 100 * time.Millisecond

	// Another process's lock: flock locks belong to the open file, so a
	// second descriptor in this process conflicts just the same.
	held := flock.New(q.lockPath)
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// A busy queue must not drop the capture: the record is spilled, and
	// counts as queued.
	queued, reason, err := q.Enqueue(testRecord(writeTranscript(t, t.TempDir(), "s1.jsonl", "x\n"), "s1"))
	elapsed := time.Since(start)
	if err != nil || !queued || reason != ReasonSpilled {
		t.Errorf("Enqueue under a held lock = %v, %q, %v; want queued, %q", queued, reason, err, ReasonSpilled)
	}
	if elapsed < q.lockWait || elapsed > q.lockWait+500*time.Millisecond {
		t.Errorf("Enqueue gave up after %v, want about %v", elapsed, q.lockWait)
	}
	if _, _, err := q.List(); !errors.Is(err, ErrLocked) {
		t.Errorf("List under an exclusive lock: err = %v, want ErrLocked", err)
	}
	if err := q.Drop("q-x"); !errors.Is(err, ErrLocked) {
		t.Errorf("Drop under a held lock: err = %v, want ErrLocked", err)
	}
	if d := q.Depth(); d != 2 {
		t.Errorf("Depth under a held lock = %d, want 2 (one pending, one spilled) without waiting", d)
	}

	// The three abandoned waits above take the lock once it is free and
	// must give it straight back, or this Enqueue would spill too.
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	q.lockWait = 10 * time.Second
	mustEnqueue(t, q, testRecord(writeTranscript(t, t.TempDir(), "u.jsonl", "x\n"), "s2"))
	if d := q.Depth(); d != 3 {
		t.Errorf("Depth after the lock was released = %d, want 3", d)
	}
	// The spilled record was folded into the queue by that Enqueue, before
	// its own record: the queue keeps the order in which the hooks ran.
	recs, bad := mustList(t, q)
	var sessions []string
	for _, r := range recs {
		sessions = append(sessions, r.SessionID)
	}
	if strings.Join(sessions, ",") != "s0,s1,s2" || len(bad) != 0 {
		t.Errorf("queue after the fold: sessions %v, %d bad lines; want s0,s1,s2", sessions, len(bad))
	}
	if left := q.spilled(); len(left) != 0 {
		t.Errorf("spill files left after the fold: %v", left)
	}
}
