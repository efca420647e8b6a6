package writer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/transcript"
)

func builtinOn(t *testing.T, c *transcript.Condensed) []Draft {
	t.Helper()
	out, err := Builtin{}.Write(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return out.Learnings
}

func fixtureLearnings(t *testing.T, path string) []Draft {
	t.Helper()
	c, err := transcript.Condense(path, "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return builtinOn(t, c)
}

// findDraft returns the learning whose title and insight hold every word.
func findDraft(ds []Draft, words ...string) *Draft {
	for i := range ds {
		text := ds[i].Title + " " + ds[i].KeyInsight
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(text, w)
		}
		if ok {
			return &ds[i]
		}
	}
	return nil
}

func titles(ds []Draft) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Title+" ["+d.Confidence+"]")
	}
	return out
}

func TestBuiltinClaudeFixture(t *testing.T) {
	t.Parallel()
	ds := fixtureLearnings(t, "../../transcript/testdata/claude-session.jsonl")

	same := findDraft(ds, "state", "SameSite=Lax")
	if same == nil {
		t.Fatalf("no SameSite learning in %q", titles(ds))
	}
	if same.Confidence != "medium" || !strings.Contains(same.Title, "state mismatch") ||
		!strings.Contains(same.KeyInsight, "SameSite=Strict") || !reflect.DeepEqual(same.Cites, []string{"callback/cookie.go"}) {
		t.Errorf("SameSite learning: %+v", *same)
	}

	insecure := findDraft(ds, "--insecure")
	if insecure == nil {
		t.Fatalf("no --insecure learning in %q", titles(ds))
	}
	if insecure.Title != "curl: use --insecure for local dev instead, the dev cert is self-signed" ||
		insecure.Confidence != "medium" || !slices.Contains(insecure.Tags, "curl") ||
		!strings.Contains(insecure.Solution, "curl --insecure -i https://localhost:8443/callback?state=abc") ||
		!strings.Contains(insecure.Solution, "no, use --insecure") ||
		!slices.Contains(insecure.Symptoms, "curl: (60) SSL certificate problem: self-signed certificate") {
		t.Errorf("--insecure learning: %+v", *insecure)
	}

	remember := findDraft(ds, "fake IdP")
	if remember == nil {
		t.Fatalf("no remembered instruction in %q", titles(ds))
	}
	if remember.Title != "Always run the callback tests with the fake IdP (make idp-fake) before pushing" ||
		remember.Confidence != "high" || !slices.Contains(remember.Tags, "make") {
		t.Errorf("instruction learning: %+v", *remember)
	}
	if len(ds) != 3 {
		t.Errorf("want exactly these 3 learnings, got %q", titles(ds))
	}
}

func TestBuiltinCodexFixture(t *testing.T) {
	t.Parallel()
	ds := fixtureLearnings(t, "../../transcript/testdata/codex-rollout.jsonl")
	clock := findDraft(ds, "don't use time.Now", "inject a clock")
	if clock == nil {
		t.Fatalf("no injected-clock learning in %q", titles(ds))
	}
	if !strings.HasPrefix(clock.Title, "go test: ") || clock.Confidence != "medium" ||
		!slices.Contains(clock.Tags, "go") || !reflect.DeepEqual(clock.Cites, []string{"refresh/token.go"}) ||
		!strings.Contains(clock.Solution, "`go test ./...` succeeded") ||
		!strings.Contains(clock.Problem, "token expired") {
		t.Errorf("clock learning: %+v", *clock)
	}
	if len(ds) != 1 {
		t.Errorf("want 1 learning, got %q", titles(ds))
	}
}

// The builtin writer reads Gemini CLI's run_shell_command as a shell
// tool: the captured session's corrected failure is a learning.
func TestBuiltinGeminiFixture(t *testing.T) {
	t.Parallel()
	ds := fixtureLearnings(t, "../../transcript/testdata/gemini-session.jsonl")
	if len(ds) != 1 || !strings.Contains(ds[0].Title+ds[0].KeyInsight, "/var/cache/widget") {
		t.Errorf("want the corrected ls, got %q", titles(ds))
	}
}

func TestBuiltinIsDeterministic(t *testing.T) {
	t.Parallel()
	a, _ := json.Marshal(fixtureLearnings(t, "../../transcript/testdata/claude-session.jsonl"))
	b, _ := json.Marshal(fixtureLearnings(t, "../../transcript/testdata/claude-session.jsonl"))
	if string(a) != string(b) {
		t.Errorf("two runs differ:\n%s\n%s", a, b)
	}
}

// Events builders for the rule tables.
func evUser(s string) transcript.Event { return transcript.Event{Kind: transcript.UserPrompt, Text: s} }
func evAsst(s string, files ...string) transcript.Event {
	return transcript.Event{Kind: transcript.AssistantFinal, Text: s, Files: files}
}
func evFail(cmd, head string, code int) transcript.Event {
	return transcript.Event{Kind: transcript.ToolFailed, Tool: "Bash", Command: cmd, Text: head, ExitCode: code}
}
func evOK(cmd, out string, files ...string) transcript.Event {
	return transcript.Event{Kind: transcript.ToolSucceeded, Tool: "Bash", Command: cmd, Text: out, Files: files}
}

func TestBuiltinRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []transcript.Event
		files  []string
		want   []string // titles with [confidence]
	}{{
		name: "fix by a changed flag",
		events: []transcript.Event{evUser("install deps"),
			evFail("npm ci", "npm ERR! lockfile out of date", 1),
			evOK("npm ci --legacy-peer-deps", "added 200 packages")},
		want: []string{"npm ci: npm ERR! lockfile out of date; works with --legacy-peer-deps [medium]"},
	}, {
		name: "same command passes after an edit: low",
		events: []transcript.Event{evUser("make the tests pass"),
			evFail("go test ./...", "--- FAIL: TestA (0.00s) | a_test.go:9: boom", 1),
			evOK("go test ./...", "ok pkg", "pkg/a.go")},
		files: []string{"pkg/a.go"},
		want:  []string{"go test failed (FAIL: TestA (0.00s)); fixed by editing pkg/a.go [low]"},
	}, {
		name: "correction that never succeeded: low",
		events: []transcript.Event{evUser("deploy"),
			evFail("npm install", "rejected by the user", -1),
			evUser("no, use pnpm instead")},
		want: []string{"npm install: use pnpm instead [low]"},
	}, {
		name: "a correction after the user moved on does not attach",
		events: []transcript.Event{evUser("deploy"),
			evFail("npm install", "E404", 1),
			evUser("let's look at the docs page"),
			evUser("no, use the other heading instead")},
		want: nil,
	}, {
		name: "success of another program is no fix; non-shell failures are ignored",
		events: []transcript.Event{evUser("x"),
			evFail("make build", "Error 2", 2),
			{Kind: transcript.ToolFailed, Tool: "Edit", Command: "Edit a.go", Text: "File has not been read yet."},
			evOK("go build ./...", "")},
		want: nil,
	}, {
		name: "an unrelated read by the same program is no fix",
		events: []transcript.Event{evUser("show the gizmo config"),
			evFail("cat /etc/gizmo/gizmo.conf", "cat: /etc/gizmo/gizmo.conf: No such file or directory", 1),
			evOK("cat README.md", "# demo")},
		want: nil,
	}, {
		name: "nor through a shell -c, a redirection or a leading ./",
		events: []transcript.Event{evUser("x"),
			evFail("bash -lc 'cat a.txt 2>/dev/null'", "cat: a.txt: No such file or directory", 1),
			evOK("bash -lc 'cat ./b.txt > a.txt'", "", "notes.md")},
		files: []string{"notes.md"},
		want:  nil,
	}, {
		name: "the same target after an edit is a fix",
		events: []transcript.Event{evUser("run the script"),
			evFail("python3 tools/gen.py", "ModuleNotFoundError: No module named 'yaml'", 1),
			evOK("python3 ./tools/gen.py", "wrote 3 files", "requirements.txt")},
		files: []string{"requirements.txt"},
		want:  []string{"python3 failed (ModuleNotFoundError: No module named 'yaml'); fixed by editing requirements.txt [low]"},
	}, {
		name: "a dropped flag on the same target",
		events: []transcript.Event{evUser("install"),
			evFail("yarn install --frozen-lockfile", "error Your lockfile needs to be updated", 1),
			evOK("yarn install", "Done in 3.1s")},
		want: []string{"yarn install: error Your lockfile needs to be updated; works without --frozen-lockfile [medium]"},
	}, {
		name: "a subcommand on other targets is no fix",
		events: []transcript.Event{evUser("x"),
			evFail("go test ./billing/...", "--- FAIL: TestTax (0.00s)", 1),
			evOK("go test ./auth/...", "ok auth", "billing/tax.go")},
		files: []string{"billing/tax.go"},
		want:  nil,
	}, {
		name: "a subcommand with a target on one side only is the same work",
		events: []transcript.Event{evUser("push it"),
			evFail("git push", "fatal: The current branch feature has no upstream branch.", 128),
			evOK("git push -u origin feature", "branch 'feature' set up to track 'origin/feature'.")},
		want: []string{"git push: fatal: The current branch feature has no upstream branch.; works with -u [medium]"},
	}, {
		name: "a retry of the same line with nothing changed teaches nothing",
		events: []transcript.Event{evUser("x"),
			evFail("npm install", "npm ERR! network ETIMEDOUT", 1),
			evOK("npm install", "added 12 packages")},
		want: nil,
	}, {
		name: "after the user's correction, the program's next success is the fix",
		events: []transcript.Event{evUser("list the widget cache"),
			evFail("ls /nonexistent/widget-cache", "ls: cannot access '/nonexistent/widget-cache': No such file or directory", 2),
			evUser("no, use ls /var/cache/widget instead, the cache is not under /nonexistent"),
			evOK("ls /var/cache/widget", "a.bin")},
		want: []string{"use ls /var/cache/widget instead, the cache is not under /nonexistent [medium]"},
	}, {
		name: "an unrelated success leaves the failure open for its fix",
		events: []transcript.Event{evUser("x"),
			evFail("cat config/app.yaml", "cat: config/app.yaml: No such file or directory", 1),
			evOK("cat README.md", "# app"),
			evOK("cat config/app.yaml", "port: 8080", "config/app.yaml")},
		files: []string{"config/app.yaml"},
		want:  []string{"cat failed (config/app.yaml: No such file or directory); fixed by editing config/app.yaml [low]"},
	}, {
		name: "instructions",
		events: []transcript.Event{
			evUser("Remember that the staging DB is read-only. Never commit the .env file! always fails on CI though. never mind"),
			evUser("please always use pnpm in this repo"),
			evUser("remember to run make generate after editing the proto files"),
			evUser("always?"),
		},
		want: []string{
			"The staging DB is read-only [high]",
			"Never commit the .env file [high]",
			"Always use pnpm in this repo [high]",
			"Run make generate after editing the proto files [high]",
		},
	}, {
		name:   "pasted material is not an instruction",
		events: []transcript.Event{evUser(strings.Repeat("Some pasted documentation line. ", 50) + "Never edit generated files by hand.")},
		want:   nil,
	}, {
		name: "a diagnosed problem needs a cause, an edit and a confirmation",
		events: []transcript.Event{evUser("the upload endpoint fails with 413"),
			evAsst("The proxy limits bodies to 1 MB, so large uploads are rejected. Raising client_max_body_size to 50m.", "deploy/nginx.conf"),
			evUser("thanks, that works")},
		files: []string{"deploy/nginx.conf"},
		want:  []string{"The upload endpoint fails with 413 [medium]"},
	}, {
		name: "unconfirmed diagnosis is not a learning",
		events: []transcript.Event{evUser("fix the flaky test"),
			evAsst("It fails because of a race, so I added a mutex.", "a.go"),
			evUser("now add a README")},
		files: []string{"a.go"},
		want:  nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := builtinOn(t, &transcript.Condensed{Harness: "claude", Events: tt.events, Files: tt.files})
			if got := titles(ds); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("titles:\n got %q\nwant %q", got, tt.want)
			}
			for _, d := range ds {
				if d.KeyInsight == "" || d.Category == "" || len(d.Title) > 4*maxTitleRunes {
					t.Errorf("incomplete learning %+v", d)
				}
			}
		})
	}
}

func TestBuiltinDiagnosisFields(t *testing.T) {
	t.Parallel()
	ds := builtinOn(t, &transcript.Condensed{Files: []string{"deploy/nginx.conf"}, Events: []transcript.Event{
		evUser("the upload endpoint fails with 413"),
		evAsst("The proxy limits bodies to 1 MB, so large uploads are rejected. Raising client_max_body_size to 50m.", "deploy/nginx.conf"),
		evUser("perfect"),
	}})
	if len(ds) != 1 {
		t.Fatalf("got %q", titles(ds))
	}
	d := ds[0]
	if d.KeyInsight != "The proxy limits bodies to 1 MB, so large uploads are rejected." ||
		!strings.Contains(d.Solution, "Changed deploy/nginx.conf") ||
		!reflect.DeepEqual(d.Cites, []string{"deploy/nginx.conf"}) || !slices.Contains(d.Tags, "conf") {
		t.Errorf("diagnosis learning: %+v", d)
	}
}

func TestBuiltinCapsLearnings(t *testing.T) {
	t.Parallel()
	var evs []transcript.Event
	for i := 0; i < 30; i++ {
		evs = append(evs, evUser(fmt.Sprintf("always run check number %d before pushing", i)))
		evs = append(evs, evFail(fmt.Sprintf("tool%d build", i), "error", 1), evOK(fmt.Sprintf("tool%d build --fix", i), ""))
	}
	ds := builtinOn(t, &transcript.Condensed{Events: evs})
	if len(ds) != maxBuiltinLearnings {
		t.Fatalf("%d learnings, want %d", len(ds), maxBuiltinLearnings)
	}
	for _, d := range ds {
		if d.Confidence != "high" {
			t.Errorf("the cap kept %q over an explicit instruction", d.Title)
		}
	}
}

func TestBuiltinSkipsAndCancels(t *testing.T) {
	t.Parallel()
	for _, c := range []*transcript.Condensed{nil, {Skip: transcript.SkipWriterRun, Events: []transcript.Event{evUser("always do X in this repo")}}} {
		out, err := Builtin{}.Write(context.Background(), c)
		if err != nil || out == nil || len(out.Learnings) != 0 {
			t.Errorf("Write(%+v) = %+v, %v", c, out, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Builtin{}).Write(ctx, &transcript.Condensed{}); err == nil {
		t.Error("want an error from a cancelled context")
	}
	if (Builtin{}).Name() != "builtin" {
		t.Error("name")
	}
	var _ Writer = Builtin{}
}

// The real sessions of testdata/real: the scripted "cat a missing file,
// then cat README.md" is two unrelated reads and gives nothing; the
// corrected ls gives the user's correction.
func TestBuiltinRealTranscripts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"claude/fce48086-c3f9-45e7-af51-978d1f12de59.jsonl", nil},
		{"codex/rollout-2026-11-25T14-30-04-01a2131d-1925-7570-80d3-c8830e3f0982.jsonl", nil},
		{"claude/9c19e7ca-363e-4250-8fe4-30525dab65ba.jsonl", []string{"use ls /var/cache/widget instead, the cache is not under /nonexistent [low]"}},
	} {
		ds := fixtureLearnings(t, "../../testdata/real/transcripts/"+tc.path)
		if got := titles(ds); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.path, got, tc.want)
		}
	}
}

// A go test that fails, an edit, unrelated commands in between (one of
// them a failing cat, then a cat of another file), and the go test that
// passes: one learning, about the test and the edit.
func TestBuiltinGoTestFixedByEdit(t *testing.T) {
	t.Parallel()
	ds := fixtureLearnings(t, "testdata/go-test-fix.jsonl")
	if len(ds) != 1 {
		t.Fatalf("want the go test learning only, got %q", titles(ds))
	}
	d := ds[0]
	if !strings.HasPrefix(d.Title, "go test failed (FAIL: TestBalance") || !strings.Contains(d.Title, "ledger/balance.go") ||
		!strings.Contains(d.KeyInsight, "got 90, want 100") || !reflect.DeepEqual(d.Cites, []string{"ledger/balance.go"}) {
		t.Errorf("go test learning: %+v", d)
	}
}

// TestBuiltinRealPrecision runs the builtin writer over every session in
// testdata/real/ and checks each learning against the hand judgements in
// testdata/real-judged.tsv; with -v it logs each one and the precision
// (docs/benchmarks.md quotes it).
func TestBuiltinRealPrecision(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/real/"
	raw, err := os.ReadFile("testdata/real-judged.tsv")
	if err != nil {
		t.Fatal(err)
	}
	judged := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 || (f[0] != "real" && f[0] != "unreal") {
			t.Fatalf("bad judgement line %q", line)
		}
		judged[f[1]+"\t"+f[2]] = f[0]
	}
	paths, _ := filepath.Glob(root + "transcripts/*/*.jsonl")
	hooks, _ := filepath.Glob(root + "payloads/*/*.transcript-at-hook.jsonl")
	paths = append(paths, hooks...)
	if len(paths) < 8 {
		t.Fatalf("found only %d sessions under %s", len(paths), root)
	}
	written, real := 0, 0
	for _, p := range paths {
		rel := strings.TrimPrefix(p, root)
		for _, d := range fixtureLearnings(t, p) {
			written++
			j := judged[rel+"\t"+d.Title]
			t.Logf("%-6s %s: %s", j, rel, d.Title)
			switch j {
			case "real":
				real++
			case "unreal":
				t.Errorf("%s: wrote %q, judged unreal", rel, d.Title)
			default:
				t.Errorf("%s: wrote %q, which nobody has judged: judge it and add a line to testdata/real-judged.tsv", rel, d.Title)
			}
		}
	}
	if written == 0 {
		t.Fatal("no learning from the real sessions: the corrected ls should give one")
	}
	t.Logf("%d sessions, %d learnings, %d real: precision %.0f%%", len(paths), written, real, 100*float64(real)/float64(written))
}
