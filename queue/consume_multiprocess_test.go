package queue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Sizes of the consumer race tests: 8 appending processes of 200 records
// each (50 with -short) race one process that rewrites the queue in a loop
// until they are done.
const (
	raceWorkers        = 8
	racePerWorker      = 100
	racePerWorkerShort = 50
	raceVictims        = 30 // records the drainer process works on (12 with -short)
	raceVictimsShort   = 12
)

func racePerWorkerN() int {
	if testing.Short() {
		return racePerWorkerShort
	}
	return racePerWorker
}

// stopped reports whether the parent asked a looping helper to finish.
func stopped(stop string) bool {
	_, err := os.Stat(stop)
	return err == nil
}

// helperCompact dirties the queue under the lock (a blank line, a garbage
// line and a duplicate of the seed record) and the ledger (an entry for a
// transcript that does not exist) and compacts them, over and over until
// stop appears, so that every round really rewrites both files while the
// appenders append. It starts at once, before the appenders' start
// time, so that its first compaction precedes their first append.
func helperCompact(t *testing.T, q *Queue, stop string) {
	recs, _, err := q.List()
	if err != nil || len(recs) != 1 {
		t.Fatalf("List = %+v, %v; want the seed record alone", recs, err)
	}
	seed := recs[0]
	var total CompactStats
	rounds, grew, last := 0, 0, 0
	for !stopped(stop) {
		dup := seed
		dup.ID = fmt.Sprintf("dup-%d", rounds)
		line, err := marshalLine(dup)
		if err != nil {
			t.Fatal(err)
		}
		dirt := append([]byte(fmt.Sprintf("\ngarbage-%d {\n", rounds)), line...)
		gone, err := marshalLine(Processed{Path: fmt.Sprintf("/nonexistent/gone-%d.jsonl", rounds), Size: 1, SHA256: "ab", At: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if err := retryLocked(func() error {
			unlock, err := q.lock(true)
			if err != nil {
				return err
			}
			defer unlock()
			if err := appendLine(q.pendingPath, dirt); err != nil {
				return err
			}
			return appendLine(q.processedPath, gone)
		}); err != nil {
			t.Fatal(err)
		}
		var st CompactStats
		if err := retryLocked(func() (err error) { st, err = q.Compact(); return err }); err != nil {
			t.Fatal(err)
		}
		total.Blank += st.Blank
		total.Duplicates += st.Duplicates
		total.Malformed += st.Malformed
		total.LedgerPruned += st.LedgerPruned
		if st.Records > last && rounds > 0 {
			grew++ // appends landed between two rewrites
		}
		last = st.Records
		rounds++
	}
	fmt.Printf("rounds %d\ngrew %d\nduplicates %d\nmalformed %d\nblank %d\npruned %d\n",
		rounds, grew, total.Duplicates, total.Malformed, total.Blank, total.LedgerPruned)
}

// helperMark appends ledger entries, one per transcript it creates, until
// stop appears: the appends that a ledger compaction must not lose. It
// starts with the appenders and paces itself to last as long as they do.
func helperMark(t *testing.T, q *Queue, transDir string, start int64, stop string) {
	time.Sleep(time.Until(time.Unix(0, start)))
	n := 0
	for ; !stopped(stop); n++ {
		p := writeTranscript(t, transDir, fmt.Sprintf("mark-%d.jsonl", n), "x\n")
		if err := retryLocked(func() error {
			return q.MarkProcessed(Processed{Path: p, Size: 2, SHA256: "ab", Outcome: "reflected"})
		}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Printf("marks %d\n", n)
}

// victim classes: what the drainer process does with victim-i, by i%6.
func victimClass(i int) string {
	switch i % 6 {
	case 0, 3:
		return "ack" // acked once, gone
	case 1, 4:
		return "live" // grows before every ack: a fresh record each time
	case 2:
		return "poison" // retried until stop, then poisoned
	default:
		return "requeue" // retried until stop, poisoned, then requeued
	}
}

// helperDrain plays the drainer against the appenders until stop appears:
// it claims, acks (growing "live" transcripts first, so each ack leaves a
// fresh record) and retries; after stop it poisons the failing records and
// requeues some of them.
func helperDrain(t *testing.T, q *Queue, stop string) {
	far := time.Now().Add(1000 * time.Hour) // every backoff is over by then
	tries := map[string]int{}               // failures so far, by record id
	liveAcks, rounds, grew, lastSeen := 0, 0, 0, 0
	for final := false; !final; rounds++ {
		final = stopped(stop)
		var claimed []Record
		if err := retryLocked(func() (err error) { claimed, err = q.Claim(far, 0); return err }); err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, r := range claimed {
			var i int
			if _, err := fmt.Sscanf(r.SessionID, "victim-%d", &i); err != nil {
				seen++
				continue
			}
			switch c := victimClass(i); {
			case c == "ack" || (c == "live" && !final):
				size, sum, err := HashFile(r.TranscriptPath)
				if err != nil {
					t.Fatal(err)
				}
				if c == "live" {
					appendTo(t, r.TranscriptPath, fmt.Sprintf(`{"turn":%d}`+"\n", rounds))
					liveAcks++
				}
				if err := retryLocked(func() error {
					return q.Ack(r.ID, Processed{Size: size, SHA256: sum, Outcome: "reflected"})
				}); err != nil {
					t.Fatal(err)
				}
			case c == "poison" || c == "requeue":
				// Requeue of a waiting record must keep its attempts.
				if r.Attempts != tries[r.ID] {
					t.Fatalf("record %s has %d attempts, want %d", r.ID, r.Attempts, tries[r.ID])
				}
				tries[r.ID]++
				maxAttempts := 1000
				if final {
					maxAttempts = r.Attempts + 1
				}
				var poisoned bool
				if err := retryLocked(func() (err error) {
					poisoned, err = q.Retry(r.ID, time.Now(), maxAttempts, "writer failed")
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if poisoned != final {
					t.Fatalf("Retry(%s) with %d attempts of %d: poisoned = %v", r.ID, r.Attempts+1, maxAttempts, poisoned)
				}
				// Requeue re-arms a waiting record (every other round)
				// and, at the end, a poisoned one.
				if (c == "requeue" && final) || (!final && rounds%2 == 0) {
					if err := retryLocked(func() error { return q.Requeue(r.ID) }); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if seen > lastSeen && rounds > 0 {
			grew++ // appends landed between two claims
		}
		lastSeen = seen
	}
	fmt.Printf("rounds %d\ngrew %d\nlive-acks %d\n", rounds, grew, liveAcks)
}

// runRace starts helper mode against 8 appending processes (and, with
// mark, a helperMark process) and stops the loops once the appenders are
// done. It returns the looping helpers, mode's first.
func runRace(t *testing.T, q *Queue, transDir, mode string, mark bool) []*helperChild {
	t.Helper()
	stop := filepath.Join(t.TempDir(), "stop")
	// Whatever fails, a looping helper must not outlive the test.
	t.Cleanup(func() { _ = os.WriteFile(stop, nil, 0o600) })
	start := time.Now().Add(time.Second).UnixNano()
	begin := time.Now()
	loopers := []*helperChild{startHelper(t, mode, q.dir, helperStop+"="+stop)}
	if mark {
		loopers = append(loopers, startHelper(t, "mark", q.dir,
			helperTransDir+"="+transDir,
			helperStart+"="+strconv.FormatInt(start, 10),
			helperStop+"="+stop,
		))
	}
	var appenders []*helperChild
	for w := range raceWorkers {
		appenders = append(appenders, startHelper(t, "append", q.dir,
			helperTransDir+"="+transDir,
			helperWorker+"="+strconv.Itoa(w),
			helperCount+"="+strconv.Itoa(racePerWorkerN()),
			helperStart+"="+strconv.FormatInt(start, 10),
		))
	}
	for _, c := range appenders {
		c.wait(t)
	}
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range loopers {
		c.wait(t)
	}
	retries := 0
	for _, c := range append(loopers, appenders...) {
		retries += c.count("lock-retries")
	}
	looper := loopers[0]
	t.Logf("%d appenders × %d records and a %s loop (%d rounds, %d of them after new appends) done in %v; %d operations retried after LockWait",
		raceWorkers, racePerWorkerN(), mode, looper.count("rounds"), looper.count("grew"),
		time.Since(begin).Round(time.Millisecond), retries)
	// Without rounds that saw new appends, nothing raced.
	if !t.Failed() && looper.count("grew") == 0 {
		t.Errorf("no %s round ran between appends; the race was not exercised", mode)
	}
	return loopers
}

// TestCompactRacesAppenders compacts the queue in a loop from one process
// while 8 others append: no appended line may be lost or duplicated, and
// every line the compactor set aside must be in malformed.jsonl once.
func TestCompactRacesAppenders(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	transDir := t.TempDir()
	mustEnqueue(t, q, testRecord(writeTranscript(t, transDir, "seed.jsonl", "x\n"), "seed"))
	loopers := runRace(t, q, transDir, "compact", true)
	compactor, marks := loopers[0], loopers[1].count("marks")
	if t.Failed() {
		return
	}

	others := checkAppended(t, q, transDir, raceWorkers, racePerWorkerN())
	if len(others) != 1 || others[0].SessionID != "seed" {
		t.Errorf("records besides the appended ones: %+v; want the seed alone (duplicates merged)", others)
	}
	rounds := compactor.count("rounds")
	for _, k := range []string{"duplicates", "malformed", "blank", "pruned"} {
		if n := compactor.count(k); n != rounds {
			t.Errorf("compactions removed %d %s lines in %d rounds, want one per round", n, k, rounds)
		}
	}
	moved, err := q.ListMalformed()
	if err != nil {
		t.Fatal(err)
	}
	garbage := map[string]int{}
	for _, m := range moved {
		garbage[m.Text]++
	}
	for i := range rounds {
		if n := garbage[fmt.Sprintf("garbage-%d {", i)]; n != 1 {
			t.Errorf("garbage line %d is %d times in malformed.jsonl, want once", i, n)
		}
	}
	if len(moved) != rounds {
		t.Errorf("malformed.jsonl has %d lines, want %d", len(moved), rounds)
	}
	if d, want := q.Depth(), raceWorkers*racePerWorkerN()+1; d != want {
		t.Errorf("Depth = %d, want %d", d, want)
	}
	// The ledger holds every entry the marker appended, once and in order,
	// and none of the gone ones the compactor added.
	led := ledger(t, q)
	t.Logf("%d ledger entries appended meanwhile", marks)
	if len(led) != marks {
		t.Errorf("ledger has %d entries, want the %d marks", len(led), marks)
	}
	for i, p := range led {
		if want := filepath.Join(transDir, fmt.Sprintf("mark-%d.jsonl", i)); p.Path != want {
			t.Fatalf("ledger entry %d is for %s, want %s", i, p.Path, want)
		}
	}
}

// TestAckRetryRacesAppenders runs a drainer process (Claim, Ack with and
// without growth, Retry, Requeue, poisoning) against 8 appending processes:
// no appended line may be lost, and every victim must end where its
// treatment says.
func TestAckRetryRacesAppenders(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	transDir := t.TempDir()
	victims := raceVictims
	if testing.Short() {
		victims = raceVictimsShort
	}
	orig := map[int]string{} // victim → its original id
	for i := range victims {
		mustEnqueue(t, q, testRecord(writeTranscript(t, transDir, fmt.Sprintf("victim-%d.jsonl", i), `{"turn":0}`+"\n"), fmt.Sprintf("victim-%d", i)))
	}
	recs, _ := mustList(t, q)
	for i, r := range recs {
		orig[i] = r.ID
	}
	drainer := runRace(t, q, transDir, "drain", false)[0]
	if t.Failed() {
		return
	}

	left := map[int]Record{}
	for _, r := range checkAppended(t, q, transDir, raceWorkers, racePerWorkerN()) {
		var i int
		if _, err := fmt.Sscanf(r.SessionID, "victim-%d", &i); err != nil {
			t.Fatalf("unexpected record %+v", r)
		}
		if _, dup := left[i]; dup {
			t.Errorf("victim %d has two records", i)
		}
		left[i] = r
	}
	poisoned := map[string]Poisoned{}
	ps, err := q.ListPoisoned()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if _, dup := poisoned[p.Record.ID]; dup {
			t.Errorf("%s is twice in poison.jsonl", p.Record.ID)
		}
		poisoned[p.Record.ID] = p
	}
	ledgerOf := map[string][]Processed{}
	for _, p := range ledger(t, q) {
		ledgerOf[p.Path] = append(ledgerOf[p.Path], p)
	}
	liveAcks := 0
	for i := range victims {
		r, pending := left[i]
		p, isPoisoned := poisoned[orig[i]]
		led := ledgerOf[filepath.Join(transDir, fmt.Sprintf("victim-%d.jsonl", i))]
		switch c := victimClass(i); c {
		case "ack":
			if pending || isPoisoned || len(led) != 1 || led[0].Outcome != "reflected" {
				t.Errorf("victim %d (%s): pending=%v poisoned=%v ledger=%+v; want acked once", i, c, pending, isPoisoned, led)
			}
		case "live":
			liveAcks += len(led)
			if !pending || r.ID == orig[i] || r.Attempts != 0 || isPoisoned || len(led) == 0 {
				t.Errorf("victim %d (%s): record %+v, %d acks; want one fresh record after each ack", i, c, r, len(led))
				continue
			}
			fi, err := os.Stat(r.TranscriptPath)
			if err != nil {
				t.Fatal(err)
			}
			for k, e := range led {
				if e.Size >= fi.Size() || (k > 0 && e.Size <= led[k-1].Size) {
					t.Errorf("victim %d: ledger sizes %+v against a %d-byte transcript; want growing and short of it", i, led, fi.Size())
				}
			}
		case "poison", "requeue":
			if !isPoisoned && c == "poison" {
				t.Errorf("victim %d (%s) is not in poison.jsonl", i, c)
				continue
			}
			if c == "requeue" {
				if !pending || isPoisoned || r.ID != orig[i] || r.Attempts != 0 || r.NotBefore != nil {
					t.Errorf("victim %d (%s): record %+v, poisoned=%v; want re-armed under its id", i, c, r, isPoisoned)
				}
				continue
			}
			if pending || p.Attempts < 1 || p.Record.Attempts != p.Attempts-1 || p.Reason != "writer failed" {
				t.Errorf("victim %d (%s): pending=%v poison entry %+v", i, c, pending, p)
			}
			if len(led) != 1 || led[0].Outcome != OutcomePoisoned {
				t.Errorf("victim %d (%s): ledger %+v, want one poisoned entry", i, c, led)
			}
		}
	}
	if n := drainer.count("live-acks"); n != liveAcks {
		t.Errorf("the drainer acked live transcripts %d times, the ledger holds %d entries for them", n, liveAcks)
	}
	// The poison file holds the queue lines verbatim: each wraps a line
	// that decodes strictly as a record.
	data, _ := os.ReadFile(q.poisonPath)
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var w struct {
			Record json.RawMessage `json:"record"`
		}
		if err := json.Unmarshal(l, &w); err != nil {
			t.Errorf("poison line %s: %v", l, err)
			continue
		}
		var r Record
		dec := json.NewDecoder(bytes.NewReader(w.Record))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || !strings.HasPrefix(string(w.Record), `{"id":"`+r.ID+`"`) {
			t.Errorf("poison line %s does not wrap a queue line: %v", l, err)
		}
	}
}
