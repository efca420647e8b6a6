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
	helperEnv      = "QUEUE_TEST_HELPER" // "append" or "drop"
	helperDir      = "QUEUE_TEST_STATE_DIR"
	helperTransDir = "QUEUE_TEST_TRANSCRIPT_DIR"
	helperWorker   = "QUEUE_TEST_WORKER"
	helperCount    = "QUEUE_TEST_COUNT"
	helperStart    = "QUEUE_TEST_START" // unix nanoseconds; children start together
)

const (
	procs      = 16
	perProc    = 500
	victims    = 100 // seeded records a 17th process drops while the others append
	sessionFmt = "w%02d-s%03d"
)

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper for TestConcurrentProcesses; does nothing on its own")
	}
	q, err := Open(os.Getenv(helperDir))
	if err != nil {
		t.Fatal(err)
	}
	worker, _ := strconv.Atoi(os.Getenv(helperWorker))
	n, _ := strconv.Atoi(os.Getenv(helperCount))
	start, _ := strconv.ParseInt(os.Getenv(helperStart), 10, 64)

	// retry repeats op while the queue is locked past LockWait. On this
	// shared, oversubscribed machine a descheduled lock holder can exceed
	// LockWait (TestLockIsBounded covers that bound); what this test checks
	// is that a failed attempt wrote nothing and a successful one wrote
	// exactly one whole line. Retrying also exercises abandoned lock waits,
	// which must release the lock when they finally get it.
	retries := 0
	retry := func(op func() error) error {
		for {
			err := op()
			if !errors.Is(err, ErrLocked) {
				return err
			}
			retries++
		}
	}
	defer func() { fmt.Printf("lock-retries %d\n", retries) }()

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
			err := retry(func() (err error) {
				ok, reason, err = q.Enqueue(r)
				return err
			})
			// A retry after a write that was reported as failed would say
			// "already queued" here.
			if err != nil || !ok {
				t.Fatalf("Enqueue(%s) = %v, %q, %v", r.SessionID, ok, reason, err)
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
				if err := retry(func() error { return q.Drop(r.ID) }); err != nil {
					t.Fatalf("Drop(%s): %v", r.ID, err)
				}
			}
		}
	default:
		t.Fatalf("unknown helper mode %q", mode)
	}
}

// TestConcurrentProcesses appends 16×500 records from 16 processes at once
// while a 17th rewrites the queue (Drop renames a new file into place) 100
// times, and checks that no line is lost, torn or duplicated.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 17 processes")
	}
	q := newTestQueue(t)
	transDir := t.TempDir()
	for i := range victims {
		mustEnqueue(t, q, testRecord(writeTranscript(t, transDir, fmt.Sprintf("victim-%d.jsonl", i), "x\n"), fmt.Sprintf("victim-%d", i)))
	}

	start := time.Now().Add(time.Second).UnixNano()
	type child struct {
		cmd *exec.Cmd
		out bytes.Buffer
	}
	var children []*child
	spawn := func(mode string, worker, n int) {
		c := &child{cmd: exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")}
		c.cmd.Env = append(os.Environ(),
			helperEnv+"="+mode,
			helperDir+"="+q.dir,
			helperTransDir+"="+transDir,
			helperWorker+"="+strconv.Itoa(worker),
			helperCount+"="+strconv.Itoa(n),
			helperStart+"="+strconv.FormatInt(start, 10),
		)
		c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, c)
	}
	for w := range procs {
		spawn("append", w, perProc)
	}
	spawn("drop", 0, 0)
	for _, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("helper %v: %v\n%s", c.cmd.Env[len(c.cmd.Env)-6:], err, c.out.String())
		}
	}
	if t.Failed() {
		return
	}
	retries := 0
	for _, c := range children {
		var n int
		if i := strings.Index(c.out.String(), "lock-retries "); i >= 0 {
			fmt.Sscanf(c.out.String()[i:], "lock-retries %d", &n)
		}
		retries += n
	}
	t.Logf("%d processes done in %v; %d operations waited longer than LockWait and were retried",
		len(children), time.Since(time.Unix(0, start)).Round(time.Millisecond), retries)

	data, err := os.ReadFile(q.pendingPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Error("queue file does not end with a newline")
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != procs*perProc {
		t.Fatalf("queue has %d lines, want exactly %d", len(lines), procs*perProc)
	}
	ids := map[string]bool{}
	sessions := map[string]bool{}
	next := make([]int, procs) // each worker's records appear in its own order
	for i, l := range lines {
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
		if _, err := fmt.Sscanf(r.SessionID, sessionFmt, &w, &n); err != nil {
			t.Fatalf("line %d: unexpected session %q (victims must all be dropped)", i+1, r.SessionID)
		}
		if n != next[w] {
			t.Fatalf("line %d: worker %d record %d, want %d: appends out of order or lost", i+1, w, n, next[w])
		}
		next[w]++
		sessions[r.SessionID] = true
		if want := filepath.Join(transDir, r.SessionID+".jsonl"); r.TranscriptPath != want {
			t.Fatalf("line %d: transcript %q, want %q", i+1, r.TranscriptPath, want)
		}
	}
	if len(sessions) != procs*perProc {
		t.Errorf("%d distinct sessions, want %d", len(sessions), procs*perProc)
	}
	if recs, bad := mustList(t, q); len(recs) != procs*perProc || len(bad) != 0 {
		t.Errorf("List: %d records, %d bad lines", len(recs), len(bad))
	}
	if d := q.Depth(); d != procs*perProc {
		t.Errorf("Depth = %d", d)
	}
}
