package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/reflectkb/reflect/store"
)

const (
	targetedHelperEnv = "REFLECT_TARGETED_TEST_HELPER" // "put", "foreign" or "refresh"
	foreignRounds     = 6
	targetedPuts      = 15
)

func foreignID(i int) string { return fmt.Sprintf("lrn-foreign-%03d", i) }

// TestTargetedHelper is not a test: TestTargetedForeignWriter runs the test
// binary again with this test selected, as a process that Puts or as one
// that writes documents without indexing them (git, an editor).
func TestTargetedHelper(t *testing.T) {
	mode := os.Getenv(targetedHelperEnv)
	if mode == "" {
		t.Skip("helper process for TestTargetedForeignWriter")
	}
	docs, idx := os.Getenv(helperDocs), os.Getenv(helperIdx)
	worker, _ := strconv.Atoi(os.Getenv(helperWorker))
	switch mode {
	case "foreign":
		// One document, at a random moment of the Puts: written in place
		// or aside and renamed in, as an atomic write does.
		time.Sleep(time.Duration(50+rand.IntN(700)) * time.Millisecond)
		p := filepath.Join(docs, foreignID(worker)+".md")
		data := []byte(simple(foreignID(worker), fmt.Sprintf("foreign words item%d", worker)).render())
		tmp := p
		if worker%2 == 1 {
			tmp = p + ".tmp"
		}
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if err := os.Rename(tmp, p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	case "refresh":
		// A hook's Refresh in a loop: each one that scans stores a new
		// stamp, which the next Put may then move on.
		ctx := context.Background()
		ix, err := Open(ctx, docs, idx, WithEmbedder(hashEmbedder(t, helperDim)))
		if err != nil {
			fmt.Fprintf(os.Stderr, "Open: %v\n", err)
			os.Exit(2)
		}
		defer ix.Close()
		for {
			if _, _, err := ix.Refresh(ctx); err != nil && !errors.Is(err, ErrBusy) {
				fmt.Fprintf(os.Stderr, "Refresh: %v\n", err)
				os.Exit(3)
			}
			if _, err := os.Stat(os.Getenv(helperStop)); err == nil {
				break
			}
			time.Sleep(time.Duration(rand.IntN(5000)) * time.Microsecond)
		}
	case "put":
		ctx := context.Background()
		ix, err := Open(ctx, docs, idx, WithEmbedder(hashEmbedder(t, helperDim)))
		if err != nil {
			fmt.Fprintf(os.Stderr, "Open: %v\n", err)
			os.Exit(2)
		}
		defer ix.Close()
		for i := range targetedPuts {
			if _, err := put(ctx, ix, learningOf(helperTitle(worker, i), fmt.Sprintf("put words worker%d item%d", worker, i)), nil, t0); err != nil {
				fmt.Fprintf(os.Stderr, "Put: %v\n", err)
				os.Exit(3)
			}
		}
	}
	os.Exit(0)
}

// A process writes a document into documents/ without indexing it, at a
// random moment while others Put in a loop and one refreshes (as hooks
// do): no Put's targeted update may hide that write (a hidden write stays
// hidden only while no later write by others moves the directory's stamp,
// hence one per round), so after the next Refresh every document is
// indexed, and a full incremental Update finds nothing left to do.
func TestTargetedForeignWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	for round := range foreignRounds {
		k := newKB(t)
		k.write(t, simple("lrn-seed", "seed words"))
		ix, err := Open(ctx, k.docs, k.idx, WithEmbedder(hashEmbedder(t, helperDim)))
		if err != nil {
			t.Fatal(err)
		}
		ix.Close()
		stop := filepath.Join(k.root, "stop")
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		start := func(mode string, worker int) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestTargetedHelper$", "-test.count=1", "-test.timeout=5m")
			cmd.Env = append(os.Environ(), targetedHelperEnv+"="+mode, helperDocs+"="+k.docs, helperIdx+"="+k.idx,
				helperWorker+"="+strconv.Itoa(worker), helperStop+"="+stop)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, &out)
		}
		// Even rounds: one process Puts, so every Put moves the stamp and
		// every Put's window is one the foreign write may land in. Odd
		// rounds: two Put and one refreshes, as a busy machine does.
		putters := 1 + round%2
		for w := range putters {
			start("put", w)
		}
		start("foreign", round)
		if putters > 1 {
			start("refresh", -1)
		}
		for i, c := range cmds {
			if i == len(cmds)-1 && putters > 1 { // the refresher runs until the others are done
				writeRaw(t, stop, "")
			}
			if err := c.Wait(); err != nil {
				t.Fatalf("round %d: helper %d: %v\n%s", round, i, err, outs[i])
			}
		}
		ix = openWith(t, k, WithEmbedder(hashEmbedder(t, helperDim)))
		if _, _, err := ix.Refresh(ctx); err != nil {
			t.Fatalf("round %d: Refresh: %v", round, err)
		}
		got := docRows(t, ix)
		var missing []string
		if _, ok := got[foreignID(round)]; !ok {
			missing = append(missing, foreignID(round))
		}
		for w := range putters {
			for i := range targetedPuts {
				if id := store.NewID(helperTitle(w, i), ""); got[id] == 0 {
					missing = append(missing, id)
				}
			}
		}
		if len(missing) > 0 {
			t.Fatalf("round %d: %d documents missing from the index after Refresh: %v", round, len(missing), missing)
		}
		if st := update(t, ix, UpdateOptions{}); st.Added+st.Updated+st.Removed != 0 {
			t.Fatalf("round %d: an Update after Refresh still had work: %+v", round, countersOf(st))
		}
		fileMatchesTable(t, ix, k)
	}
}
