package vector

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// mappedRSS returns the resident kilobytes of the process's mapping of
// path, from /proc/self/smaps.
func mappedRSS(t *testing.T, path string) int {
	t.Helper()
	return mappedKB(t, path, "Rss:")
}

// mappedKB returns the kilobytes of the smaps field (say "Rss:") of the
// process's mappings of path.
func mappedKB(t *testing.T, path, field string) int {
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
		if in && len(fields) >= 2 && fields[0] == field {
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

// touchSink keeps the loads of a loop that only maps pages.
var touchSink byte

// A scan of the codes hands their pages back when the page cache holds
// them in 2 MB folios, which the kernel maps whole (PMD) into the mapping
// it aligned: a search that reads them back after they were evicted
// caches them so on Linux 6.18 (ext4), and a drop that ended short of a
// 2 MB boundary left them mapped, most of the file resident. Skipped where
// the kernel does not map the codes by PMD (no large folios for the
// filesystem of the temp dir, say tmpfs).
func TestScanCodesHandsHugePagesBack(t *testing.T) {
	h := Header{Dim: 256, Embedder: "hash", EmbedderVersion: "v1/256"}
	rows := randomRows(32000, h.Dim, 9) // codes: 32,000 × 268 bytes ≈ 8.6 MB
	path := writeFile(t, h, rows)
	codes := CodesPath(path)
	fd, err := os.Open(codes)
	if err != nil {
		t.Fatal(err)
	}
	err = unix.Fadvise(int(fd.Fd()), 0, 0, unix.FADV_DONTNEED) // evicted: the search reads them back
	fd.Close()
	if err != nil {
		t.Skipf("fadvise: %v", err)
	}
	f := openFile(t, path)
	if p := f.CodesProblem(); p != "" {
		t.Fatalf("codes: %s", p)
	}
	q := rows[777].Vec
	if hits, ok := f.searchCodes(q, 5); !ok || hits[0].Key != rows[777].Key {
		t.Fatalf("searchCodes: %v, %v", hits, ok)
	}
	for i := 0; i < len(f.q.data); i += 4096 { // map it all, to see how
		touchSink += f.q.data[i]
	}
	if kb := mappedKB(t, codes, "FilePmdMapped:"); kb == 0 {
		t.Skip("the kernel does not map the codes by PMD here")
	}
	dropPages(f.q.data[:len(f.q.data)&^(pageSize-1)])
	if hits, ok := f.searchCodes(q, 5); !ok || hits[0].Key != rows[777].Key {
		t.Fatalf("searchCodes: %v, %v", hits, ok)
	}
	fileKB := len(f.q.data) / 1024
	if got, limit := mappedRSS(t, codes), 3*scanBlockBytes/1024; got > limit {
		t.Errorf("%d KB of the %d KB codes resident after a scan (%d KB mapped by PMD), want at most %d",
			got, fileKB, mappedKB(t, codes, "FilePmdMapped:"), limit)
	}
}
