package index

import (
	"context"
	"testing"
)

func mmapSizeOf(t *testing.T, ix *Index) int64 {
	t.Helper()
	var n int64
	if err := ix.db.QueryRow(`PRAGMA mmap_size`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A search drops the map after its postings and the next read maps the
// catalog again; a search within an unmapped read (an update) leaves it
// unmapped until that ends.
func TestUnmappedRestoresTheMap(t *testing.T) {
	k := kbWithCatalog(t)
	ix := k.open(t)
	searchable(t, ix)
	if got := mmapSizeOf(t, ix); got != mmapSize {
		t.Fatalf("mmap_size after a search = %d, want %d", got, mmapSize)
	}
	ctx := context.Background()
	err := ix.unmapped(ctx, func() error {
		if got := mmapSizeOf(t, ix); got != 0 {
			t.Errorf("mmap_size inside = %d, want 0", got)
		}
		searchable(t, ix)
		if got := mmapSizeOf(t, ix); got != 0 {
			t.Errorf("mmap_size after an inner search = %d, want 0 until the outer read ends", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := mmapSizeOf(t, ix); got != mmapSize {
		t.Errorf("mmap_size after = %d, want %d", got, mmapSize)
	}
}
