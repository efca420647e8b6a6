package recall

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// hitsFile counts, per UTC day, the learnings recall injected into
// sessions: {"2026-11-25": 12}. The per-session dedupe files cannot give
// this history, since a cleared or compacted session starts its file
// again; `reflect ui` charts it.
const hitsFile = "recall-hits.json"

// hitsKeepDays bounds the file: older days are dropped when it is written.
const hitsKeepDays = 90

// recordHits adds n injections on now's UTC day. The caller holds the
// session lock, which serialises its read-modify-write between hooks.
func recordHits(stateDir string, now time.Time, n int) error {
	if n <= 0 {
		return nil
	}
	path := filepath.Join(stateDir, hitsFile)
	days := readHits(path)
	days[now.UTC().Format(time.DateOnly)] += n
	oldest := now.UTC().AddDate(0, 0, -hitsKeepDays).Format(time.DateOnly)
	for d := range days {
		if d < oldest {
			delete(days, d)
		}
	}
	data, err := json.Marshal(days)
	if err != nil {
		return err
	}
	if err := fsutil.WriteAtomicNoSync(path, data, fsutil.FilePerm); err != nil {
		return fmt.Errorf("record recall hits: %w", err)
	}
	return nil
}

// HitsPerDay returns how many learnings recall injected on each UTC day
// ("2006-01-02") of the last 90; a day without a recall has no key. A
// missing or unreadable file reads as no recalls.
func HitsPerDay(stateDir string) map[string]int {
	return readHits(filepath.Join(stateDir, hitsFile))
}

func readHits(path string) map[string]int {
	days := map[string]int{}
	data, err := os.ReadFile(path)
	if err != nil {
		return days
	}
	if json.Unmarshal(data, &days) != nil || days == nil {
		return map[string]int{}
	}
	return days
}
