package index

import (
	"bytes"
	"context"
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
	targetedHelperEnv = "REFLECT_TARGETED_TEST_HELPER" // "put" or "foreign"
	foreignWrites     = 60
	targetedPuts      = 20
	targetedPutters   = 2
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
		for i := range foreignWrites {
			p := filepath.Join(docs, foreignID(i)+".md")
			data := []byte(simple(foreignID(i), fmt.Sprintf("foreign words item%d", i)).render())
			if i%2 == 0 { // created in place
				if err := os.WriteFile(p, data, 0o644); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
			} else { // written aside and renamed in, as an atomic write
				if err := os.WriteFile(p+".tmp", data, 0o644); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
				if err := os.Rename(p+".tmp", p); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
			}
			time.Sleep(time.Duration(rand.IntN(6000)) * time.Microsecond)
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
			if _, err := ix.Put(ctx, learningOf(helperTitle(worker, i), fmt.Sprintf("put words worker%d item%d", worker, i)), nil, t0); err != nil {
				fmt.Fprintf(os.Stderr, "Put: %v\n", err)
				os.Exit(3)
			}
		}
	}
	os.Exit(0)
}

// A process writes documents into documents/ without indexing them while
// others Put in a loop: no Put's targeted update may hide one of those
// writes, so after the next Refresh every document is indexed, and a full
// incremental Update finds nothing left to do.
func TestTargetedForeignWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	for round := range 3 {
		k := newKB(t)
		k.write(t, simple("lrn-seed", "seed words"))
		ix, err := Open(ctx, k.docs, k.idx, WithEmbedder(hashEmbedder(t, helperDim)))
		if err != nil {
			t.Fatal(err)
		}
		ix.Close()
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		start := func(mode string, worker int) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestTargetedHelper$", "-test.count=1", "-test.timeout=5m")
			cmd.Env = append(os.Environ(), targetedHelperEnv+"="+mode, helperDocs+"="+k.docs, helperIdx+"="+k.idx,
				helperWorker+"="+strconv.Itoa(worker))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, &out)
		}
		for w := range targetedPutters {
			start("put", w)
		}
		start("foreign", -1)
		for i, c := range cmds {
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
		for i := range foreignWrites {
			if _, ok := got[foreignID(i)]; !ok {
				missing = append(missing, foreignID(i))
			}
		}
		for w := range targetedPutters {
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
