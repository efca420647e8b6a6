package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/knowledge"
)

// reflect drain says what each session said of the learnings, one line a
// signal, its reason made one safe line.
func TestPrintDrainSignals(t *testing.T) {
	var out bytes.Buffer
	f := &Factory{IO: &Streams{Out: &out}}
	printDrain(f, &drain.Report{Ran: true, Writer: "builtin", WriterWhy: "default", Entries: []drain.Entry{{
		ID: "q-1", Outcome: drain.OutcomeNothing, Transcript: "/t.jsonl",
		Signals: []knowledge.Signal{
			{ID: "lrn-npm-ci-1a2b3c", Kind: knowledge.SignalConfirmed},
			{ID: "lrn-old-cache-1a2b3c", Kind: knowledge.SignalStale, Reason: "cited files gone: a.go,\nb.go\x1b[2J"},
		},
	}}})
	for _, want := range []string{
		"\n      confirmed  lrn-npm-ci-1a2b3c\n",
		"\n      stale      lrn-old-cache-1a2b3c  (cited files gone: a.go, b.go",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("an escape sequence reached the terminal:\n%q", out.String())
	}
}
