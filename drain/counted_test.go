package drain

import (
	"fmt"
	"testing"
	"time"
)

// The counted pairs outlive no injection the ledger keeps, and their
// number is bounded, oldest dropped first.
func TestCountedSetIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	m := loadCounted(dir)
	m.add("old", "lrn-a-1a2b3c", now.AddDate(0, 0, -91))
	for i := 0; i < countedMax+5; i++ {
		m.add(fmt.Sprintf("s%d", i), "lrn-a-1a2b3c", now.Add(time.Duration(i-countedMax)*time.Second))
	}
	if err := m.save(dir, now); err != nil {
		t.Fatal(err)
	}
	back := loadCounted(dir)
	if len(back) != countedMax || back.has("old", "lrn-a-1a2b3c") || back.has("s0", "lrn-a-1a2b3c") || !back.has(fmt.Sprintf("s%d", countedMax+4), "lrn-a-1a2b3c") {
		t.Errorf("%d pairs kept (old %v, s0 %v)", len(back), back.has("old", "lrn-a-1a2b3c"), back.has("s0", "lrn-a-1a2b3c"))
	}
}
