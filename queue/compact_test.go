package queue

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestClaimMovesMalformedLinesAside(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	good := []string{
		rawLine(t, Record{ID: "q-1", TranscriptPath: "/t/1.jsonl", SessionID: "s1"}),
		rawLine(t, Record{ID: "q-2", TranscriptPath: "/t/2.jsonl", SessionID: "s2"}),
		// A newer version's field is no reason to set a record aside.
		strings.TrimSuffix(rawLine(t, Record{ID: "q-3", TranscriptPath: "/t/3.jsonl", SessionID: "s3"}), "}") + `,"future_field":1}`,
	}
	badLines := map[int]string{ // line number → content
		2:  `not json at all`,
		4:  `{"id":"q-bad","attempts":"many"}`,
		5:  `{"session_id":"no id"}`,
		6:  `{"id":"q-nopath","session_id":"s"}`,
		7:  "{\"id\":\"q-bin\xff\xfe\"",  // invalid UTF-8 must survive byte for byte
		10: `{"id":"q-torn","transcript`, // a crashed writer: no final newline
	}
	content := good[0] + "\n" + badLines[2] + "\n" + good[1] + "\n" + badLines[4] + "\n" + badLines[5] + "\n" +
		badLines[6] + "\n" + badLines[7] + "\n\n" + good[2] + "\n" + badLines[10]
	writeQueue(t, q)
	if err := os.WriteFile(q.pendingPath, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, bad := mustList(t, q); len(bad) != len(badLines) {
		t.Fatalf("List reports %d bad lines before Claim, want %d", len(bad), len(badLines))
	}

	claimed, err := q.Claim(q.now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if ids(claimed) != "q-1,q-2,q-3" {
		t.Errorf("Claim = %s, want the good records in order", ids(claimed))
	}
	if got, want := readString(t, q.pendingPath), strings.Join(good, "\n")+"\n"; got != want {
		t.Errorf("queue after Claim =\n%s\nwant the good lines byte for byte:\n%s", got, want)
	}
	if _, bad := mustList(t, q); len(bad) != 0 {
		t.Errorf("List still reports bad lines: %+v", bad)
	}
	if d := q.Depth(); d != 3 {
		t.Errorf("Depth = %d, want 3", d)
	}

	moved, err := q.ListMalformed()
	if err != nil {
		t.Fatal(err)
	}
	if len(moved) != len(badLines) {
		t.Fatalf("ListMalformed = %+v, want %d lines", moved, len(badLines))
	}
	for _, m := range moved {
		if badLines[m.Line] != m.Text || m.Reason == "" || !m.MovedAt.Equal(q.now()) {
			t.Errorf("moved line %d = %q (reason %q, at %v), want %q with a reason", m.Line, m.Text, m.Reason, m.MovedAt, badLines[m.Line])
		}
	}
	// The file itself is JSON lines a human can read.
	for i, l := range strings.Split(strings.TrimSuffix(readString(t, q.malformedPath), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["reason"] == nil || m["line"] == nil {
			t.Errorf("malformed.jsonl line %d = %s (%v)", i+1, l, err)
		}
	}

	// Nothing left to move: a second Claim neither moves nor rewrites.
	fi, _ := os.Stat(q.pendingPath)
	if again, err := q.Claim(q.now(), 2); err != nil || ids(again) != "q-1,q-2" {
		t.Errorf("second Claim = %s, %v", ids(again), err)
	}
	if fi2, _ := os.Stat(q.pendingPath); !os.SameFile(fi, fi2) {
		t.Error("a tidy queue was rewritten")
	}
	if again, _ := q.ListMalformed(); len(again) != len(badLines) {
		t.Errorf("ListMalformed after a second Claim = %d lines, want %d", len(again), len(badLines))
	}
}

func TestCompact(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	at := func(h int) *time.Time { t := time.Date(2026, 11, 22, h, 0, 0, 0, time.UTC); return &t }
	lines := []string{
		rawLine(t, Record{ID: "q-a1", TranscriptPath: "/t/a", SessionID: "a", Cwd: "/first"}),
		rawLine(t, Record{ID: "q-b1", TranscriptPath: "/t/b", SessionID: "b", Attempts: 1, NotBefore: at(13)}),
		"",
		rawLine(t, Record{ID: "q-a2", TranscriptPath: "/t/a", SessionID: "a", Attempts: 2, NotBefore: at(11), Cwd: "/second"}),
		"   ",
		"garbage",
		rawLine(t, Record{ID: "q-c1", TranscriptPath: "/t/c", SessionID: "c"}),
		rawLine(t, Record{ID: "q-b2", TranscriptPath: "/t/b", SessionID: "other session, same file", Attempts: 0, NotBefore: at(12)}),
		rawLine(t, Record{ID: "q-a3", TranscriptPath: "/t/a", SessionID: "a", Attempts: 1, NotBefore: at(14)}),
		rawLine(t, Record{ID: "q-d1", TranscriptPath: "/t/d", SessionID: "a"}), // same session, other file: not a duplicate
	}
	writeQueue(t, q, lines...)

	st, err := q.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if want := (CompactStats{Records: 4, Blank: 2, Duplicates: 3, Malformed: 1}); st != want {
		t.Errorf("Compact = %+v, want %+v", st, want)
	}
	recs, bad := mustList(t, q)
	if ids(recs) != "q-a1,q-b1,q-c1,q-d1" || len(bad) != 0 {
		t.Fatalf("after Compact: %s, bad %+v; want the oldest of each transcript, in place", ids(recs), bad)
	}
	// q-a1 takes the highest attempts (q-a2) and latest not_before (q-a3)
	// of its group but keeps its own id, queued_at and fields.
	a := recs[0]
	if a.Attempts != 2 || a.NotBefore == nil || !a.NotBefore.Equal(*at(14)) || a.Cwd != "/first" || a.SessionID != "a" {
		t.Errorf("merged a = %+v", a)
	}
	// q-b1 is already furthest along: its line is kept byte for byte, as
	// are the untouched ones.
	data := readString(t, q.pendingPath)
	for _, i := range []int{1, 6, 9} {
		if !strings.Contains(data, lines[i]+"\n") {
			t.Errorf("line %q was not kept byte for byte", lines[i])
		}
	}
	if m, _ := q.ListMalformed(); len(m) != 1 || m[0].Text != "garbage" || m[0].Line != 6 {
		t.Errorf("ListMalformed = %+v", m)
	}

	// A tidy queue is left alone.
	fi, _ := os.Stat(q.pendingPath)
	if st, err := q.Compact(); err != nil || st != (CompactStats{Records: 4}) {
		t.Errorf("second Compact = %+v, %v", st, err)
	}
	if fi2, _ := os.Stat(q.pendingPath); !os.SameFile(fi, fi2) {
		t.Error("a tidy queue was rewritten")
	}
}

// TestRequeueDuplicateIsMerged covers a poisoned record requeued while its
// transcript was queued again: Claim hands the drainer one record for it.
func TestRequeueDuplicateIsMerged(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	tr := writeTranscript(t, t.TempDir(), "t.jsonl", "x\n")
	mustEnqueue(t, q, testRecord(tr, "s"))
	recs, _ := mustList(t, q)
	if poisoned, err := q.Retry(recs[0].ID, q.now(), 1, "failed"); err != nil || !poisoned {
		t.Fatal(poisoned, err)
	}
	appendTo(t, tr, "new turn\n")
	mustEnqueue(t, q, testRecord(tr, "s"))
	if err := q.Requeue(recs[0].ID); err != nil {
		t.Fatal(err)
	}
	if d := q.Depth(); d != 2 {
		t.Fatalf("Depth = %d, want 2 before the merge", d)
	}
	claimed, err := q.Claim(q.now(), 0)
	if err != nil || len(claimed) != 1 || claimed[0].TranscriptPath != tr {
		t.Errorf("Claim = %+v, %v; want one record for the transcript", claimed, err)
	}
}

func TestCompactPrunesLedger(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	dir := t.TempDir()
	a := writeTranscript(t, dir, "a.jsonl", "1\n")
	c := writeTranscript(t, dir, "c.jsonl", "c\n")
	markHashed(t, q, a)
	appendTo(t, a, "2\n")
	markHashed(t, q, a)
	if err := q.MarkProcessed(Processed{Path: filepath.Join(dir, "gone.jsonl"), Size: 1, SHA256: "ab", Outcome: "reflected"}); err != nil {
		t.Fatal(err)
	}
	appendTo(t, q.processedPath, `{"path":"torn`+"\n")
	markHashed(t, q, c)
	before := strings.Split(readString(t, q.processedPath), "\n")

	st, err := q.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if st.LedgerPruned != 2 {
		t.Errorf("LedgerPruned = %d, want 2 (a's older entry and the gone transcript)", st.LedgerPruned)
	}
	if got, want := readString(t, q.processedPath), strings.Join([]string{before[1], before[3], before[4], ""}, "\n"); got != want {
		t.Errorf("ledger after Compact =\n%s\nwant, byte for byte:\n%s", got, want)
	}
	for _, tr := range []string{a, c} {
		if ok, reason, _ := q.Enqueue(testRecord(tr, tr)); ok || reason != ReasonAlreadyReflected {
			t.Errorf("Enqueue(%s) after pruning = %v, %q; want still covered", tr, ok, reason)
		}
	}
	if st, _ := q.Compact(); st.LedgerPruned != 0 {
		t.Errorf("second Compact pruned %d entries", st.LedgerPruned)
	}

	// Entries appended between the examination and the rewrite are kept;
	// a ledger rewritten meanwhile is left alone.
	if err := os.Remove(c); err != nil {
		t.Fatal(err)
	}
	old := []byte(readString(t, q.processedPath))
	drop := ledgerDrops(old)
	markHashed(t, q, a)
	appended := readString(t, q.processedPath)[len(old):]
	if n, err := q.dropLedgerLines(old, drop); n != 1 || err != nil {
		t.Fatalf("dropLedgerLines = %d, %v; want c's entry dropped", n, err)
	}
	if got := readString(t, q.processedPath); got != before[1]+"\n"+before[3]+"\n"+appended {
		t.Errorf("ledger = %q, want a's entry, the torn line and the appended entry", got)
	}
	now := []byte(readString(t, q.processedPath))
	if n, err := q.dropLedgerLines(old, drop); n != 0 || err != nil || readString(t, q.processedPath) != string(now) {
		t.Errorf("dropLedgerLines on a rewritten ledger = %d, %v, or changed it", n, err)
	}
}
