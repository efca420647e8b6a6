package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/store"
)

// Doctor finds vectors.i8 (the int8 codes searches scan first) missing or
// damaged row by row, makes it anew from vectors.f32, and says so; a
// healthy one adds no check.
func TestVectorCodesCheck(t *testing.T) {
	home := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	c := &config.Config{StateDir: filepath.Join(home, "state"), LearningsDir: filepath.Join(home, "kb"),
		File: filepath.Join(home, "state", "config.toml"), Origin: map[string]string{}, Agents: config.AgentDirs{Home: home}}
	c.Drain.Writer = "builtin"
	st := store.Open(c.DocumentsDir())
	for _, id := range []string{"lrn-a", "lrn-b"} {
		l := &store.Learning{ID: id, Title: "Title of " + id, Confidence: "high", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		if err := st.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	if ch := checkNamed(Run(context.Background(), c), "vector codes"); ch != nil {
		t.Fatalf("healthy codes: %+v", ch)
	}
	codes := filepath.Join(c.IndexDir(), "vectors.i8")
	data, err := os.ReadFile(codes)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(codes)
	// A code of row 0: the last column of the last block (64 rows, padded)
	// is the file's last 64 bytes (vector.CodesFormatVersion 2).
	data[len(data)-64] ^= 0x21
	if err := os.WriteFile(codes, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(codes, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	ch := checkNamed(Run(context.Background(), c), "vector codes")
	if ch == nil || ch.Status != OK || !strings.HasPrefix(ch.Detail, "repaired: ") || !strings.Contains(ch.Detail, "do not match") {
		t.Fatalf("damaged codes: %+v", ch)
	}
	if err := os.Remove(codes); err != nil {
		t.Fatal(err)
	}
	if ch := checkNamed(Run(context.Background(), c), "vector codes"); ch == nil || ch.Status != OK || !strings.HasPrefix(ch.Detail, "repaired: ") {
		t.Fatalf("missing codes: %+v", ch)
	}
	if ch := checkNamed(Run(context.Background(), c), "vector codes"); ch != nil {
		t.Fatalf("after the repair: %+v", ch)
	}
}
