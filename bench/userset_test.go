package bench

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// TestLoadUserSet checks the user-written set's shape: big enough to
// calibrate on (three times the project's own set), every kind in both
// parts of the split, learnings named after their ids and some without
// any prompt (padding, as in a real KB).
func TestLoadUserSet(t *testing.T) {
	set, err := LoadSet(SetUser)
	if err != nil {
		t.Fatal(err)
	}
	old, err := LoadRecallSet()
	if err != nil {
		t.Fatal(err)
	}
	if set.Name != SetUser || old.Name != SetRecall {
		t.Errorf("names %q, %q", set.Name, old.Name)
	}
	count := map[string]map[bool]int{}
	for _, k := range Kinds {
		count[k] = map[bool]int{}
	}
	ids := map[string]bool{}
	prompted := map[string]int{}
	held := 0
	for _, p := range set.Prompts {
		if ids[p.ID] {
			t.Errorf("prompt id %s twice", p.ID)
		}
		ids[p.ID] = true
		count[p.Kind][p.HeldOut()]++
		if p.HeldOut() {
			held++
		}
		if p.Want != "" {
			if set.Learnings[p.Want+".md"] == nil {
				t.Errorf("prompt %s wants %s, which is not in the set", p.ID, p.Want)
			}
			prompted[p.Want]++
		}
	}
	silent := count[KindSilent][false] + count[KindSilent][true]
	answerable := len(set.Prompts) - silent
	if len(set.Learnings) < 150 || len(set.Prompts) < 3*len(old.Prompts) || answerable < 450 || silent < 150 {
		t.Errorf("set has %d learnings, %d prompts (%d answerable, %d silent); want ≥ 150 learnings, ≥ %d prompts, ≥ 450 answerable, ≥ 150 silent",
			len(set.Learnings), len(set.Prompts), answerable, silent, 3*len(old.Prompts))
	}
	for _, k := range Kinds {
		for _, h := range []bool{false, true} {
			if count[k][h] < 20 {
				t.Errorf("%s prompts, held out %v: %d, want ≥ 20", k, h, count[k][h])
			}
		}
	}
	if held < len(set.Prompts)/4 || held > len(set.Prompts)/2 {
		t.Errorf("%d of %d prompts held out", held, len(set.Prompts))
	}
	if padding := len(set.Learnings) - len(prompted); padding < 5 {
		t.Errorf("%d learnings without a prompt, want some (≥ 5) to pad the KB as real ones do", padding)
	}
	mini := 0
	for name, data := range set.Learnings {
		if !strings.HasPrefix(name, "lrn-") {
			t.Errorf("learning file %s: want lrn-<slug>-<hex>.md", name)
		}
		if strings.Contains(string(data), "\ntype: mini\n") {
			mini++
		}
	}
	if mini == 0 {
		t.Error("no mini-learnings in the set")
	}
}

func TestLoadSetUnknownName(t *testing.T) {
	_, err := LoadSet("nope")
	if err == nil || !strings.Contains(err.Error(), "recallset, userset") {
		t.Fatalf("err = %v, want one naming the sets", err)
	}
}

// TestLoadSetRejects: a mistake in a hand-written set fails the load with
// the line, instead of quietly skewing a rate.
func TestLoadSetRejects(t *testing.T) {
	const learning = "---\nid: lrn-a-111111\ntitle: A\nconfidence: high\ncreated: 2026-01-01T00:00:00Z\n---\n## Problem\nx\n"
	good := `{"id":"u1","kind":"error","want":"lrn-a-111111","prompt":"boom"}` + "\n" +
		`{"id":"u2","kind":"silent","prompt":"rename this"}` + "\n"
	cases := []struct {
		name, kbName, kb, prompts, want string
	}{
		{"good", "lrn-a-111111.md", learning, good, ""},
		{"duplicate id", "lrn-a-111111.md", learning, good + `{"id":"u1","kind":"silent","prompt":"again"}` + "\n", "u1 already on line 1"},
		{"unknown kind", "lrn-a-111111.md", learning, `{"id":"u1","kind":"typo","want":"lrn-a-111111","prompt":"boom"}` + "\n", `unknown kind "typo"`},
		{"missing learning", "lrn-a-111111.md", learning, `{"id":"u1","kind":"error","want":"lrn-b-222222","prompt":"boom"}` + "\n", "no learning lrn-b-222222"},
		{"silent with want", "lrn-a-111111.md", learning, `{"id":"u1","kind":"silent","want":"lrn-a-111111","prompt":"boom"}` + "\n", `kind "silent" with want`},
		{"answerable without want", "lrn-a-111111.md", learning, `{"id":"u1","kind":"natural","prompt":"boom"}` + "\n", `kind "natural" with want ""`},
		{"no id", "lrn-a-111111.md", learning, `{"kind":"silent","prompt":"boom"}` + "\n", "no id"},
		{"empty prompt", "lrn-a-111111.md", learning, `{"id":"u1","kind":"silent","prompt":"  "}` + "\n", "empty prompt"},
		{"bad json", "lrn-a-111111.md", learning, "{\n", "prompts.jsonl:1"},
		{"file not named after id", "lrn-other.md", learning, `{"id":"u2","kind":"silent","prompt":"x"}` + "\n", "does not match the file name"},
		{"learning does not parse", "lrn-a-111111.md", "no frontmatter here\n", `{"id":"u2","kind":"silent","prompt":"x"}` + "\n", "lrn-a-111111.md"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"s/kb/" + c.kbName: {Data: []byte(c.kb)},
				"s/prompts.jsonl":  {Data: []byte(c.prompts)},
			}
			set, err := loadSet(fsys, "s")
			if c.want == "" {
				if err != nil || len(set.Prompts) != 2 || len(set.Learnings) != 1 {
					t.Fatalf("set %+v, err %v", set, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestRecallUserSetAccounting runs the user set at 100 learnings (two KBs)
// with a recall that injects the top search hit whatever its score, to
// check the accounting, not retrieval quality: each answerable prompt is
// asked once, of the KB that holds its learning; each silent prompt of
// every KB; the counts add up.
func TestRecallUserSetAccounting(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes two knowledge bases")
	}
	set, err := LoadSet(SetUser)
	if err != nil {
		t.Fatal(err)
	}
	top1 := func(ctx context.Context, ix *index.Index, prompt string, now time.Time) ([]string, string, error) {
		res, err := ix.Search(ctx, index.Query{Text: prompt, Limit: 1, Now: now})
		if err != nil || len(res) == 0 {
			return nil, "", err
		}
		return []string{res[0].ID}, res[0].Title, nil
	}
	rep, err := Recall(context.Background(), set, RecallOptions{Sizes: []int{100}, WorkDir: t.TempDir(), Recall: top1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Set != SetUser || rep.Learnings != len(set.Learnings) || rep.Prompts != len(set.Prompts) {
		t.Errorf("report header %q %d %d", rep.Set, rep.Learnings, rep.Prompts)
	}
	s := rep.Sizes[0]
	if s.KBs != 2 {
		t.Fatalf("%d KBs at size 100 for %d learnings, want 2", s.KBs, len(set.Learnings))
	}
	want := map[string]map[bool]int{}
	for _, k := range Kinds {
		want[k] = map[bool]int{}
	}
	for _, p := range set.Prompts {
		n := 1
		if p.Kind == KindSilent {
			n = s.KBs
		}
		want[p.Kind][p.HeldOut()] += n
	}
	for _, k := range Kinds {
		for _, h := range []bool{false, true} {
			part := s.Tuning
			if h {
				part = s.HeldOut
			}
			ks := part.Kinds[k]
			if ks.Prompts != want[k][h] {
				t.Errorf("%s held out %v: %d prompts asked, want %d", k, h, ks.Prompts, want[k][h])
			}
			if k == KindSilent {
				// The stand-in recall injects whenever search finds anything.
				if ks.Injected == 0 {
					t.Errorf("silent held out %v: nothing injected by a recall that always injects", h)
				}
				continue
			}
			if ks.Recalled+ks.Wrong+ks.Missed != ks.Prompts {
				t.Errorf("%s held out %v: counts do not add up: %+v", k, h, ks)
			}
		}
	}
}

// Both sets carry a writer's questions for every learning, and
// WithQuestions writes them into the frontmatter and nothing else changes.
func TestSetQuestions(t *testing.T) {
	for _, name := range SetNames {
		set, err := LoadSet(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Questions) != len(set.Learnings) {
			t.Fatalf("%s: questions for %d of %d learnings", name, len(set.Questions), len(set.Learnings))
		}
		with, err := set.WithQuestions()
		if err != nil {
			t.Fatal(err)
		}
		for file, data := range with.Learnings {
			l, err := store.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			orig, _ := store.Parse(set.Learnings[file])
			if strings.Join(l.Questions, "|") != strings.Join(set.Questions[l.ID], "|") || len(l.Questions) < 3 {
				t.Errorf("%s/%s: questions %q, want %q", name, file, l.Questions, set.Questions[l.ID])
			}
			if l.Title != orig.Title || l.Body != orig.Body || strings.Join(l.Symptoms, "|") != strings.Join(orig.Symptoms, "|") {
				t.Errorf("%s/%s: WithQuestions changed more than the questions", name, file)
			}
		}
	}
	if _, err := (&RecallSet{Name: "bare"}).WithQuestions(); err == nil {
		t.Error("WithQuestions on a set without questions should fail")
	}
}

// A questions.jsonl that names a learning the set lacks, or one twice,
// fails to load.
func TestQuestionsFileIsChecked(t *testing.T) {
	kb := "---\nid: lrn-a\ntitle: a\nconfidence: high\ncreated: 2026-01-02T03:04:05Z\n---\nbody\n"
	prompts := `{"id":"p1","kind":"silent","prompt":"hello"}` + "\n"
	for name, q := range map[string]string{
		"unknown": `{"id":"lrn-b","questions":["why?"]}`,
		"twice":   `{"id":"lrn-a","questions":["why?"]}` + "\n" + `{"id":"lrn-a","questions":["how?"]}`,
		"empty":   `{"id":"lrn-a","questions":[]}`,
		"garbage": `{"id":`,
	} {
		fsys := fstest.MapFS{"s/kb/lrn-a.md": {Data: []byte(kb)}, "s/prompts.jsonl": {Data: []byte(prompts)},
			"s/questions.jsonl": {Data: []byte(q + "\n")}}
		if _, err := loadSet(fsys, "s"); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	fsys := fstest.MapFS{"s/kb/lrn-a.md": {Data: []byte(kb)}, "s/prompts.jsonl": {Data: []byte(prompts)},
		"s/questions.jsonl": {Data: []byte(`{"id":"lrn-a","questions":["why?"]}` + "\n")}}
	if s, err := loadSet(fsys, "s"); err != nil || len(s.Questions["lrn-a"]) != 1 {
		t.Errorf("a valid questions.jsonl: %v, %v", s, err)
	}
}
