package statusline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/money"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/queue"
)

// FileName is the event file under the state directory (ARCHITECTURE §3).
const FileName = "last-event.json"

// maxDetail bounds the stored detail: the file is read on every status bar
// refresh, and only a few words of it are ever shown.
const maxDetail = 200

// Event is the content of last-event.json.
type Event struct {
	// Event names what happened: a hook event ("session-start", "prompt",
	// "post-tool", "pre-compact", "stop", "session-end") or "drain".
	Event string    `json:"event"`
	TS    time.Time `json:"ts"`
	// Detail is a few words for humans, e.g. "recalled 2" or "already queued".
	Detail    string `json:"detail"`
	SessionID string `json:"session_id"`
	// Error marks a hook that failed open; the details are in logs/hooks.log.
	Error  bool   `json:"error,omitempty"`
	Counts Counts `json:"counts"`
}

// Counts are the numbers the status fragment shows.
type Counts struct {
	Recalled int `json:"recalled"` // learnings recalled into SessionID so far
	Queued   int `json:"queued"`   // queue depth when the event was written
}

// Write replaces last-event.json in stateDir with ev. TS defaults to now and
// is stored in UTC. Detail is redacted and shortened first: it may quote
// prompts or errors, and nothing reaches the state directory unredacted.
func Write(stateDir string, ev Event) error {
	if stateDir == "" {
		return errors.New("write last event: empty state directory")
	}
	if ev.TS.IsZero() {
		ev.TS = time.Now()
	}
	ev.TS = ev.TS.UTC()
	ev.Detail = truncate(redact.String(ev.Detail), maxDetail, "…")
	data, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("write last event: %w", err)
	}
	return fsutil.WriteLocked(filepath.Join(stateDir, FileName), append(data, '\n'), fsutil.FilePerm)
}

// Read returns the last event of stateDir. A missing file is the zero Event
// and no error: nothing has happened yet on this machine.
func Read(stateDir string) (Event, error) {
	path := filepath.Join(stateDir, FileName)
	data, err := fsutil.ReadLocked(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Event{}, nil
	}
	if err != nil {
		return Event{}, fmt.Errorf("read %s: %w", path, err)
	}
	var ev Event
	if err := json.Unmarshal(data, &ev); err != nil {
		return Event{}, fmt.Errorf("read %s: %w (it is rewritten by the next hook)", path, err)
	}
	return ev, nil
}

// Drain is the drainer's writer and what it did today, as the status line
// shows them after the counts: the user should see, at a glance, whether
// an LLM writes their learnings and what it has spent. The zero Drain
// shows nothing.
type Drain struct {
	// Writer names the writer a drain would use (builtin, claude, …).
	Writer string
	// LLM says whether Writer runs a language model, and so may spend.
	LLM bool
	// Runs and USD are today's (UTC) writer runs and spend.
	Runs int
	USD  float64
	// Review is how many drafts wait for 'reflect review': shown
	// whenever there are any, so an unreviewed inbox is never silent.
	Review int
}

// segment is d in a few words: "claude 2 runs 4.42¢", "builtin 1 run"; the
// spend is named for an LLM writer even at 0¢, and for any writer that
// spent.
func (d Drain) segment() string {
	if d.Writer == "" {
		return ""
	}
	runs := "runs"
	if d.Runs == 1 {
		runs = "run"
	}
	s := fmt.Sprintf("%s %d %s", clean(d.Writer), d.Runs, runs)
	if d.LLM || d.USD > 0 {
		s += " " + money.USD(d.USD)
	}
	return s
}

// Line is the status fragment for sessionID as `reflect statusline` prints
// it: the last event with the live queue depth instead of the depth stored
// with the event, which is stale as soon as the drainer runs, and d, the
// writer and today's runs. A corrupt event file renders like a missing one.
func Line(stateDir, sessionID string, color bool, d Drain) string {
	ev, err := Read(stateDir)
	if err != nil {
		ev = Event{}
	}
	if q, err := queue.Open(stateDir); err == nil {
		ev.Counts.Queued = q.Depth()
	}
	return render(ev, sessionID, color, time.Now(), d)
}

// recent is how long the last event is shown after the counts. Status bars
// refresh on agent activity, so a longer window would keep showing the
// previous turn's event as if it were current.
const recent = 10 * time.Second

// errorShown is how long a failed hook stays on the status line when no
// event replaces it: long enough to be seen across a few turns, short
// enough that one mistyped command does not mark every later session as
// failing (the failure stays in logs/hooks.log and 'reflect status').
const errorShown = 5 * time.Minute

// maxWidth is the most columns a fragment takes, so that it fits next to
// the model name and the cwd in a status bar.
const maxWidth = 59

// ANSI styles for color output.
const (
	dim   = "\x1b[2m"
	red   = "\x1b[31m"
	reset = "\x1b[0m"
)

// Render returns the one-line status fragment for ev as seen from sessionID
// (empty: any session):
//
//	color: 🧠 recalled 3 · queued 1 · recalled 2
//	plain: reflect: recalled 3, queued 1, recalled 2
//
// The recalled count is shown only for the session the event belongs to: a
// count from another session (or from the drainer) would be wrong here. The
// queue depth is machine-wide and always shown. The event itself (its detail,
// else its name) follows while it is less than 10 s old and concerns this
// session or none. A failed hook is shown, whatever its session, until the
// next event replaces it or it is 5 minutes old: the user should learn that
// hooks fail, but not keep seeing one old failure. color
// selects the emoji, the middle dots and ANSI styles (dim event, red error);
// plain output uses ASCII decorations only.
func Render(ev Event, sessionID string, color bool) string {
	return render(ev, sessionID, color, time.Now(), Drain{})
}

func render(ev Event, sessionID string, color bool, now time.Time, d Drain) string {
	prefix, sep, ellipsis := "🧠 ", " · ", "…"
	if !color {
		prefix, sep, ellipsis = "reflect: ", ", ", "..."
	}
	name := clean(ev.Event)
	var counts []string
	if ev.SessionID != "" && (sessionID == "" || sessionID == ev.SessionID) {
		counts = append(counts, fmt.Sprintf("recalled %d", ev.Counts.Recalled))
	}
	counts = append(counts, fmt.Sprintf("queued %d", ev.Counts.Queued))
	if d.Review > 0 {
		counts = append(counts, fmt.Sprintf("%d to review", d.Review))
	}
	if seg := d.segment(); seg != "" {
		counts = append(counts, seg)
	}
	head := prefix + strings.Join(counts, sep)

	var tail, style string
	age := now.Sub(ev.TS)
	switch {
	case ev.Error && age < errorShown:
		if name == "" {
			name = "hook"
		}
		tail, style = "⚠ "+name+" failed", red
		if !color {
			tail = "error in " + name
		}
	case name != "" && age > -recent && age < recent &&
		(sessionID == "" || ev.SessionID == "" || ev.SessionID == sessionID):
		tail, style = name, dim
		if d := clean(ev.Detail); d != "" {
			tail = d
		}
	}
	room := maxWidth - width(head) - width(sep)
	if tail == "" || room < 8 { // a stub of a word says nothing
		return head
	}
	tail = truncate(tail, room, ellipsis)
	if color {
		tail = style + tail + reset
	}
	return head + sep + tail
}

// clean makes untrusted text safe for one terminal line: control characters
// (newlines, ESC of injected ANSI sequences) become spaces, and runs of
// spaces collapse.
func clean(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError
	}), " ")
}

// truncate shortens s to at most n columns, ending in ellipsis when cut,
// preferably at a word boundary so that the last word shown is whole.
func truncate(s string, n int, ellipsis string) string {
	if width(s) <= n {
		return s
	}
	limit := n - width(ellipsis)
	w, cut := 0, len(s)
	for i, r := range s {
		if w+runeWidth(r) > limit {
			cut = i
			break
		}
		w += runeWidth(r)
	}
	head := s[:cut]
	if sp := strings.LastIndexByte(head, ' '); sp > len(head)/2 {
		head = head[:sp]
	}
	return strings.TrimRight(head, " ") + ellipsis
}

// width approximates terminal columns: emoji and other symbols beyond the
// Basic Multilingual Plane are drawn two columns wide.
func width(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

func runeWidth(r rune) int {
	if r >= 0x1F000 {
		return 2
	}
	return 1
}
