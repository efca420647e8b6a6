package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// childOut names the file a spawned copy of this test binary writes what it
// saw of GOMAXPROCS to; with it set and "child" as the first argument, the
// binary is that child, not a test run.
const childOut = "REFLECT_PROC_TEST_OUT"

func TestMain(m *testing.M) {
	if out := os.Getenv(childOut); out != "" && len(os.Args) > 1 && os.Args[1] == "child" {
		v, set := os.LookupEnv("GOMAXPROCS")
		if os.WriteFile(out+".tmp", []byte(fmt.Sprintf("set=%v value=%q", set, v)), 0o600) == nil {
			_ = os.Rename(out+".tmp", out)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A hook runs with GOMAXPROCS=1 (reflect install writes it); the drain or
// reindex it starts must not inherit it, while the rest of the environment
// (here childOut itself) passes through.
func TestSpawnDetachedDropsGOMAXPROCS(t *testing.T) {
	out := filepath.Join(t.TempDir(), "env")
	t.Setenv(childOut, out)
	t.Setenv("GOMAXPROCS", "1")
	if err := SpawnDetached("child"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, err := os.ReadFile(out)
		if err == nil {
			if got := string(data); got != `set=false value=""` {
				t.Errorf("the spawned process saw GOMAXPROCS: %s", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the spawned process wrote nothing in 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
