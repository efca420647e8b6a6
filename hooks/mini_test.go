package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// env is a state dir and a knowledge base in temp dirs; HOME is a temp
// dir too (TestMain), so nothing can reach the real one.
type miniEnv struct {
	state, docs string
	ix          *index.Index
}

func newMiniEnv(t *testing.T) miniEnv {
	t.Helper()
	state, kb := t.TempDir(), t.TempDir()
	docs := filepath.Join(kb, "documents")
	ix, err := index.Open(context.Background(), docs, filepath.Join(kb, "index"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return miniEnv{state: state, docs: docs, ix: ix}
}

// documents returns the learnings on disk.
func (e miniEnv) documents(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(e.docs, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// promptEvent reads a UserPromptSubmit fixture.
func promptEvent(t *testing.T, agent, name string) PromptEvent {
	t.Helper()
	var p struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
		Prompt    string `json:"prompt"`
	}
	if err := json.Unmarshal(fixturePayload(t, name), &p); err != nil {
		t.Fatal(err)
	}
	return PromptEvent{Agent: agent, SessionID: p.SessionID, Prompt: p.Prompt, Cwd: p.Cwd}
}

func armFixture(t *testing.T, e miniEnv, agent, name string) Failure {
	t.Helper()
	f, ok := FailedBash(agent, fixturePayload(t, name))
	if !ok {
		t.Fatalf("%s is not a failure", name)
	}
	if err := Arm(e.state, f.SessionID, f, armT0); err != nil {
		t.Fatal(err)
	}
	if _, ok := Armed(e.state, f.SessionID, armT0); !ok {
		t.Fatalf("%s did not arm a watcher", name)
	}
	return f
}

func TestCaptureCorrectionClaudeFixtures(t *testing.T) {
	t.Parallel()
	e := newMiniEnv(t)
	ctx := context.Background()
	f := armFixture(t, e, "claude", "claude/post-tool-use-failure.json")
	ev := promptEvent(t, "claude", "claude/user-prompt-correction.json")

	id, ok, err := CaptureCorrection(ctx, e.ix, e.state, ev, armT0.Add(2*time.Minute))
	if err != nil || !ok {
		t.Fatalf("CaptureCorrection = %q, %v, %v; want a learning", id, ok, err)
	}
	l, err := e.ix.Store().Read(id)
	if err != nil {
		t.Fatal(err)
	}
	if l.Type != "mini" || l.Confidence != "low" {
		t.Errorf("type %q confidence %q, want mini / low", l.Type, l.Confidence)
	}
	if l.Title != "curl: use --insecure for local dev instead" {
		t.Errorf("title %q", l.Title)
	}
	wantInsight := "`curl https://localhost:8443/callback?state=abc` failed with \"curl: (60) SSL certificate problem: self-signed certificate\"; " +
		"the user said: no, use --insecure for local dev instead, the dev cert is self-signed"
	if l.KeyInsight != wantInsight {
		t.Errorf("key insight\n got %q\nwant %q", l.KeyInsight, wantInsight)
	}
	if id != store.NewID(l.Title, l.KeyInsight) {
		t.Errorf("id %q is not store.NewID(title, key insight)", id)
	}
	for _, section := range []string{"## Problem\n", "## Solution\n", "## Context\n", "exit code 60", "the dev cert is self-signed", "/home/dev/auth-service"} {
		if !strings.Contains(l.Body, section) {
			t.Errorf("body lacks %q:\n%s", section, l.Body)
		}
	}
	if strings.Join(l.Tags, ",") != "curl,correction" {
		t.Errorf("tags %v", l.Tags)
	}
	if l.Scope != "project" || l.Project != "auth-service" {
		t.Errorf("scope %q project %q", l.Scope, l.Project)
	}
	if l.Source == nil || *l.Source != (store.Source{Harness: "claude", SessionID: f.SessionID, Trigger: "correction"}) {
		t.Errorf("source %+v", l.Source)
	}
	if !l.Created.Equal(armT0.Add(2 * time.Minute)) {
		t.Errorf("created %v", l.Created)
	}

	res, err := e.ix.Search(ctx, index.Query{Text: "curl self-signed certificate localhost", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].ID != id || res[0].Type != "mini" {
		t.Errorf("search does not find the mini-learning first: %+v", res)
	}
	if _, ok := Armed(e.state, f.SessionID, armT0.Add(3*time.Minute)); ok {
		t.Error("watcher still armed after the correction was captured")
	}
	if _, err := os.Stat(filepath.Join(e.state, "armed", f.SessionID+".json")); !os.IsNotExist(err) {
		t.Errorf("armed file left behind: %v", err)
	}
	// The watcher is spent: the same prompt again records nothing more.
	if _, ok, err := CaptureCorrection(ctx, e.ix, e.state, ev, armT0.Add(3*time.Minute)); ok || err != nil {
		t.Errorf("second capture = %v, %v", ok, err)
	}
	if n := len(e.documents(t)); n != 1 {
		t.Errorf("%d documents, want 1", n)
	}
}

func TestCaptureCorrectionCodex(t *testing.T) {
	t.Parallel()
	e := newMiniEnv(t)
	ctx := context.Background()
	f := armFixture(t, e, "codex", "codex/post-tool-use.json")

	// The Codex prompt fixture is new work: it moves on, so the watcher
	// is cleared and nothing is written.
	task := promptEvent(t, "codex", "codex/user-prompt-submit.json")
	if task.SessionID != f.SessionID {
		t.Fatal("fixtures are from different sessions")
	}
	if _, ok, err := CaptureCorrection(ctx, e.ix, e.state, task, armT0.Add(time.Minute)); ok || err != nil {
		t.Fatalf("new task captured: %v, %v", ok, err)
	}
	if _, ok := Armed(e.state, f.SessionID, armT0.Add(time.Minute)); ok {
		t.Error("a new task left the watcher armed")
	}

	if err := Arm(e.state, f.SessionID, f, armT0); err != nil {
		t.Fatal(err)
	}
	ev := PromptEvent{Agent: "codex", SessionID: f.SessionID, Cwd: "/home/dev/auth-service", Project: "auth",
		Prompt: "use `go test -count=1 ./...` instead, the cached result hides the failure"}
	id, ok, err := CaptureCorrection(ctx, e.ix, e.state, ev, armT0.Add(time.Minute))
	if err != nil || !ok {
		t.Fatalf("CaptureCorrection = %v, %v", ok, err)
	}
	l, err := e.ix.Store().Read(id)
	if err != nil {
		t.Fatal(err)
	}
	if l.Title != "go test: use `go test -count=1 ./...` instead" || l.Project != "auth" || l.Source.Harness != "codex" {
		t.Errorf("title %q project %q source %+v", l.Title, l.Project, l.Source)
	}
	if !strings.Contains(l.KeyInsight, `failed with "--- FAIL: TestRefresh (0.00s)"`) || strings.Join(l.Symptoms, "") != "--- FAIL: TestRefresh (0.00s)" {
		t.Errorf("insight %q symptoms %v", l.KeyInsight, l.Symptoms)
	}
	if !strings.Contains(l.Body, "refresh_test.go:31: token expired") {
		t.Errorf("body lacks the error context:\n%s", l.Body)
	}
}

func TestCaptureCorrectionWatcherLifecycle(t *testing.T) {
	t.Parallel()
	correction := "no, use --insecure for local dev instead, the dev cert is self-signed"
	tests := []struct {
		name      string
		prompts   []string // each a minute after the previous one
		at        time.Duration
		captured  bool
		armedLeft bool
	}{
		{"question keeps the watcher for the next prompt", []string{"why did that fail?", correction}, time.Minute, true, false},
		{"question alone leaves it armed", []string{"why did that fail?"}, time.Minute, false, true},
		{"unclear prompt leaves it armed", []string{"hmm, the dev cert again"}, time.Minute, false, true},
		{"acknowledgement moves on", []string{"ok thanks", correction}, time.Minute, false, false},
		{"new task moves on", []string{"add OAuth refresh tokens to the login flow", correction}, time.Minute, false, false},
		{"correction after ten minutes is too late", []string{correction}, WatchTTL + time.Second, false, false},
		{"correction just in time", []string{correction}, WatchTTL - time.Minute, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newMiniEnv(t)
			f := armFixture(t, e, "claude", "claude/post-tool-use-failure.json")
			at := armT0.Add(tt.at)
			captured := false
			for _, p := range tt.prompts {
				_, ok, err := CaptureCorrection(context.Background(), e.ix, e.state,
					PromptEvent{Agent: "claude", SessionID: f.SessionID, Prompt: p, Cwd: f.Cwd}, at)
				if err != nil {
					t.Fatal(err)
				}
				captured = captured || ok
				at = at.Add(time.Minute)
			}
			if captured != tt.captured {
				t.Errorf("captured = %v, want %v", captured, tt.captured)
			}
			if n := len(e.documents(t)); (n == 1) != tt.captured || n > 1 {
				t.Errorf("%d documents written", n)
			}
			_, err := os.Stat(filepath.Join(e.state, "armed", f.SessionID+".json"))
			if armed := err == nil; armed != tt.armedLeft {
				t.Errorf("armed file present = %v, want %v", armed, tt.armedLeft)
			}
		})
	}
}

func TestCaptureCorrectionLeavesPastedOutputOut(t *testing.T) {
	t.Parallel()
	e := newMiniEnv(t)
	f := armFixture(t, e, "claude", "claude/post-tool-use-failure.json")
	prompt := "no, use --insecure for local dev instead.\nThe dev cert is self-signed.\n\n$ curl https://localhost:8443/\ncurl: (60) SSL certificate problem\nmore log"
	id, ok, err := CaptureCorrection(context.Background(), e.ix, e.state,
		PromptEvent{Agent: "claude", SessionID: f.SessionID, Prompt: prompt, Cwd: f.Cwd}, armT0.Add(time.Minute))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	l, err := e.ix.Store().Read(id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(l.KeyInsight, "the user said: no, use --insecure for local dev instead. The dev cert is self-signed.") {
		t.Errorf("key insight %q: want both lines of the correction and none of the log", l.KeyInsight)
	}
	if strings.Contains(l.Body, "more log") {
		t.Errorf("pasted log recorded as the correction:\n%s", l.Body)
	}
}

func TestCaptureCorrectionWithoutWatcher(t *testing.T) {
	t.Parallel()
	e := newMiniEnv(t)
	ev := promptEvent(t, "claude", "claude/user-prompt-correction.json")
	id, ok, err := CaptureCorrection(context.Background(), e.ix, e.state, ev, armT0)
	if id != "" || ok || err != nil {
		t.Errorf("CaptureCorrection without a failure = %q, %v, %v", id, ok, err)
	}
	if n := len(e.documents(t)); n != 0 {
		t.Errorf("%d documents written", n)
	}
}

// TestCaptureCorrectionKeepsSecretsOffDisk sends secrets and a <private>
// block through every field and checks every file written.
func TestCaptureCorrectionKeepsSecretsOffDisk(t *testing.T) {
	t.Parallel()
	e := newMiniEnv(t)
	p, _ := json.Marshal(map[string]any{
		"session_id": "sess-1", "cwd": "/home/dev/billing", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
		"tool_input": map[string]string{"command": `curl -H "Authorization: Bearer ` + fakeAnthropicKey + `" https://api.example.com/v1/charges`},
		"error":      "Exit code 22\ncurl: (22) The requested URL returned error: 403\nAWS_ACCESS_KEY_ID=" + fakeAWSKey + " is not allowed",
	})
	f, ok := FailedBash("claude", p)
	if !ok {
		t.Fatal("not a failure")
	}
	if err := Arm(e.state, f.SessionID, f, armT0); err != nil {
		t.Fatal(err)
	}
	ev := PromptEvent{Agent: "claude", SessionID: "sess-1", Cwd: "/home/dev/billing",
		Prompt: "no, use the staging token " + fakeGitHubToken + " instead <private>it is in 1password under dev</private>"}
	id, ok, err := CaptureCorrection(context.Background(), e.ix, e.state, ev, armT0.Add(time.Minute))
	if err != nil || !ok {
		t.Fatalf("CaptureCorrection = %v, %v", ok, err)
	}

	var written strings.Builder
	for _, root := range []string{e.state, filepath.Dir(e.docs)} {
		err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || strings.HasPrefix(filepath.Base(path), "catalog.db") {
				return err
			}
			data, err := os.ReadFile(path)
			written.Write(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	all := written.String()
	if !strings.Contains(all, id) {
		t.Fatal("the learning was not found on disk")
	}
	for _, secret := range []string{fakeAnthropicKey, fakeAWSKey, fakeGitHubToken} {
		if piece := leakedPiece(all, secret); piece != "" {
			t.Errorf("%q of a secret was written to disk", piece)
		}
	}
	if strings.Contains(all, "1password") {
		t.Error("a <private> block was written to disk")
	}
	// The index holds the text too: search it for the secret.
	res, err := e.ix.Search(context.Background(), index.Query{Text: fakeGitHubToken})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if strings.Contains(r.Snippet+r.KeyInsight+r.Title, "ghp_") {
			t.Errorf("index returns the token: %+v", r)
		}
	}
}

func TestMiniLearningTitles(t *testing.T) {
	t.Parallel()
	head := "curl: (60) SSL certificate problem: self-signed certificate"
	tests := []struct {
		command, correction, want string
	}{
		{"curl https://localhost:8443/x", "no, use --insecure for local dev instead, the dev cert is self-signed",
			"curl: use --insecure for local dev instead"},
		{"cd services/api && sudo -E npm install", "don't use sudo, the docker group is already set up",
			"npm install: don't use sudo"},
		{"go test ./...", "instead of go test ./..., use make test so the build tags are set",
			"go test: use make test so the build tags are set instead of go test ./..."},
		{"git push --force origin main", "that's not right — the flag is --force-with-lease, not --force",
			"git push: the flag is --force-with-lease, not --force"},
		{"bash -lc 'python manage.py migrate'", "you should have used python3, python is python 2 here",
			"python: you should have used python3"},
		{"FOO=1 timeout 30 ./scripts/e2e.sh", "No. Use the venv's pytest: .venv/bin/pytest",
			"e2e.sh: use the venv's pytest: .venv/bin/pytest"},
		{"AWS_PROFILE=dev aws s3 ls", "wrong profile, it's AWS_PROFILE=staging",
			"aws s3: wrong profile"},
		{"", "no, use the Makefile target instead", "shell command: use the Makefile target instead"},
		{"curl https://localhost:8443/x", "<private>the plan</private>",
			"curl failed: (60) SSL certificate problem: self-signed certificate"},
		{"make", "use the release target instead because " + strings.Repeat("this is a very long reason ", 10),
			"make: use the release target instead because this is a very long reason this is…"},
	}
	for _, tt := range tests {
		f := Failure{Agent: "claude", SessionID: "s", Tool: "Bash", Command: tt.command, ExitCode: 1, ErrorHead: head}
		l := MiniLearning(f, tt.correction, "app", armT0)
		if l.Title != tt.want {
			t.Errorf("MiniLearning(%q, %q).Title\n got %q\nwant %q", tt.command, tt.correction, l.Title, tt.want)
		}
		if n := len([]rune(l.Title)); n > maxTitleChars {
			t.Errorf("title %q has %d chars", l.Title, n)
		}
		if strings.EqualFold(strings.TrimSpace(l.Title), "correction") {
			t.Errorf("meaningless title %q", l.Title)
		}
	}
}

// TestMiniLearningIsAValidDocument writes awkward text (backticks, fences,
// YAML-looking colons, newlines) and parses the document back.
func TestMiniLearningIsAValidDocument(t *testing.T) {
	t.Parallel()
	f := Failure{
		Agent: "codex", SessionID: "s", Tool: "Bash", ExitCode: 2,
		Command:      "echo `date` && printf '```\\n' | grep -e '- key: value'",
		ErrorHead:    `grep: "unmatched" [`,
		ErrorContext: "```\nnot a fence end\n```\n---\nkey: value",
		Cwd:          "/tmp/x",
	}
	l := MiniLearning(f, "no: use `sed -n` instead,\nnot grep\n\n---\ntitle: injected", "", armT0)
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	if l.Scope != "global" || l.Project != "" {
		t.Errorf("no project gives scope %q project %q, want global", l.Scope, l.Project)
	}
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := store.Parse(data)
	if err != nil {
		t.Fatalf("parse back: %v\n%s", err, data)
	}
	if back.Title != l.Title || back.KeyInsight != l.KeyInsight || back.Body != l.Body || back.Type != "mini" {
		t.Errorf("round trip changed the learning:\n%s", data)
	}
	if strings.Contains(back.Title, "\n") || strings.Contains(back.KeyInsight, "\n") {
		t.Errorf("multi-line title or insight: %q / %q", back.Title, back.KeyInsight)
	}
	// The error context stays inside its code block.
	if !strings.Contains(back.Body, "````\n```\nnot a fence end\n```\n---\nkey: value\n````") {
		t.Errorf("error context not fenced safely:\n%s", back.Body)
	}
}

func TestMiniLearningSameInputSameID(t *testing.T) {
	t.Parallel()
	e := newMiniEnv(t)
	f := armFixture(t, e, "claude", "claude/post-tool-use-failure.json")
	ev := promptEvent(t, "claude", "claude/user-prompt-correction.json")
	first, ok, err := CaptureCorrection(context.Background(), e.ix, e.state, ev, armT0.Add(time.Minute))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := Arm(e.state, f.SessionID, f, armT0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	second, ok, err := CaptureCorrection(context.Background(), e.ix, e.state, ev, armT0.Add(time.Hour+time.Minute))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if first != second || len(e.documents(t)) != 1 {
		t.Errorf("the same correction twice gave %q and %q, %d documents", first, second, len(e.documents(t)))
	}
}

func TestProgramOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ command, prog, sub string }{
		{"curl -k https://x", "curl", ""},
		{"/usr/local/bin/go test ./...", "go", "test"},
		{"cd api && npm run build", "npm", "run"},
		{"export A=1; source .env; make test", "make", "test"},
		{"sudo -u root -E docker compose up", "docker", "compose"},
		{"env -i PATH=/bin timeout 30s ./run.sh --fast", "run.sh", ""},
		{`bash -c "cd x && cargo nextest run"`, "cargo", "nextest"},
		{"git -C repo status", "git", ""},
		{"kubectl get pods | grep api", "kubectl", "get"},
		{"'my tool' --flag", "my tool", ""},
		{"", "", ""},
		{"cd /tmp", "", ""},
		// Comments and CRLF (once only the drainer's tokeniser).
		{"# build it\nmake test", "make", "test"},
		{"cd x\r\ngo test\r\n", "go", "test"},
	}
	for _, tt := range tests {
		prog, sub := programOf(tt.command)
		if prog != tt.prog || sub != tt.sub {
			t.Errorf("programOf(%q) = %q, %q; want %q, %q", tt.command, prog, sub, tt.prog, tt.sub)
		}
	}
}

func FuzzFailedBash(f *testing.F) {
	for _, name := range []string{"claude/post-tool-use-failure.json", "claude/post-tool-use.json", "codex/post-tool-use.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"tool_name":"shell","tool_input":{"command":["bash","-lc"]},"tool_response":{"output":"x","metadata":{"exit_code":1}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fail, ok := FailedBash("codex", data)
		if !ok {
			return
		}
		if fail.ExitCode == 0 {
			t.Error("exit code 0 is a failure")
		}
		l := MiniLearning(fail, "use the other thing instead", "p", armT0)
		if err := l.Validate(); err != nil {
			t.Errorf("invalid learning: %v", err)
		}
		if _, err := l.Marshal(); err != nil {
			t.Error(err)
		}
	})
}
