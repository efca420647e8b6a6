package statusline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reflectkb/reflect/queue"
)

func TestWriteReadRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state") // Write creates it
	want := Event{
		Event:     "prompt",
		TS:        time.Date(2026, 11, 22, 11, 5, 0, 42, time.FixedZone("CET", 3600)),
		Detail:    "recalled 2",
		SessionID: "8f14e45f-ceea-467f-a8f5-7c1b4e0d1a2b",
		Counts:    Counts{Recalled: 3, Queued: 1},
	}
	if err := Write(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !got.TS.Equal(want.TS) || got.TS.Location() != time.UTC {
		t.Errorf("ts = %v, want %v in UTC", got.TS, want.TS)
	}
	got.TS, want.TS = time.Time{}, time.Time{}
	if got != want {
		t.Errorf("Read = %+v, want %+v", got, want)
	}

	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"event", "ts", "detail", "session_id", "counts"} {
		if _, ok := m[k]; !ok {
			t.Errorf("last-event.json lacks %q: %s", k, data)
		}
	}
	if _, ok := m["error"]; ok || len(m) != 5 {
		t.Errorf("last-event.json has unexpected keys: %s", data)
	}
	if c, _ := m["counts"].(map[string]any); c["recalled"] != float64(3) || c["queued"] != float64(1) {
		t.Errorf("counts = %v", m["counts"])
	}
	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}

	// An error event keeps its flag.
	if err := Write(dir, Event{Event: "stop", Error: true}); err != nil {
		t.Fatal(err)
	}
	got, err = Read(dir)
	if err != nil || !got.Error || got.Event != "stop" || got.TS.IsZero() {
		t.Errorf("error event read back as %+v, %v; want error=true and a timestamp", got, err)
	}
}

func TestWriteRedactsAndBoundsDetail(t *testing.T) {
	dir := t.TempDir()
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	if err := Write(dir, Event{Event: "stop", Detail: "push failed with " + secret}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if strings.Contains(string(data), secret) || !strings.Contains(string(data), "push failed with [REDACTED") {
		t.Errorf("secret not redacted in last-event.json: %s", data)
	}
	if err := Write(dir, Event{Event: "stop", Detail: strings.Repeat("x", 5000)}); err != nil {
		t.Fatal(err)
	}
	ev, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(ev.Detail); n != maxDetail || !strings.HasSuffix(ev.Detail, "x…") {
		t.Errorf("detail has %d runes, want %d ending in an ellipsis", n, maxDetail)
	}
}

func TestReadMissingAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	ev, err := Read(dir)
	if err != nil || ev != (Event{}) {
		t.Errorf("Read of a fresh state dir = %+v, %v; want zero event, no error", ev, err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(`{"event":"st`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), FileName) {
		t.Errorf("Read of a corrupt file: err = %v, want one naming the file", err)
	}
	if got := Line(dir, "", false, Drain{}); got != "reflect: queued 0" {
		t.Errorf("Line with a corrupt file = %q, want the empty status", got)
	}
}

// TestWriteIsAtomic races writers against readers: a reader must always see
// one complete event, never a torn or empty file, and no temp file may be
// left behind.
func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, Event{Event: "session-start"}); err != nil {
		t.Fatal(err)
	}
	const writers, rounds = 4, 100
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, writers+1)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				detail := strings.Repeat(string(rune('a'+w)), 50+i) // sizes differ between writes
				if err := Write(dir, Event{Event: "prompt", Detail: detail, Counts: Counts{Recalled: i}}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	reads := 0
	var rwg sync.WaitGroup
	rwg.Add(1)
	go func() {
		defer rwg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			ev, err := Read(dir)
			if err != nil {
				errs <- err
				return
			}
			if ev.Event == "prompt" && len(ev.Detail) != 50+ev.Counts.Recalled {
				errs <- &torn{ev}
				return
			}
			reads++
		}
	}()
	wg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if reads == 0 {
		t.Error("the reader never ran")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != FileName {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("state dir holds %v, want only %s", names, FileName)
	}
}

type torn struct{ ev Event }

func (e *torn) Error() string { return "mixed event read: " + e.ev.Detail }

func TestRender(t *testing.T) {
	now := time.Date(2026, 11, 22, 11, 5, 0, 0, time.UTC)
	ev := func(name, detail, session string, age time.Duration, recalled, queued int) Event {
		return Event{Event: name, Detail: detail, SessionID: session, TS: now.Add(-age),
			Counts: Counts{Recalled: recalled, Queued: queued}}
	}
	tests := []struct {
		name    string
		ev      Event
		session string
		color   bool
		want    string
	}{
		{"nothing happened yet", Event{}, "s1", true, "🧠 queued 0"},
		{"nothing happened yet, plain", Event{}, "", false, "reflect: queued 0"},
		{"own session, old event", ev("prompt", "recalled 2", "s1", time.Minute, 3, 1), "s1", true,
			"🧠 recalled 3 · queued 1"},
		{"own session, plain", ev("prompt", "recalled 2", "s1", time.Minute, 3, 1), "s1", false,
			"reflect: recalled 3, queued 1"},
		{"no session asked for", ev("prompt", "", "s1", time.Minute, 3, 1), "", false,
			"reflect: recalled 3, queued 1"},
		{"another session hides its recall count", ev("prompt", "recalled 2", "s2", time.Minute, 3, 1), "s1", true,
			"🧠 queued 1"},
		{"another session's recent event is not shown", ev("prompt", "recalled 2", "s2", 2*time.Second, 3, 1), "s1", false,
			"reflect: queued 1"},
		{"recent event shows its detail", ev("prompt", "recalled 2", "s1", 2*time.Second, 3, 1), "s1", true,
			"🧠 recalled 3 · queued 1 · " + dim + "recalled 2" + reset},
		{"recent event, plain", ev("prompt", "recalled 2", "s1", 2*time.Second, 3, 1), "s1", false,
			"reflect: recalled 3, queued 1, recalled 2"},
		{"recent event without detail shows its name", ev("stop", "", "s1", time.Second, 0, 2), "s1", false,
			"reflect: recalled 0, queued 2, stop"},
		{"recent drain event shows for every session", ev("drain", "wrote 2 learnings", "", time.Second, 0, 0), "s1", false,
			"reflect: queued 0, wrote 2 learnings"},
		{"event exactly 10 s old is gone", ev("stop", "queued", "s1", 10*time.Second, 1, 1), "s1", false,
			"reflect: recalled 1, queued 1"},
		{"slightly future timestamp (clock skew) counts as recent", ev("stop", "queued", "s1", -time.Second, 1, 1), "s1", false,
			"reflect: recalled 1, queued 1, queued"},
		{"hook error", Event{Event: "stop", Error: true, SessionID: "s1", TS: now.Add(-time.Minute)}, "s1", true,
			"🧠 recalled 0 · queued 0 · " + red + "⚠ stop failed" + reset},
		{"hook error just under errorShown old", Event{Event: "stop", Error: true, SessionID: "s1", TS: now.Add(-errorShown + time.Second)}, "s1", false,
			"reflect: recalled 0, queued 0, error in stop"},
		{"hook error errorShown old is gone", Event{Event: "stop", Error: true, SessionID: "s1", TS: now.Add(-errorShown)}, "s1", false,
			"reflect: recalled 0, queued 0"},
		{"hook error an hour old is gone", Event{Event: "prompt", Error: true, SessionID: "s2", TS: now.Add(-time.Hour)}, "s1", true,
			"🧠 queued 0"},
		{"hook error of another session, plain", Event{Event: "prompt", Error: true, SessionID: "s2", TS: now}, "s1", false,
			"reflect: queued 0, error in prompt"},
		{"hook error without a name", Event{Error: true, TS: now}, "", false, "reflect: queued 0, error in hook"},
		{"control characters and ANSI in detail are neutralised", ev("prompt", "a\nb\x1b[31mc\td", "s1", 0, 1, 0), "s1", false,
			"reflect: recalled 1, queued 0, a b [31mc d"},
		{"long detail is cut", ev("prompt", strings.Repeat("word ", 30), "s1", 0, 12, 345), "s1", false,
			"reflect: recalled 12, queued 345, word word word word..."},
		{"long detail is cut, color", ev("prompt", strings.Repeat("word ", 30), "s1", 0, 12, 345), "s1", true,
			"🧠 recalled 12 · queued 345 · " + dim + "word word word word word…" + reset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(tt.ev, tt.session, tt.color, now, Drain{})
			if got != tt.want {
				t.Errorf("render =\n  %q\nwant\n  %q", got, tt.want)
			}
			visible := strings.NewReplacer(dim, "", red, "", reset, "").Replace(got)
			if w := width(visible); w >= 60 {
				t.Errorf("fragment is %d columns wide, want < 60: %q", w, visible)
			}
		})
	}
}

// TestRenderDrain: the writer and today's runs follow the counts, with the
// spend in cents (never "$0.00" for a tenth of a cent) for an LLM writer.
func TestRenderDrain(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	recent := Event{Event: "stop", Detail: "queued", SessionID: "s1", TS: now.Add(-time.Second), Counts: Counts{Recalled: 1, Queued: 2}}
	for _, tt := range []struct {
		name  string
		ev    Event
		d     Drain
		color bool
		want  string
	}{
		{"llm writer, a tenth of a cent", Event{}, Drain{Writer: "claude", LLM: true, Runs: 2, USD: 0.001}, false,
			"reflect: queued 0, claude 2 runs 0.1¢"},
		{"llm writer, nothing yet", Event{}, Drain{Writer: "codex", LLM: true}, true,
			"🧠 queued 0 · codex 0 runs 0¢"},
		{"builtin spends nothing", Event{}, Drain{Writer: "builtin", Runs: 1}, false,
			"reflect: queued 0, builtin 1 run"},
		{"over a dollar", Event{}, Drain{Writer: "claude", LLM: true, Runs: 20, USD: 1.5}, false,
			"reflect: queued 0, claude 20 runs $1.50"},
		{"drafts wait for review", Event{}, Drain{Writer: "claude", LLM: true, Runs: 1, USD: 0.0412, Review: 3}, true,
			"🧠 queued 0 · 3 to review · claude 1 run 4.12¢"},
		{"the event still follows", recent, Drain{Writer: "claude", LLM: true, Runs: 1, USD: 0.0412}, false,
			"reflect: recalled 1, queued 2, claude 1 run 4.12¢, queued"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(tt.ev, "s1", tt.color, now, tt.d); got != tt.want {
				t.Errorf("render =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

func TestRenderStaysShort(t *testing.T) {
	huge := Event{Event: strings.Repeat("e", 100), Detail: strings.Repeat("d", 100), SessionID: "s",
		TS: time.Now(), Counts: Counts{Recalled: 1 << 30, Queued: 1 << 30}}
	for _, color := range []bool{true, false} {
		for _, errFlag := range []bool{true, false} {
			huge.Error = errFlag
			got := Render(huge, "s", color)
			visible := strings.NewReplacer(dim, "", red, "", reset, "").Replace(got)
			if w := width(visible); w >= 60 {
				t.Errorf("Render(color=%v, error=%v) is %d columns: %q", color, errFlag, w, visible)
			}
		}
	}
}

func TestLineUsesLiveQueueDepth(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, Event{Event: "prompt", SessionID: "s1", TS: time.Now().Add(-time.Minute),
		Counts: Counts{Recalled: 2, Queued: 7}}); err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a", "b"} {
		tr := filepath.Join(t.TempDir(), s+".jsonl")
		if err := os.WriteFile(tr, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if ok, reason, err := q.Enqueue(queue.Record{TranscriptPath: tr, SessionID: s,
			Trigger: queue.TriggerStop, Harness: queue.HarnessClaude}); !ok || err != nil {
			t.Fatalf("Enqueue = %v, %q, %v", ok, reason, err)
		}
	}
	if got, want := Line(dir, "s1", false, Drain{}), "reflect: recalled 2, queued 2"; got != want {
		t.Errorf("Line = %q, want %q (live depth, not the stored 7)", got, want)
	}
}

func TestLineOnFreshMachineCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	if got := Line(dir, "s1", true, Drain{}); got != "🧠 queued 0" {
		t.Errorf("Line = %q", got)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Line created the state directory (stat err %v)", err)
	}
}
