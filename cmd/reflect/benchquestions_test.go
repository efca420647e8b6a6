package main

import (
	"encoding/json"
	"testing"

	"github.com/reflectkb/reflect/bench"
)

// `bench recall --questions` runs the set with its writer questions and
// padding that asks too; the questions change what is recalled on the
// project's own set padded to 60 (a prompt in other words finds its
// learning through them), so the two reports differ.
func TestBenchRecallQuestions(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	report := func(args ...string) *bench.RecallReport {
		var r bench.RecallReport
		out := k.mustRun(t, append([]string{"bench", "recall", "--set", "recallset", "--sizes", "60", "--json"}, args...)...)
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Sizes) != 1 {
			t.Fatalf("bench recall %v: %v\n%s", args, err, out)
		}
		return &r
	}
	plain, asked := report(), report("--questions")
	a, _ := json.Marshal(plain.Sizes[0].Tuning)
	b, _ := json.Marshal(asked.Sizes[0].Tuning)
	if string(a) == string(b) {
		t.Errorf("--questions changed nothing:\n%s", a)
	}
}
