package drain

import (
	"context"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/transcript"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/queue"
)

// A learning written while another process updates the index (its wait
// runs out) still counts as written: the file is on disk and the next
// refresh indexes it, so the entry is not retried and the writer not run
// (and paid for) again.
func TestWriteLearningsWhileIndexBusy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newDrainEnv(t)
	c := e.config(t)
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir(), index.BusyWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	fl := flock.New(filepath.Join(c.IndexDir(), "update.lock"))
	if ok, err := fl.TryLock(); err != nil || !ok {
		t.Fatalf("take update.lock: ok=%v err=%v", ok, err)
	}
	defer fl.Unlock()

	drafts := []writer.Draft{{Title: "Flyway migrations run out of order on a fresh clone",
		KeyInsight: "Set outOfOrder=false and number migrations by timestamp", Confidence: "medium"}}
	rec := queue.Record{Harness: queue.HarnessClaude, SessionID: "busy", Trigger: queue.TriggerStop}
	d, err := writeLearnings(ctx, ix, &transcript.Condensed{}, drafts, rec, time.Now(), nil, func(string) {}, draftOptions{})
	written := d.learnings
	if err != nil || len(written) != 1 {
		t.Fatalf("writeLearnings while the index is busy: %+v, %v", written, err)
	}
	ids := []string{written[0].ID}
	if _, err := os.Stat(filepath.Join(c.DocumentsDir(), ids[0]+".md")); err != nil {
		t.Errorf("learning not on disk: %v", err)
	}

	if err := fl.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, ran, err := ix.Refresh(ctx); err != nil || !ran {
		t.Fatalf("Refresh after the update ended: ran=%v err=%v", ran, err)
	}
	res, err := ix.Search(ctx, index.Query{Text: "flyway migrations out of order", Limit: 5})
	if err != nil || len(res) == 0 || res[0].ID != ids[0] {
		t.Errorf("search after refresh: %+v, %v; want %s first", res, err, ids[0])
	}
}
