package fsutil

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"
)

// Readers under ReadLocked never see a WriteLocked half done: each read is
// one of the whole contents written, while writers rewrite the file in
// place concurrently.
func TestLockedReadsSeeWholeWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "last-event.json")
	short, long := []byte("short\n"), bytes.Repeat([]byte("long "), 20000)
	if err := WriteLocked(path, short, FilePerm); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				data := short
				if i%2 == 0 {
					data = long
				}
				if err := WriteLocked(path, data, FilePerm); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 0; i < 400; i++ {
		got, err := ReadLocked(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, short) && !bytes.Equal(got, long) {
			t.Fatalf("read %d bytes that are neither write", len(got))
		}
	}
	wg.Wait()
}
