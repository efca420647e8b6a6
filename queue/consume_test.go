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
)

// rawLine is a queue line as Enqueue would write it, for tests that need to
// control every field (or the exact bytes) of the queue file.
func rawLine(t testing.TB, r Record) string {
	t.Helper()
	if r.QueuedAt.IsZero() {
		r.QueuedAt = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	}
	if r.Trigger == "" {
		r.Trigger, r.Harness = TriggerStop, HarnessClaude
	}
	b, err := marshalLine(r)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// writeQueue replaces the queue file with lines, each ending in a newline.
func writeQueue(t testing.TB, q *Queue, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(q.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if err := os.WriteFile(q.pendingPath, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readString(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func ids(recs []Record) string {
	var s []string
	for _, r := range recs {
		s = append(s, r.ID)
	}
	return strings.Join(s, ",")
}

func ledger(t testing.TB, q *Queue) []Processed {
	t.Helper()
	var out []Processed
	for _, l := range strings.Split(strings.TrimSpace(readString(t, q.processedPath)), "\n") {
		if l == "" {
			continue
		}
		var p Processed
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("ledger line %q: %v", l, err)
		}
		out = append(out, p)
	}
	return out
}

func appendTo(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	want := []time.Duration{0, time.Minute, 4 * time.Minute, 16 * time.Minute, 64 * time.Minute, 256 * time.Minute, 6 * time.Hour, 6 * time.Hour}
	for n, w := range want {
		if got := Backoff(n); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", n, got, w)
		}
	}
	if got := Backoff(1000); got != 6*time.Hour {
		t.Errorf("Backoff(1000) = %v, want the 6h cap", got)
	}
}

func TestClaimOrderAndNotBefore(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	writeQueue(t, q,
		rawLine(t, Record{ID: "q-1", TranscriptPath: "/t/1", SessionID: "s1"}),
		rawLine(t, Record{ID: "q-2", TranscriptPath: "/t/2", SessionID: "s2", Attempts: 1, NotBefore: at(time.Second)}),
		rawLine(t, Record{ID: "q-3", TranscriptPath: "/t/3", SessionID: "s3", Attempts: 1, NotBefore: at(0)}),
		rawLine(t, Record{ID: "q-4", TranscriptPath: "/t/4", SessionID: "s4", Attempts: 2, NotBefore: at(-time.Hour)}),
		rawLine(t, Record{ID: "q-5", TranscriptPath: "/t/5", SessionID: "s5"}),
	)
	before := readString(t, q.pendingPath)

	tests := []struct {
		now   time.Time
		limit int
		want  string
	}{
		{now, 0, "q-1,q-3,q-4,q-5"}, // q-2 waits one more second; not_before == now is due
		{now, -1, "q-1,q-3,q-4,q-5"},
		{now, 2, "q-1,q-3"},
		{now, 10, "q-1,q-3,q-4,q-5"},
		{now.Add(time.Second), 3, "q-1,q-2,q-3"}, // file order, not not_before order
		{now.Add(-2 * time.Hour), 0, "q-1,q-5"},
	}
	for _, tt := range tests {
		got, err := q.Claim(tt.now, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if ids(got) != tt.want {
			t.Errorf("Claim(now%+v, %d) = %s, want %s", tt.now.Sub(now), tt.limit, ids(got), tt.want)
		}
	}
	// Claiming removes nothing, and a tidy queue is not even rewritten.
	if after := readString(t, q.pendingPath); after != before {
		t.Errorf("Claim changed the queue:\n%s\nwant\n%s", after, before)
	}
	recs, _ := mustList(t, q)
	if len(recs) != 5 {
		t.Errorf("%d records after Claim, want all 5", len(recs))
	}
}

func TestClaimOnMissingQueue(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "never-created")
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if recs, err := q.Claim(time.Now(), 3); recs != nil || err != nil {
		t.Errorf("Claim = %v, %v; want nothing", recs, err)
	}
	if st, err := q.Compact(); st != (CompactStats{}) || err != nil {
		t.Errorf("Compact = %+v, %v; want nothing", st, err)
	}
	if p, err := q.ListPoisoned(); p != nil || err != nil {
		t.Errorf("ListPoisoned = %v, %v", p, err)
	}
	if m, err := q.ListMalformed(); m != nil || err != nil {
		t.Errorf("ListMalformed = %v, %v", m, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("read-only calls created the state directory (stat err %v)", err)
	}
}

func TestAck(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	dir := t.TempDir()
	var trs []string
	for _, s := range []string{"s1", "s2", "s3"} {
		tr := writeTranscript(t, dir, s+".jsonl", `{"turn":"`+s+`"}`+"\n")
		trs = append(trs, tr)
		mustEnqueue(t, q, testRecord(tr, s))
	}
	appendTo(t, q.pendingPath, "garbage {\n") // not Ack's business: kept as is
	before := strings.Split(readString(t, q.pendingPath), "\n")
	recs, _ := mustList(t, q)

	size, sum, err := HashFile(trs[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Ack(recs[1].ID, Processed{Size: size, SHA256: strings.ToUpper(sum), Outcome: "reflected"}); err != nil {
		t.Fatal(err)
	}
	after := readString(t, q.pendingPath)
	if want := strings.Join([]string{before[0], before[2], before[3], ""}, "\n"); after != want {
		t.Errorf("queue after Ack =\n%s\nwant exactly line 2 removed:\n%s", after, want)
	}
	led := ledger(t, q)
	want := Processed{Path: trs[1], Size: size, SHA256: sum, Outcome: "reflected", At: q.now().UTC()}
	if len(led) != 1 || led[0] != want {
		t.Errorf("ledger = %+v, want [%+v]", led, want)
	}
	// The hook that fires next for s2 finds its content reflected.
	if ok, reason, err := q.Enqueue(testRecord(trs[1], "s2")); ok || reason != ReasonAlreadyReflected || err != nil {
		t.Errorf("Enqueue after Ack = %v, %q, %v; want %q", ok, reason, err, ReasonAlreadyReflected)
	}

	// Failures change nothing in the queue.
	for name, tc := range map[string]struct {
		id  string
		p   Processed
		err string
	}{
		"another transcript": {recs[0].ID, Processed{Path: trs[2], Size: 1, SHA256: "ab"}, "record is for"},
		"no hash":            {recs[0].ID, Processed{Size: 1}, "sha256"},
		"unknown id":         {"q-unknown", Processed{Size: 1, SHA256: "ab"}, "not found"},
		"acked already":      {recs[1].ID, Processed{Size: 1, SHA256: "ab"}, "not found"},
	} {
		err := q.Ack(tc.id, tc.p)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: Ack err = %v, want one containing %q", name, err, tc.err)
		}
		if got := readString(t, q.pendingPath); got != after {
			t.Errorf("%s: a failed Ack changed the queue", name)
		}
	}
	if n := len(ledger(t, q)); n != 1 {
		t.Errorf("failed Acks wrote %d ledger entries", n-1)
	}

	// A record a user dropped meanwhile: the content was still reflected.
	if err := q.Drop(recs[0].ID); err != nil {
		t.Fatal(err)
	}
	size0, sum0, _ := HashFile(trs[0])
	err = q.Ack(recs[0].ID, Processed{Path: trs[0], Size: size0, SHA256: sum0, Outcome: "reflected"})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Ack of a dropped record: err = %v, want ErrNotFound", err)
	}
	if led := ledger(t, q); len(led) != 2 || led[1].Path != trs[0] {
		t.Errorf("ledger = %+v, want an entry for the dropped record's transcript", led)
	}
}

// TestAckTranscriptGrew is the edge where the session kept going while the
// drainer reflected it: its hooks skipped as "already queued", so Ack must
// leave a fresh record for the new turns.
func TestAckTranscriptGrew(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	dir := t.TempDir()
	other := writeTranscript(t, dir, "other.jsonl", "x\n")
	tr := writeTranscript(t, dir, "live.jsonl", `{"turn":1}`+"\n")
	rec := testRecord(tr, "live")
	rec.Trigger = TriggerPreCompactAuto
	rec.QueuedAt = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	mustEnqueue(t, q, rec)
	mustEnqueue(t, q, testRecord(other, "other"))
	// The record had failed before: the fresh one must start over.
	queued, _ := mustList(t, q)
	if _, err := q.Retry(queued[0].ID, q.now(), 5, "rate limited"); err != nil {
		t.Fatal(err)
	}

	claimed, err := q.Claim(q.now().Add(time.Hour), 1)
	if err != nil || len(claimed) != 1 || claimed[0].SessionID != "live" {
		t.Fatalf("Claim = %+v, %v", claimed, err)
	}
	size, sum, err := HashFile(tr) // what the drainer reflects
	if err != nil {
		t.Fatal(err)
	}
	appendTo(t, tr, `{"turn":2}`+"\n") // the session goes on...
	if ok, reason, _ := q.Enqueue(testRecord(tr, "live")); ok || reason != ReasonAlreadyQueued {
		t.Fatalf("hook Enqueue = %v, %q; want skipped as already queued", ok, reason)
	}
	if err := q.Ack(claimed[0].ID, Processed{Size: size, SHA256: sum, Outcome: "reflected"}); err != nil {
		t.Fatal(err)
	}

	recs, bad := mustList(t, q)
	if len(recs) != 2 || len(bad) != 0 {
		t.Fatalf("queue after Ack = %+v, %+v; want the other record and a fresh one", recs, bad)
	}
	fresh := recs[1]
	if recs[0].SessionID != "other" || fresh.SessionID != "live" {
		t.Errorf("order = %s, %s; want the fresh record behind the others", recs[0].SessionID, fresh.SessionID)
	}
	if fresh.ID == claimed[0].ID || !strings.HasPrefix(fresh.ID, "q-20261122T104200-") {
		t.Errorf("fresh id = %q, want a new id (acked was %q)", fresh.ID, claimed[0].ID)
	}
	if fresh.TranscriptPath != tr || fresh.Trigger != TriggerPreCompactAuto || fresh.Harness != rec.Harness || fresh.Cwd != rec.Cwd {
		t.Errorf("fresh record = %+v, want the acked one's transcript and fields", fresh)
	}
	if fresh.Attempts != 0 || fresh.NotBefore != nil || !fresh.QueuedAt.Equal(time.Date(2026, 11, 22, 10, 42, 0, 0, time.UTC)) {
		t.Errorf("fresh record attempts=%d not_before=%v queued_at=%v; want 0, nil, now", fresh.Attempts, fresh.NotBefore, fresh.QueuedAt)
	}
	if led := ledger(t, q); len(led) != 1 || led[0].Size != size || led[0].SHA256 != sum {
		t.Errorf("ledger = %+v, want the reflected size %d", led, size)
	}

	// Reflecting the whole transcript leaves nothing behind.
	size2, sum2, _ := HashFile(tr)
	if err := q.Ack(fresh.ID, Processed{Size: size2, SHA256: sum2, Outcome: "reflected"}); err != nil {
		t.Fatal(err)
	}
	if recs, _ := mustList(t, q); len(recs) != 1 || recs[0].SessionID != "other" {
		t.Errorf("queue = %+v, want only the other record", recs)
	}
	// A transcript that vanished has nothing new to reflect.
	size3, sum3, _ := HashFile(other)
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	recs, _ = mustList(t, q)
	if err := q.Ack(recs[0].ID, Processed{Size: size3, SHA256: sum3, Outcome: "reflected"}); err != nil {
		t.Fatal(err)
	}
	if recs, _ := mustList(t, q); len(recs) != 0 {
		t.Errorf("queue = %+v, want empty", recs)
	}
}

func TestRetryBackoffAndPoison(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	dir := t.TempDir()
	tr := writeTranscript(t, dir, "t.jsonl", "boom\n")
	neighbour := writeTranscript(t, dir, "n.jsonl", "x\n")
	// A field from a newer version must survive the rewrites.
	first := rawLine(t, Record{ID: "q-1", TranscriptPath: neighbour, SessionID: "n"})
	line := strings.TrimSuffix(rawLine(t, Record{ID: "q-2", TranscriptPath: tr, SessionID: "s", Cwd: "/p"}), "}") + `,"future":{"x":[1, 2]}}`
	writeQueue(t, q, first, line)

	now := time.Date(2026, 11, 22, 12, 0, 0, 500, time.UTC)
	const maxAttempts = 3
	for attempt, wait := range []time.Duration{time.Minute, 4 * time.Minute} {
		poisoned, err := q.Retry("q-2", now, maxAttempts, "writer exited 1")
		if err != nil || poisoned {
			t.Fatalf("Retry %d = %v, %v; want a backoff", attempt+1, poisoned, err)
		}
		recs, _ := mustList(t, q)
		r := recs[1]
		// not_before is rounded up to the second, never early.
		wantNB := now.Add(wait).Truncate(time.Second).Add(time.Second)
		if r.Attempts != attempt+1 || r.NotBefore == nil || !r.NotBefore.Equal(wantNB) {
			t.Errorf("after Retry %d: attempts=%d not_before=%v; want %d, %v", attempt+1, r.Attempts, r.NotBefore, attempt+1, wantNB)
		}
		if got, _ := q.Claim(wantNB.Add(-time.Second), 0); ids(got) != "q-1" {
			t.Errorf("Claim before not_before = %s, want q-1 only", ids(got))
		}
		if got, _ := q.Claim(wantNB, 0); ids(got) != "q-1,q-2" {
			t.Errorf("Claim at not_before = %s, want q-1,q-2", ids(got))
		}
		data := readString(t, q.pendingPath)
		if !strings.HasPrefix(data, first+"\n") || !strings.Contains(data, `"future":{"x":[1, 2]}`) {
			t.Errorf("Retry rewrote other bytes or dropped an unknown field:\n%s", data)
		}
	}

	verbatim := strings.Split(readString(t, q.pendingPath), "\n")[1]
	reason := "claude: 401 for token ghp_FAKEexample0123456789abcdefghijklmno\n" + strings.Repeat("é", 3000)
	poisoned, err := q.Retry("q-2", now, maxAttempts, reason)
	if err != nil || !poisoned {
		t.Fatalf("Retry %d = %v, %v; want poisoned", maxAttempts, poisoned, err)
	}
	if got := readString(t, q.pendingPath); got != first+"\n" {
		t.Errorf("queue after poisoning = %q, want only the neighbour", got)
	}
	poison := readString(t, q.poisonPath)
	if !strings.HasPrefix(poison, `{"record":`+verbatim+`,"attempts":3,"reason":"claude: 401 for token [REDACTED:`) ||
		!strings.HasSuffix(poison, `,"poisoned_at":"2026-11-22T12:00:00.0000005Z"}`+"\n") {
		t.Errorf("poison.jsonl = %s\nwant the queue line %s verbatim in a wrapper", poison, verbatim)
	}
	if strings.Contains(poison, "ghp_") || len(poison) > maxReason+len(verbatim)+200 {
		t.Errorf("poison reason not redacted or not bounded (%d bytes)", len(poison))
	}
	p, err := q.ListPoisoned()
	if err != nil || len(p) != 1 {
		t.Fatalf("ListPoisoned = %+v, %v", p, err)
	}
	if p[0].Record.ID != "q-2" || p[0].Record.Attempts != 2 || p[0].Attempts != 3 || !p[0].PoisonedAt.Equal(now) || !strings.HasPrefix(p[0].Reason, "claude: 401") {
		t.Errorf("ListPoisoned = %+v", p[0])
	}
	// The ledger covers the poisoned content, so the session's next hook
	// does not queue it for another round of failures; new turns still are.
	led := ledger(t, q)
	if len(led) != 1 || led[0].Path != tr || led[0].Outcome != OutcomePoisoned || led[0].Size != 5 {
		t.Errorf("ledger = %+v, want a poisoned entry for %s", led, tr)
	}
	if ok, reason, _ := q.Enqueue(testRecord(tr, "s")); ok || reason != ReasonAlreadyReflected {
		t.Errorf("Enqueue of poisoned content = %v, %q", ok, reason)
	}
	appendTo(t, tr, "more\n")
	if ok, _, _ := q.Enqueue(testRecord(tr, "s")); !ok {
		t.Error("new turns of a poisoned transcript were not queued")
	}

	if _, err := q.Retry("q-2", now, maxAttempts, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Retry of a poisoned id: err = %v, want ErrNotFound", err)
	}
	if _, err := q.Retry("q-1", now, 0, ""); err == nil {
		t.Error("Retry with maxAttempts 0 succeeded")
	}
}

func TestRetryPoisonsAtOnceWithMaxOne(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	// The transcript is gone: poisoned all the same, with no ledger entry.
	writeQueue(t, q, rawLine(t, Record{ID: "q-1", TranscriptPath: "/nonexistent/t.jsonl"}))
	if poisoned, err := q.Retry("q-1", q.now(), 1, "no such file"); err != nil || !poisoned {
		t.Fatalf("Retry = %v, %v; want poisoned", poisoned, err)
	}
	if led := ledger(t, q); len(led) != 0 {
		t.Errorf("ledger = %+v, want nothing for a missing transcript", led)
	}
	if p, _ := q.ListPoisoned(); len(p) != 1 || p[0].Attempts != 1 {
		t.Errorf("ListPoisoned = %+v", p)
	}
}

func TestRequeue(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	dir := t.TempDir()
	now := q.now()
	var lines []string
	for i := 1; i <= 4; i++ {
		tr := writeTranscript(t, dir, fmt.Sprintf("%d.jsonl", i), "x\n")
		lines = append(lines, rawLine(t, Record{ID: fmt.Sprintf("q-%d", i), TranscriptPath: tr, SessionID: fmt.Sprint(i)}))
	}
	lines[3] = strings.TrimSuffix(lines[3], "}") + `,"future":true}`
	writeQueue(t, q, lines...)
	for _, id := range []string{"q-2", "q-4"} {
		if poisoned, err := q.Retry(id, now, 1, "failed"); err != nil || !poisoned {
			t.Fatalf("Retry(%s) = %v, %v", id, poisoned, err)
		}
	}
	if poisoned, err := q.Retry("q-3", now, 3, "failed"); err != nil || poisoned {
		t.Fatalf("Retry(q-3) = %v, %v", poisoned, err)
	}
	poisonBefore := strings.Split(readString(t, q.poisonPath), "\n")

	// A waiting record becomes due at once and keeps its attempts.
	if err := q.Requeue("q-3"); err != nil {
		t.Fatal(err)
	}
	recs, _ := mustList(t, q)
	if ids(recs) != "q-1,q-3" || recs[1].NotBefore != nil || recs[1].Attempts != 1 {
		t.Errorf("after Requeue(q-3): %+v", recs)
	}
	if err := q.Requeue("q-3"); err != nil {
		t.Errorf("Requeue of a due record: %v, want a no-op", err)
	}

	// A poisoned record goes back to the end of the queue, re-armed.
	if err := q.Requeue("q-4"); err != nil {
		t.Fatal(err)
	}
	recs, _ = mustList(t, q)
	if ids(recs) != "q-1,q-3,q-4" || recs[2].Attempts != 0 || recs[2].NotBefore != nil || recs[2].SessionID != "4" {
		t.Errorf("after Requeue(q-4): %+v", recs)
	}
	if data := readString(t, q.pendingPath); !strings.Contains(data, `"future":true}`) {
		t.Errorf("Requeue dropped an unknown field: %s", data)
	}
	if got := readString(t, q.poisonPath); got != poisonBefore[0]+"\n" {
		t.Errorf("poison.jsonl = %q, want only q-2's line, byte for byte", got)
	}
	if got, _ := q.Claim(now, 0); ids(got) != "q-1,q-3,q-4" {
		t.Errorf("Claim = %s, want the requeued records due", ids(got))
	}

	for _, id := range []string{"q-4x", "", "q-9"} {
		if err := q.Requeue(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Requeue(%q) err = %v, want ErrNotFound", id, err)
		}
	}
}

// TestConsumeKeepsTornLastLine checks that rewrites never glue a record to a
// line a crashed writer left without its newline.
func TestConsumeKeepsTornLastLine(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	tr := writeTranscript(t, t.TempDir(), "t.jsonl", "x\n")
	writeQueue(t, q, rawLine(t, Record{ID: "q-1", TranscriptPath: tr, SessionID: "s"}))
	appendTo(t, q.pendingPath, `{"id":"q-torn","transc`)
	size, sum, _ := HashFile(tr)
	appendTo(t, tr, "grown\n")
	if err := q.Ack("q-1", Processed{Size: size, SHA256: sum, Outcome: "reflected"}); err != nil {
		t.Fatal(err)
	}
	recs, bad := mustList(t, q)
	if len(recs) != 1 || recs[0].SessionID != "s" || len(bad) != 1 || bad[0].Text != `{"id":"q-torn","transc` {
		t.Errorf("after Ack: records %+v, bad %+v; want the fresh record and the torn line apart", recs, bad)
	}
	if !bytes.HasSuffix([]byte(readString(t, q.pendingPath)), []byte("}\n")) {
		t.Error("queue does not end with a whole line")
	}
}

// Interrupted counts an attempt without a backoff: the entry stays due.
func TestInterruptedCountsWithoutBackoff(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	tr := writeTranscript(t, t.TempDir(), "t.jsonl", "x\n")
	writeQueue(t, q, rawLine(t, Record{ID: "q-1", TranscriptPath: tr, SessionID: "s"}))
	if poisoned, err := q.Interrupted("q-1", q.now(), 2, "drainer died"); err != nil || poisoned {
		t.Fatalf("Interrupted = %v, %v", poisoned, err)
	}
	recs, err := q.Claim(q.now(), 0)
	if err != nil || len(recs) != 1 || recs[0].Attempts != 1 || recs[0].NotBefore != nil {
		t.Fatalf("after one interruption: %+v, %v; want due at once with attempts 1", recs, err)
	}
	if poisoned, err := q.Interrupted("q-1", q.now(), 2, "drainer died"); err != nil || !poisoned {
		t.Fatalf("second Interrupted = %v, %v; want poisoned", poisoned, err)
	}
	if p, _ := q.ListPoisoned(); len(p) != 1 || p[0].Reason != "drainer died" {
		t.Errorf("ListPoisoned = %+v", p)
	}
}
