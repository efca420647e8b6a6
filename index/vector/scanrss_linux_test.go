package vector

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// mappedRSS returns the resident kilobytes of the process's mapping of
// path, from /proc/self/smaps.
func mappedRSS(t *testing.T, path string) int {
	t.Helper()
	fh, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer fh.Close()
	total, in := 0, false
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			// A mapping's header line: range perms offset dev inode [path].
			in = len(fields) >= 6 && fields[len(fields)-1] == path
			continue
		}
		if in && len(fields) >= 2 && fields[0] == "Rss:" {
			kb, _ := strconv.Atoi(fields[1])
			total += kb
		}
	}
	return total
}

// A full scan leaves at most a block or so of the file resident in the
// process (the rest is handed back as it goes), while a lookup of one row
// still reads it. Without dropScanned the whole 16 MB file stays resident.
func TestScanHandsPagesBack(t *testing.T) {
	h := Header{Dim: 256, Embedder: "hash", EmbedderVersion: "v1/256"}
	rows := randomRows(16000, h.Dim, 7) // 16,000 × 1,032 bytes ≈ 16 MB
	path := writeFile(t, h, rows)
	f := openFile(t, path)
	for i := 0; i < f.Len(); i += 97 { // touch pages all over the file first
		_ = f.Vector(i)[0]
	}
	hits := f.Search(rows[1234].Vec, 5, nil)
	if len(hits) == 0 || hits[0].Key != rows[1234].Key {
		t.Fatalf("the scan did not find the row itself: %+v", hits)
	}
	fileKB := 16000 * (8 + 4*h.Dim) / 1024
	if got, limit := mappedRSS(t, path), 3*scanBlockBytes/1024; got > limit {
		t.Errorf("%d KB of the %d KB file resident after a scan, want at most %d", got, fileKB, limit)
	}
	if v := f.Vector(15999); v[0] != rows[15999].Vec[0] {
		t.Errorf("row read after the scan: %v, want %v", v[0], rows[15999].Vec[0])
	}
	// The whole-file checks a refresh runs pass over it the same way.
	for name, pass := range map[string]func() int{"NonFinite": f.NonFinite, "Tombstones": f.Tombstones} {
		touch := func() {
			for i := 0; i < f.Len(); i += 97 {
				_ = f.Vector(i)[0]
			}
		}
		touch()
		if n := pass(); n != 0 {
			t.Errorf("%s = %d, want 0", name, n)
		}
		if got, limit := mappedRSS(t, path), 3*scanBlockBytes/1024; got > limit {
			t.Errorf("%d KB of the %d KB file resident after %s, want at most %d", got, fileKB, name, limit)
		}
	}
}
