package drain

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/recall"
)

// A session is drained more than once as its transcript grows (at a
// compaction, then at its end): counted remembers which learnings each
// session has already confirmed or refuted, so one session counts once.
const (
	countedFile = "drain-signals.json"
	// countedMax bounds the file; the oldest pairs go first. A pair older
	// than the injection ledger keeps cannot be drained again anyway.
	countedMax      = 20000
	countedMaxBytes = 4 << 20
)

type countedSet map[string]time.Time

func countedKey(session, id string) string { return session + "\t" + id }

func loadCounted(stateDir string) countedSet {
	m := countedSet{}
	data, err := fsutil.ReadRegular(filepath.Join(stateDir, countedFile), countedMaxBytes)
	if err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

func (m countedSet) has(session, id string) bool {
	_, ok := m[countedKey(session, id)]
	return ok
}

func (m countedSet) add(session, id string, now time.Time) {
	m[countedKey(session, id)] = now.UTC().Truncate(time.Second)
}

// save writes the set after dropping the pairs older than the ledger
// keeps and, past countedMax, the oldest.
func (m countedSet) save(stateDir string, now time.Time) error {
	oldest := now.AddDate(0, 0, -recall.LedgerKeepDays)
	keys := make([]string, 0, len(m))
	for k, t := range m {
		if t.Before(oldest) {
			delete(m, k)
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) > countedMax {
		sort.Slice(keys, func(i, j int) bool { return m[keys[i]].Before(m[keys[j]]) })
		for _, k := range keys[:len(keys)-countedMax] {
			delete(m, k)
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(filepath.Join(stateDir, countedFile), data, fsutil.FilePerm)
}
