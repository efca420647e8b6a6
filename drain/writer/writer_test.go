package writer

import (
	"encoding/json"
	"github.com/reflectkb/reflect/transcript"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reflectkb/reflect/store"
)

const oneLearningJSON = `{"learnings":[{"title":"Use SameSite=Lax","key_insight":"Strict drops the cookie on the IdP redirect.","confidence":"high"}]}`

func TestParseOutputAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		count int
	}{
		{"bare object", oneLearningJSON, 1},
		{"empty list", `{"learnings":[]}`, 0},
		{"empty list with spaces", "\n  {\"learnings\": [ ]}\n", 0},
		{"json fence", "```json\n" + oneLearningJSON + "\n```", 1},
		{"plain fence", "```\n" + oneLearningJSON + "\n```\n", 1},
		{"prose around", "Here are the learnings I found:\n\n" + oneLearningJSON + "\n\nLet me know if you need more.", 1},
		{"braces in prose first", "I looked at {the cookie code} and {\"other\":1} then:\n" + oneLearningJSON, 1},
		{"object without key first", `{"note":{"learnings":"nested, not top-level"}} ` + oneLearningJSON, 1},
		{"json string holding the object", mustJSON(oneLearningJSON), 1},
		{"extra keys", `{"summary":"x","learnings":[{"title":"T","key_insight":"K"}],"n":1}`, 1},
		{"invalid dropped, valid kept", `{"learnings":[{"title":"","key_insight":"no title"},{"title":"T","key_insight":"K"},"nonsense",42]}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ParseOutput([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseOutput: %v", err)
			}
			if len(out.Learnings) != tt.count {
				t.Fatalf("got %d learnings, want %d: %+v", len(out.Learnings), tt.count, out.Learnings)
			}
			if out.Learnings == nil {
				t.Fatal("Learnings is nil; want an empty list for a success with nothing")
			}
		})
	}
}

func TestParseOutputRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "empty"},
		{"blank", " \n\t", "empty"},
		{"not json", "I could not find any learnings in this session.", `no JSON object with a "learnings" key`},
		{"missing key", `{"lessons":[]}`, `no JSON object with a "learnings" key`},
		{"null learnings", `{"learnings":null}`, `no JSON object with a "learnings" key`},
		{"learnings not a list", `{"learnings":{"title":"T"}}`, "not a list"},
		{"truncated", `{"learnings":[{"title":"T","key_insight":"K"}`, `no JSON object`},
		{"all drafts invalid", `{"learnings":[{"title":"T"},{"key_insight":"K"},{}]}`, "no valid learning"},
		{"drafts not objects", `{"learnings":["a","b"]}`, "no valid learning"},
		{"whitespace title", `{"learnings":[{"title":"   ","key_insight":"K"}]}`, "has no title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ParseOutput([]byte(tt.in))
			if err == nil {
				t.Fatalf("ParseOutput(%q) = %+v, want an error", tt.in, out)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestParseOutputFixture(t *testing.T) {
	t.Parallel()
	var env struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal(readWriterFixture(t, "claude-print-result.json"), &env); err != nil {
		t.Fatal(err)
	}
	out, err := ParseOutput([]byte(env.Result))
	if err != nil {
		t.Fatal(err)
	}
	want := Draft{
		Title:      "OAuth state cookie must be SameSite=Lax",
		KeyInsight: "A SameSite=Strict state cookie is dropped on the cross-site redirect back from the identity provider, which surfaces as 'state mismatch'.",
		Problem:    "Login failed with state mismatch after the OAuth callback.",
		Solution:   "Set the state cookie to SameSite=Lax (callback/cookie.go).",
		Confidence: "high",
		Category:   "debugging",
		Tags:       []string{"oauth", "cookies", "redirect"},
		Symptoms:   []string{"state mismatch after callback", "oauth_state cookie cleared"},
		Entities: []store.Entity{
			{Name: "SameSite", Type: "concept", Description: "cookie attribute controlling cross-site sending"},
			{Name: "callback/cookie.go", Type: "file", Description: "sets the state cookie"},
		},
		Relations: []store.Relationship{{Source: "SameSite", Target: "callback/cookie.go", Type: "configured_in", Strength: 7}},
		Cites:     []string{"callback/cookie.go"},
	}
	if len(out.Learnings) != 1 || !reflect.DeepEqual(out.Learnings[0], want) {
		t.Fatalf("got %+v\nwant %+v", out.Learnings, want)
	}
}

func TestParseOutputNormalises(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 3000)
	in := map[string]any{"learnings": []any{map[string]any{
		"title":       "  Title\nwith   newline " + long,
		"key_insight": long,
		"problem":     "  line one\nline two  " + long,
		"solution":    long,
		"confidence":  "VERY HIGH",
		"category":    "Debugging",
		"tags":        []any{"Go", "go", " ", "sqlite", 7},
		"symptoms":    "database is locked",
		"entities": []any{
			map[string]any{"name": "SQLite", "type": "Database", "description": "the catalog"},
			map[string]any{"name": "WAL", "type": "concept"},
			map[string]any{"name": "", "type": "tool"},
			"not an entity",
		},
		"relations": []any{
			map[string]any{"source": "sqlite", "target": "WAL", "type": "Configured In", "strength": 42},
			map[string]any{"source": "WAL", "target": "busy_timeout", "type": "fixes", "strength": "-3"},
			map[string]any{"source": "WAL", "target": "wal", "type": "uses"},
			map[string]any{"source": "WAL", "target": "SQLite", "type": "part_of"},
			map[string]any{"source": "", "target": "WAL"},
		},
		"cites": []any{"./index/catalog.go:42", "/work/repo/index/db.go", "/etc/passwd", "../outside.go", "https://example.com/x", "~/notes.md", "index/catalog.go", "store/sidecar.go#L10-L20"},
	}}}
	data, _ := json.Marshal(in)
	out, err := parseOutput(data, "/work/repo")
	if err != nil {
		t.Fatal(err)
	}
	d := out.Learnings[0]
	if n := utf8.RuneCountInString(d.Title); n > draftMaxTitle || strings.Contains(d.Title, "\n") || !strings.HasPrefix(d.Title, "Title with newline é") {
		t.Errorf("title not folded and bounded: %d runes, %q", n, d.Title[:40])
	}
	for name, tc := range map[string]struct {
		s   string
		max int
	}{"key_insight": {d.KeyInsight, draftMaxKeyInsight}, "problem": {d.Problem, draftMaxBody}, "solution": {d.Solution, draftMaxBody}} {
		if n := utf8.RuneCountInString(tc.s); n != tc.max || !utf8.ValidString(tc.s) {
			t.Errorf("%s: %d runes, want %d", name, n, tc.max)
		}
	}
	if !strings.HasPrefix(d.Problem, "line one\nline two") {
		t.Errorf("problem should keep its lines, trimmed: %q", d.Problem[:20])
	}
	if d.Confidence != "medium" {
		t.Errorf("confidence = %q, want medium for an invalid value", d.Confidence)
	}
	if d.Category != "debugging" {
		t.Errorf("category = %q", d.Category)
	}
	if want := []string{"go", "sqlite", "7"}; !reflect.DeepEqual(d.Tags, want) {
		t.Errorf("tags = %q, want %q", d.Tags, want)
	}
	if want := []string{"database is locked"}; !reflect.DeepEqual(d.Symptoms, want) {
		t.Errorf("symptoms = %q, want %q", d.Symptoms, want)
	}
	wantEntities := []store.Entity{
		{Name: "SQLite", Type: "concept", Description: "the catalog"},
		{Name: "WAL", Type: "concept"},
		{Name: "busy_timeout", Type: "concept"},
	}
	if !reflect.DeepEqual(d.Entities, wantEntities) {
		t.Errorf("entities = %+v\nwant %+v", d.Entities, wantEntities)
	}
	wantRelations := []store.Relationship{
		{Source: "SQLite", Target: "WAL", Type: "configured_in", Strength: 10},
		{Source: "WAL", Target: "busy_timeout", Type: "relates_to", Strength: 0},
		{Source: "WAL", Target: "SQLite", Type: "part_of", Strength: draftDefaultStrength},
	}
	if !reflect.DeepEqual(d.Relations, wantRelations) {
		t.Errorf("relations = %+v\nwant %+v", d.Relations, wantRelations)
	}
	if want := []string{"index/catalog.go", "index/db.go", "store/sidecar.go"}; !reflect.DeepEqual(d.Cites, want) {
		t.Errorf("cites = %q, want %q", d.Cites, want)
	}
	// What ParseOutput produces must pass store's own sidecar validation.
	sc := store.Sidecar{DocumentID: "lrn-x-000000", Entities: d.Entities, Relationships: d.Relations}
	if err := sc.Validate(); err != nil {
		t.Errorf("sidecar of the draft does not validate: %v", err)
	}
}

func TestParseOutputBoundsLists(t *testing.T) {
	t.Parallel()
	var tags, cites []string
	var entities, relations []map[string]any
	for i := 0; i < 100; i++ {
		n := string(rune('a'+i%26)) + strings.Repeat("x", i/26) + "-" + string(rune('0'+i%10))
		tags = append(tags, "tag"+n)
		cites = append(cites, "dir/"+n+".go")
		entities = append(entities, map[string]any{"name": "e" + n, "type": "tool"})
		relations = append(relations, map[string]any{"source": "e" + n, "target": "other" + n, "type": "uses", "strength": 3})
	}
	var learnings []any
	for i := 0; i < 15; i++ {
		learnings = append(learnings, map[string]any{"title": "T" + string(rune('a'+i)), "key_insight": "K", "tags": tags, "cites": cites, "entities": entities, "relations": relations})
	}
	data, _ := json.Marshal(map[string]any{"learnings": learnings})
	out, err := ParseOutput(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Learnings) != draftMaxLearnings {
		t.Fatalf("%d learnings, want %d", len(out.Learnings), draftMaxLearnings)
	}
	d := out.Learnings[0]
	if len(d.Tags) != draftMaxTags || len(d.Cites) != draftMaxCites || len(d.Entities) != draftMaxEntities || len(d.Relations) > draftMaxRelations {
		t.Fatalf("lists not bounded: %d tags, %d cites, %d entities, %d relations", len(d.Tags), len(d.Cites), len(d.Entities), len(d.Relations))
	}
	sc := store.Sidecar{DocumentID: "lrn-x-000000", Entities: d.Entities, Relationships: d.Relations}
	if err := sc.Validate(); err != nil {
		t.Errorf("bounded graph does not validate: %v", err)
	}
}

func TestParseOutputRedacts(t *testing.T) {
	t.Parallel()
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	data := `{"learnings":[{"title":"Token leaked","key_insight":"The token ` + secret + ` was printed by the test.","problem":"export GITHUB_TOKEN=` + secret + `"}]}`
	out, err := ParseOutput([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(out); strings.Contains(string(b), secret) {
		t.Fatalf("secret survived parsing: %s", b)
	}
}

func TestParseOutputControlCharacters(t *testing.T) {
	t.Parallel()
	data := "{\"learnings\":[{\"title\":\"Bell\\u0007 and \\u001b[31mcolour\",\"key_insight\":\"ok\\r\\nline\"}]}"
	out, err := ParseOutput([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	d := out.Learnings[0]
	if d.Title != "Bell and [31mcolour" || d.KeyInsight != "ok line" {
		t.Fatalf("control characters kept: %q / %q", d.Title, d.KeyInsight)
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	c := &transcript.Condensed{Harness: "claude", Cwd: "/work/repo", Branch: "main", Text: "USER: why does login fail?\nTOOL FAILED: go test ./auth"}
	p := Prompt(c)
	if !strings.HasPrefix(p, transcript.WriterPromptMarker+"\n") {
		t.Fatalf("prompt does not start with the marker: %q", p[:40])
	}
	for _, want := range []string{
		strings.Join(store.EntityTypes, ", "),
		strings.Join(store.RelationshipTypes, ", "),
		`{"learnings":[]}`,
		"at most 5 learnings",
		"at most 80 characters",
		`cwd="/work/repo"`,
		c.Text + "\n</transcript>\n",
		`- "questions": 3 to 5 things a developer who has this problem, and does`,
		`"why do my tests pass one by one but fail together?"`,
		`"symptoms":["…"],"questions":["…"],`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	// The writer runs for every harness reflect captures, so the prompt
	// names none of them.
	for _, agent := range []string{"Claude Code", "Codex"} {
		if strings.Contains(p, agent) {
			t.Errorf("prompt names the agent %q", agent)
		}
	}
	if strings.Contains(p, "%!") {
		t.Errorf("prompt has a formatting error: %q", p)
	}
	// The example answer in the prompt must itself satisfy the contract.
	i := strings.Index(p, `{"learnings":[{`)
	line := p[i : i+strings.Index(p[i:], "\n")]
	if _, err := ParseOutput([]byte(line)); err != nil {
		t.Errorf("the prompt's example answer does not parse: %v", err)
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func readWriterFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "writers", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func FuzzParseOutput(f *testing.F) {
	f.Add([]byte(oneLearningJSON))
	f.Add([]byte(`{"learnings":[]}`))
	f.Add([]byte("```json\n" + oneLearningJSON + "\n```"))
	f.Add([]byte(`x {"a":{"learnings":1}} {"learnings":[{"title":1,"key_insight":true,"tags":"t","strength":"x","relations":[{"source":"a","target":"b","strength":"NaN"}]}]}`))
	f.Add([]byte(`{"learnings":[{"title":"T","key_insight":"K","cites":["/a/../../b",".."],"entities":[{"name":"x","type":"y"}]}]}`))
	f.Add([]byte(`{{{{{{{{"learnings"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := parseOutput(data, "/work/repo")
		if err != nil {
			return
		}
		for _, d := range out.Learnings {
			if d.Title == "" || d.KeyInsight == "" {
				t.Fatalf("accepted a draft without title or key_insight: %+v", d)
			}
			if d.Confidence != "high" && d.Confidence != "medium" && d.Confidence != "low" {
				t.Fatalf("confidence %q", d.Confidence)
			}
			sc := store.Sidecar{DocumentID: "lrn-x-000000", Entities: d.Entities, Relationships: d.Relations}
			if err := sc.Validate(); err != nil {
				t.Fatalf("graph does not validate: %v", err)
			}
			for _, c := range d.Cites {
				if filepath.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
					t.Fatalf("cite %q escapes the working directory", c)
				}
			}
		}
	})
}

// A writer may name the learning a draft supersedes; only an id's shape is
// kept (knowledge.Put drops one that names no learning).
func TestParseOutputSupersedes(t *testing.T) {
	t.Parallel()
	out, err := ParseOutput([]byte(`{"learnings":[
		{"title":"A","key_insight":"K","supersedes":" lrn-old-lesson-1a2b3c "},
		{"title":"B","key_insight":"K","supersedes":"../../etc/passwd"},
		{"title":"C","key_insight":"K"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range out.Learnings {
		got = append(got, d.Supersedes)
	}
	if want := []string{"lrn-old-lesson-1a2b3c", "", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("supersedes %q, want %q", got, want)
	}
	if !strings.Contains(Prompt(&transcript.Condensed{Text: "x"}), `"supersedes"`) {
		t.Error("the prompt does not describe supersedes")
	}
}

// A writer's questions are kept like its symptoms: one line each, redacted,
// deduplicated, at most store.MaxQuestions of at most draftMaxSymptom.
func TestParseOutputQuestions(t *testing.T) {
	t.Parallel()
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	long := "why does " + strings.Repeat("the build ", 60) + "hang?"
	in := map[string]any{"learnings": []any{map[string]any{
		"title": "T", "key_insight": "K",
		"questions": []any{
			"why do my tests pass\none by one but fail together?",
			long,
			"why is " + secret + " rejected by the api?",
			"Why do my tests pass one by one but fail together?",
			"",
			"is it the cache thing?",
			"what was that flag, -count something?",
			"sixth question dropped?",
			"seventh question dropped?",
		},
	}}}
	data, _ := json.Marshal(in)
	out, err := ParseOutput(data)
	if err != nil {
		t.Fatal(err)
	}
	q := out.Learnings[0].Questions
	if len(q) != store.MaxQuestions {
		t.Fatalf("%d questions, want %d: %q", len(q), store.MaxQuestions, q)
	}
	if q[0] != "why do my tests pass one by one but fail together?" {
		t.Errorf("question not folded to one line: %q", q[0])
	}
	if n := utf8.RuneCountInString(q[1]); n != draftMaxSymptom || !strings.HasPrefix(q[1], "why does the build") {
		t.Errorf("long question: %d runes, want it cut to %d: %q", n, draftMaxSymptom, q[1])
	}
	if strings.Contains(q[2], secret) || !strings.Contains(q[2], "REDACTED") {
		t.Errorf("secret in a question not redacted: %q", q[2])
	}
	if q[3] != "is it the cache thing?" || q[4] != "what was that flag, -count something?" {
		t.Errorf("duplicate or empty question kept, or order lost: %q", q[3:])
	}
	if b, _ := json.Marshal(out); strings.Contains(string(b), secret) {
		t.Fatalf("secret survived parsing: %s", b)
	}
	// A single string is one question, as for symptoms.
	out, err = ParseOutput([]byte(`{"learnings":[{"title":"T","key_insight":"K","questions":"why is it slow?"}]}`))
	if err != nil || !reflect.DeepEqual(out.Learnings[0].Questions, []string{"why is it slow?"}) {
		t.Fatalf("a lone question string: %+v, %v", out, err)
	}
}
