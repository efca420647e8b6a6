package recall

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/text"
)

// The injection ledger: one JSON line per injection, in one file per UTC
// day under $REFLECT_STATE_DIR/injections/, so that recording is an append
// to today's file (no read: the prompt hook pays one open and one write)
// and keeping 90 days is deleting whole files.
const (
	ledgerDir = "injections"
	// LedgerKeepDays is how long injections are kept.
	LedgerKeepDays = 90
	// ledgerDayMax stops a day's file from growing past it (about 2,500
	// injections, far above a day of real use); with ledgerOlderMax it
	// bounds the ledger at 5 MB whatever happens.
	ledgerDayMax = 1 << 20
	// ledgerOlderMax is what the days before today may hold: the oldest
	// are deleted, when a day's file is started, until they fit.
	ledgerOlderMax = 4 << 20
	// ledgerQueryRunes clips the recorded query: it says why, it is not a
	// transcript.
	ledgerQueryRunes = 80
)

// Injection is one recorded injection.
type Injection struct {
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Agent   string    `json:"agent"`
	Hook    string    `json:"hook"`
	IDs     []string  `json:"ids"`
	// Evidence is each injected learning's relevance evidence (Hit.Evidence),
	// in the order of IDs: why each cleared the floor.
	Evidence []float64 `json:"evidence"`
	// Query is what was searched for (the prompt, or the project, branch
	// and commits at session start), redacted and clipped.
	Query string `json:"query"`
}

// ledgerLine is an Injection as stored: short keys, since a line per
// injection adds up.
type ledgerLine struct {
	T   string    `json:"t"`
	S   string    `json:"s"`
	A   string    `json:"a"`
	H   string    `json:"h"`
	IDs []string  `json:"ids"`
	Ev  []float64 `json:"ev"`
	Q   string    `json:"q"`
}

// RecordInjection appends what res injected to the ledger, when it
// injected anything. agent and hook name the caller (claude, prompt).
func RecordInjection(stateDir, agent, hook, session string, res Result, now time.Time) error {
	if stateDir == "" || len(res.Injected) == 0 {
		return nil
	}
	l := ledgerLine{T: now.UTC().Format(time.RFC3339), S: session, A: agent, H: hook,
		Q: text.ClipRunesTrim(text.OneLine(redact.String(res.Query)), ledgerQueryRunes)}
	for _, h := range res.Injected {
		l.IDs = append(l.IDs, h.ID)
		l.Ev = append(l.Ev, math.Round(h.Evidence*100)/100)
	}
	line, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return appendLedger(filepath.Join(stateDir, ledgerDir), now, append(line, '\n'))
}

func appendLedger(dir string, now time.Time, line []byte) error {
	path := filepath.Join(dir, now.UTC().Format(time.DateOnly)+".jsonl")
	f, err := fsutil.OpenPrivate(path, os.O_APPEND|os.O_WRONLY)
	if errors.Is(err, fs.ErrNotExist) {
		if err = fsutil.EnsurePrivateDir(dir); err == nil {
			f, err = fsutil.OpenPrivate(path, os.O_APPEND|os.O_WRONLY)
		}
	}
	if err != nil {
		return fmt.Errorf("record injection: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("record injection: %w", err)
	}
	switch {
	case fi.Size() == 0:
		// A new day: the time to let old days go.
		pruneLedger(dir, now)
	case fi.Size()+int64(len(line)) > ledgerDayMax:
		return fmt.Errorf("record injection: today's ledger is full (%d bytes); not recorded", fi.Size())
	}
	// One write on an O_APPEND descriptor: concurrent hooks' lines do not
	// interleave.
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("record injection: %w", err)
	}
	return f.Close()
}

// pruneLedger deletes the days older than LedgerKeepDays, then the oldest
// days before today until they take at most ledgerOlderMax.
func pruneLedger(dir string, now time.Time) {
	days, _ := ledgerDays(dir)
	today := now.UTC().Format(time.DateOnly)
	oldest := now.UTC().AddDate(0, 0, -LedgerKeepDays).Format(time.DateOnly)
	var total int64
	keep := days[:0]
	for _, d := range days {
		switch {
		case d.day == today:
		case d.day < oldest:
			_ = os.Remove(d.path)
		default:
			keep = append(keep, d)
			total += d.size
		}
	}
	for i := 0; total > ledgerOlderMax && i < len(keep); i++ {
		if os.Remove(keep[i].path) == nil {
			total -= keep[i].size
		}
	}
}

type ledgerDay struct {
	day, path string
	size      int64
	mod       time.Time
}

// ledgerDays lists the ledger's day files, oldest first.
func ledgerDays(dir string) ([]ledgerDay, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []ledgerDay
	for _, e := range entries {
		day, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if _, err := time.Parse(time.DateOnly, day); err != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, ledgerDay{day: day, path: filepath.Join(dir, e.Name()), size: fi.Size(), mod: fi.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].day < out[j].day })
	return out, nil
}

// LedgerFilter selects injections.
type LedgerFilter struct {
	// Session keeps one session's injections ("" keeps all).
	Session string
	// Since keeps injections at or after it (zero keeps all).
	Since time.Time
}

// ReadLedger returns the recorded injections that f selects, oldest
// first. Lines that do not parse (a file edited by hand) are skipped.
func ReadLedger(stateDir string, f LedgerFilter) ([]Injection, error) {
	days, err := ledgerDays(filepath.Join(stateDir, ledgerDir))
	if errors.Is(err, fs.ErrNotExist) {
		return []Injection{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []Injection{}
	since := ""
	if !f.Since.IsZero() {
		since = f.Since.UTC().Format(time.DateOnly)
	}
	for _, d := range days {
		if d.day < since {
			continue
		}
		data, err := fsutil.ReadRegular(d.path, ledgerDayMax+64<<10)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(make([]byte, 64<<10), ledgerDayMax+64<<10)
		for sc.Scan() {
			var l ledgerLine
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			t, err := time.Parse(time.RFC3339, l.T)
			if err != nil || (!f.Since.IsZero() && t.Before(f.Since)) || (f.Session != "" && l.S != f.Session) {
				continue
			}
			out = append(out, Injection{Time: t, Session: l.S, Agent: l.A, Hook: l.H, IDs: l.IDs, Evidence: l.Ev, Query: l.Q})
		}
	}
	return out, nil
}

// LedgerStamp names the ledger's state without reading it: it changes
// when an injection is recorded (a day's file grows) or a day is pruned or
// edited, so a reader that keeps what ReadLedger returned (the web view)
// reads again only then. "" when there is no ledger.
func LedgerStamp(stateDir string) string {
	days, err := ledgerDays(filepath.Join(stateDir, ledgerDir))
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, d := range days {
		fmt.Fprintf(&b, "%s:%d:%d;", d.day, d.size, d.mod.UnixNano())
	}
	return b.String()
}
