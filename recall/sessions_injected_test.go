package recall

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSessionsInjectedCountsSessionsPerLearning(t *testing.T) {
	state := t.TempDir()
	for sid, ids := range map[string][]string{"s1": {"lrn-a", "lrn-b"}, "s2": {"lrn-a"}, "s3": {"lrn-a", "lrn-c"}} {
		m := map[string]string{}
		for _, id := range ids {
			m[id] = "2026-11-28T10:00:00Z"
		}
		if err := os.MkdirAll(filepath.Join(state, sessionDir), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := saveInjected(sessionPath(state, sid), m); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(state, sessionDir, "broken.json"), []byte("{"), 0o600)
	got := SessionsInjected(state)
	if got["lrn-a"] != 3 || got["lrn-b"] != 1 || got["lrn-c"] != 1 || len(got) != 3 {
		t.Errorf("SessionsInjected = %v", got)
	}
	if len(SessionsInjected(filepath.Join(state, "missing"))) != 0 {
		t.Error("a missing state directory should count nothing")
	}
}
