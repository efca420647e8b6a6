package backfill

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// planAndSave plans w with backfill.json and saves what the plan read, as
// `reflect backfill --dry-run` does.
func planAndSave(t *testing.T, w *world) *Plan {
	t.Helper()
	st, err := LoadState(w.dirs.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	p := w.planWith(t, Options{}, st)
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	return p
}

func sessionOf(t *testing.T, p *Plan, path string) Session {
	t.Helper()
	for _, s := range p.Sessions {
		if s.Path == path {
			return s
		}
	}
	t.Fatalf("%s not in the plan", path)
	return Session{}
}

// A second plan (the run after a --dry-run) takes what the first one read
// of a file unchanged in size and time from backfill.json instead of
// condensing it again: a file whose bytes were swapped under the same
// size and time still plans as it read the first time.
func TestPlanReusesWhatItRead(t *testing.T) {
	w := newWorld(t)
	path := w.paths["claude"]
	first := sessionOf(t, planAndSave(t, w), path)
	if first.Status != StatusNew || first.Condensed == 0 || first.Cwd == "" {
		t.Fatalf("first plan: %+v", first)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w.write(t, path, bytes.Repeat([]byte(" "), len(data)), first.Modified)
	again := sessionOf(t, w.plan(t, Options{}), path)
	if again.Status != StatusNew || again.Condensed != first.Condensed || again.Cwd != first.Cwd || again.SessionID != first.SessionID {
		t.Errorf("the second plan read the file again: %+v, want %+v", again, first)
	}

	// Touched (a new time), it is read again: blank, nothing to reflect.
	w.write(t, path, bytes.Repeat([]byte(" "), len(data)), first.Modified.Add(time.Minute))
	if s := sessionOf(t, w.plan(t, Options{}), path); s.Status != StatusNothing {
		t.Errorf("a changed file planned from the old reading: %+v", s)
	}
}

// Readings made by another reflect executable are dropped: another build
// may condense differently.
func TestPlanDropsReadingsOfAnotherBuild(t *testing.T) {
	w := newWorld(t)
	planAndSave(t, w)
	st, err := LoadState(w.dirs.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Read) != len(w.paths) {
		t.Fatalf("backfill.json holds %d readings, want %d", len(st.Read), len(w.paths))
	}
	st.Condenser = "another-build"
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	if st, err = LoadState(w.dirs.StateDir); err != nil || len(st.Read) != 0 {
		t.Errorf("readings of another build kept: %d (%v)", len(st.Read), err)
	}
}

// A session out of --project's range is read once too: planning for
// another project next reuses it.
func TestPlanRemembersSessionsOutOfProject(t *testing.T) {
	w := newWorld(t)
	st, err := LoadState(w.dirs.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	p := w.planWith(t, Options{Project: "/elsewhere"}, st)
	if len(p.Sessions) != 0 {
		t.Fatalf("sessions of another project planned: %+v", p.Sessions)
	}
	if _, ok := st.Read[w.paths["claude"]]; !ok {
		t.Errorf("the session out of range was not remembered: %+v", st.Read)
	}
}

// Once queued, a session's record answers for it: its reading is dropped,
// so backfill.json holds one entry a session.
func TestEnqueueDropsTheReading(t *testing.T) {
	w := newWorld(t)
	planAndSave(t, w)
	w.run(t, Options{})
	st, err := LoadState(w.dirs.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sessions) != len(w.paths) || len(st.Read) != 0 {
		t.Errorf("after the run: %d records, %d readings (want %d, 0)", len(st.Sessions), len(st.Read), len(w.paths))
	}
}
