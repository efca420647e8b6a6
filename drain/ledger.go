package drain

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/text"
)

// Spend is what the drainer used in one UTC day.
type Spend struct {
	Entries int     `json:"entries"`
	USD     float64 `json:"usd"`
}

// costLine is one line of drain-cost.jsonl: one writer run.
type costLine struct {
	TS    time.Time `json:"ts"`
	Entry string    `json:"entry"`
	// Kind is KindEnrich for an enrich's run, empty for a drain's: their
	// prompts differ in size, and each is priced from its own kind.
	Kind       string  `json:"kind,omitempty"`
	Writer     string  `json:"writer"`
	Outcome    string  `json:"outcome"`
	Learnings  int     `json:"learnings"`
	CostUSD    float64 `json:"cost_usd"`
	DurationMS int64   `json:"duration_ms"`
}

// costLedger is drain-cost.jsonl. Only the drainer holding drain.lock
// writes it, so appends need no lock of their own.
type costLedger struct{ path string }

// today sums the writer runs of now's UTC day. Unparseable lines are
// skipped: a damaged ledger must not stop the drain, and undercounting one
// line is bounded by max_per_run.
func (l costLedger) today(now time.Time) (Spend, error) {
	var s Spend
	f, err := os.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read %s: %w", l.path, err)
	}
	defer f.Close()
	y, m, d := now.UTC().Date()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var c costLine
		if json.Unmarshal(sc.Bytes(), &c) != nil {
			continue
		}
		if cy, cm, cd := c.TS.UTC().Date(); cy == y && cm == m && cd == d {
			s.Entries++
			s.USD += c.CostUSD
		}
	}
	return s, sc.Err()
}

func (l costLedger) add(c costLine) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return appendLine(l.path, append(data, '\n'))
}

// TodaySpend is what the drainer spent today, for `reflect status`.
func TodaySpend(stateDir string, now time.Time) (Spend, error) {
	return costLedger{path: filepath.Join(stateDir, "drain-cost.jsonl")}.today(now)
}

// appendLine appends a whole line or nothing, never through a symlink.
func appendLine(path string, line []byte) error {
	return fsutil.AppendLine(path, line)
}

// maxLogSize is when drain.log is rotated to drain.log.1.
const maxLogSize = 1 << 20

// logEntry appends one redacted line per entry to drain.log.
func logEntry(stateDir string, now time.Time, writer string, e Entry) {
	path := filepath.Join(stateDir, "drain.log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogSize {
		_ = os.Rename(path, path+".1")
	}
	line := fmt.Sprintf("%s %s %s writer=%s outcome=%s learnings=%d cost_usd=%.4f ms=%d",
		now.UTC().Format(time.RFC3339), e.ID, e.Transcript, writer, e.Outcome, len(e.Learnings), e.CostUSD, e.DurationMS)
	if e.Error != "" {
		line += " error=" + e.Error
	}
	_ = appendLine(path, []byte(redact.String(line)+"\n"))
}

// logNote adds a line to drain.log about entry id: what the drainer
// decided that the entry's report does not say (a writer's answer it
// did not follow).
func logNote(stateDir string, now time.Time, id, msg string) {
	line := fmt.Sprintf("%s %s note: %s", now.UTC().Format(time.RFC3339), id, text.OneLine(msg))
	_ = appendLine(filepath.Join(stateDir, "drain.log"), []byte(redact.String(line)+"\n"))
}

const lastDrainFile = "last-drain.json"

func saveLast(stateDir string, rep *Report) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(filepath.Join(stateDir, lastDrainFile), append(data, '\n'), fsutil.FilePerm)
}

// LastRun is the report of the last drain that ran, nil when none has.
func LastRun(stateDir string) (*Report, error) {
	data, err := fsutil.ReadRegular(filepath.Join(stateDir, lastDrainFile), 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("read %s: %w", lastDrainFile, err)
	}
	return &rep, nil
}

// WriterRun is one writer run as drain-cost.jsonl records it: when, which queue
// entry, the writer, its outcome, the learnings written, cost and time.
type WriterRun costLine

// WriterRuns returns the writer runs recorded since since, oldest first
// (`reflect ui`'s activity page). Unparseable lines are skipped, as the
// budget check skips them.
func WriterRuns(stateDir string, since time.Time) ([]WriterRun, error) {
	path := filepath.Join(stateDir, "drain-cost.jsonl")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	var out []WriterRun
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var c costLine
		if json.Unmarshal(sc.Bytes(), &c) != nil || c.TS.Before(since) {
			continue
		}
		out = append(out, WriterRun(c))
	}
	return out, sc.Err()
}
