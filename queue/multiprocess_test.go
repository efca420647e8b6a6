package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The multi-process test re-executes this test binary: each child runs
// TestHelperProcess, which acts only when helperEnv is set.
const (
	helperEnv      = "QUEUE_TEST_HELPER" // "append", "drop", "compact", "mark" or "drain"
	helperDir      = "QUEUE_TEST_STATE_DIR"
	helperTransDir = "QUEUE_TEST_TRANSCRIPT_DIR"
	helperWorker   = "QUEUE_TEST_WORKER"
	helperCount    = "QUEUE_TEST_COUNT"
	helperStart    = "QUEUE_TEST_START" // unix nanoseconds; children start together
	helperStop     = "QUEUE_TEST_STOP"  // a file whose appearance ends a looping helper
	helperLockWait = "QUEUE_TEST_LOCKWAIT"
)

// Every Enqueue reads the whole queue under the lock (the duplicate check),
// so the work grows with the square of the records appended: 16×500 took
// about a minute on a loaded 2-core machine. What the test is after is 16
// processes contending for the lock while a 17th renames the file under
// them, which 2,400 appends already make happen thousands of times.
const (
	procs      = 16
	perProc    = 150
	victims    = 100 // seeded records a 17th process drops while the others append
	sessionFmt = "w%02d-s%03d"
)

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper for the multi-process tests; does nothing on its own")
	}
	q, err := Open(os.Getenv(helperDir))
	if err != nil {
		t.Fatal(err)
	}
	worker, _ := strconv.Atoi(os.Getenv(helperWorker))
	n, _ := strconv.Atoi(os.Getenv(helperCount))
	start, _ := strconv.ParseInt(os.Getenv(helperStart), 10, 64)

	if d, err := time.ParseDuration(os.Getenv(helperLockWait)); err == nil {
		q.lockWait = d
	}
	spilled := 0
	defer func() { fmt.Printf("lock-retries %d\nspilled %d\n", lockRetries, spilled) }()

	switch mode {
	case "append":
		var recs []Record
		for i := range n {
			sid := fmt.Sprintf(sessionFmt, worker, i)
			tr := writeTranscript(t, os.Getenv(helperTransDir), sid+".jsonl", `{"turn":1}`+"\n")
			recs = append(recs, testRecord(tr, sid))
		}
		time.Sleep(time.Until(time.Unix(0, start)))
		for _, r := range recs {
			var ok bool
			var reason string
			err := retryLocked(func() (err error) {
				ok, reason, err = q.Enqueue(r)
				return err
			})
			// A retry after a write that was reported as failed would say
			// "already queued" here.
			if err != nil || !ok {
				t.Fatalf("Enqueue(%s) = %v, %q, %v", r.SessionID, ok, reason, err)
			}
			if reason == ReasonSpilled {
				spilled++
			}
		}
	case "drop":
		recs, _, err := q.List()
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(time.Unix(0, start)))
		for _, r := range recs {
			if strings.HasPrefix(r.SessionID, "victim-") {
				if err := retryLocked(func() error { return q.Drop(r.ID) }); err != nil {
					t.Fatalf("Drop(%s): %v", r.ID, err)
				}
			}
		}
	case "hold":
		helperHold(t, q, os.Getenv(helperStop))
	case "compact":
		helperCompact(t, q, os.Getenv(helperStop))
	case "mark":
		helperMark(t, q, os.Getenv(helperTransDir), start, os.Getenv(helperStop))
	case "drain":
		helperDrain(t, q, os.Getenv(helperStop))
	default:
		t.Fatalf("unknown helper mode %q", mode)
	}
}

// lockRetries counts the operations of a helper process that retryLocked
// repeated.
var lockRetries int

// retryLocked repeats op while the queue is locked past LockWait. On this
// shared, oversubscribed machine a descheduled lock holder can exceed
// LockWait (TestLockIsBounded covers that bound); what the multi-process
// tests check is that a failed attempt wrote nothing and a successful one
// did its whole job. Retrying also exercises abandoned lock waits, which
// must release the lock when they finally get it.
func retryLocked(op func() error) error {
	for {
		err := op()
		if !errors.Is(err, ErrLocked) {
			return err
		}
		lockRetries++
	}
}

// helperChild is a running helper process.
type helperChild struct {
	cmd *exec.Cmd
	out bytes.Buffer
}

// startHelper re-executes the test binary as a helper in mode on the queue
// of dir; env adds helper variables ("K=V").
func startHelper(t *testing.T, mode, dir string, env ...string) *helperChild {
	t.Helper()
	c := &helperChild{cmd: exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")}
	c.cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDir+"="+dir)
	c.cmd.Env = append(c.cmd.Env, env...)
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

// wait waits for the helper and reports its failure with its output.
func (c *helperChild) wait(t *testing.T) {
	t.Helper()
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("helper %v: %v\n%s", c.cmd.Env[len(os.Environ()):], err, c.out.String())
	}
}

// count returns the number a helper printed as "name N", or 0.
func (c *helperChild) count(name string) int {
	var n int
	if i := strings.Index(c.out.String(), name+" "); i >= 0 {
		fmt.Sscanf(c.out.String()[i:], name+" %d", &n)
	}
	return n
}

// TestConcurrentProcesses appends 16×150 records from 16 processes at once
// while a 17th rewrites the queue (Drop renames a new file into place) 100
// times, and checks that no line is lost, torn or duplicated.
func TestConcurrentProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns 17 processes")
	}
	q := newTestQueue(t)
	transDir := t.TempDir()
	for i := range victims {
		mustEnqueue(t, q, testRecord(writeTranscript(t, transDir, fmt.Sprintf("victim-%d.jsonl", i), "x\n"), fmt.Sprintf("victim-%d", i)))
	}

	start := time.Now().Add(time.Second).UnixNano()
	var children []*helperChild
	spawn := func(mode string, worker, n int) {
		children = append(children, startHelper(t, mode, q.dir,
			helperTransDir+"="+transDir,
			helperWorker+"="+strconv.Itoa(worker),
			helperCount+"="+strconv.Itoa(n),
			helperStart+"="+strconv.FormatInt(start, 10),
		))
	}
	for w := range procs {
		spawn("append", w, perProc)
	}
	spawn("drop", 0, 0)
	for _, c := range children {
		c.wait(t)
	}
	if t.Failed() {
		return
	}
	retries := 0
	for _, c := range children {
		retries += c.count("lock-retries")
	}
	t.Logf("%d processes done in %v; %d operations waited longer than LockWait and were retried",
		len(children), time.Since(time.Unix(0, start)).Round(time.Millisecond), retries)

	if others := checkAppended(t, q, transDir, procs, perProc); len(others) != 0 {
		t.Errorf("%d records left that no appender wrote, e.g. %+v (victims must all be dropped)", len(others), others[0])
	}
	if recs, bad := mustList(t, q); len(recs) != procs*perProc || len(bad) != 0 {
		t.Errorf("List: %d records, %d bad lines", len(recs), len(bad))
	}
	if d := q.Depth(); d != procs*perProc {
		t.Errorf("Depth = %d", d)
	}
}

// checkAppended checks the queue file after workers appending processes
// enqueued perWorker records each (sessions named by sessionFmt): every line
// is a whole record with a unique id, and each appended session is there
// exactly once, in its worker's order, with its transcript. It returns the
// records no appender wrote, in file order.
func checkAppended(t *testing.T, q *Queue, transDir string, workers, perWorker int) (others []Record) {
	t.Helper()
	data, err := os.ReadFile(q.pendingPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Error("queue file does not end with a newline")
	}
	ids := map[string]bool{}
	next := make([]int, workers) // each worker's records appear in its own order
	for i, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var r Record
		dec := json.NewDecoder(bytes.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("line %d is not a valid record: %v: %q", i+1, err, l)
		}
		if r.ID == "" || ids[r.ID] {
			t.Fatalf("line %d: empty or duplicate id %q", i+1, r.ID)
		}
		ids[r.ID] = true
		var w, n int
		if _, err := fmt.Sscanf(r.SessionID, sessionFmt, &w, &n); err != nil || w >= workers {
			others = append(others, r)
			continue
		}
		if n != next[w] {
			t.Fatalf("line %d: worker %d record %d, want %d: appends out of order, lost or duplicated", i+1, w, n, next[w])
		}
		next[w]++
		if want := filepath.Join(transDir, r.SessionID+".jsonl"); r.TranscriptPath != want {
			t.Fatalf("line %d: transcript %q, want %q", i+1, r.TranscriptPath, want)
		}
	}
	for w, n := range next {
		if n != perWorker {
			t.Errorf("worker %d: %d of its %d records are in the queue", w, n, perWorker)
		}
	}
	return others
}
