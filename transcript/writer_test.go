package transcript_test

// These tests run a condensation through the builtin writer: what the
// writers receive must hold no secret, skipped transcripts must give no
// learnings, and no condensation may make a writer fail. They live in the
// external test package because drain/writer imports transcript.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/transcript"
)

// The internal tests' helpers, under the names the tests were written with
// (see export_test.go).
var (
	lines           = transcript.Lines
	quote           = transcript.Quote
	cUser           = transcript.CUser
	cAsst           = transcript.CAsst
	cBash           = transcript.CBash
	cResult         = transcript.CResult
	xUser           = transcript.XUser
	xUserMsg        = transcript.XUserMsg
	xCall           = transcript.XCall
	xOutput         = transcript.XOutput
	condenseString  = transcript.CondenseString
	allText         = transcript.AllText
	briefs          = transcript.Briefs
	fixtureSecrets  = transcript.FixtureSecrets
	maxPromptBytes  = transcript.MaxPromptBytes
	maxCommandBytes = transcript.MaxCommandBytes
)

const xMeta = transcript.XMeta

func TestFixtureSecretsNeverLeave(t *testing.T) {
	c, err := transcript.Condense("testdata/claude-session.jsonl", "claude", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile("testdata/claude-session.jsonl")
	for _, s := range fixtureSecrets {
		if !bytes.Contains(raw, []byte(s)) {
			t.Fatalf("fixture no longer holds %q: the test proves nothing", s)
		}
	}
	out, err := writer.Builtin{}.Write(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(out)
	for _, s := range fixtureSecrets {
		for where, text := range map[string]string{"condensed": allText(t, c), "learnings": string(j)} {
			if strings.Contains(text, s) {
				t.Errorf("%s holds %q", where, s)
			}
		}
	}
}

// TestSecretsRedactedEverywhere plants the secrets in every place the
// condenser keeps text from: prompts, commands, error heads, fix output,
// answers, file paths, metadata.
func TestSecretsRedactedEverywhere(t *testing.T) {
	key, secret := fixtureSecrets[0], fixtureSecrets[1]
	env := "AWS_ACCESS_KEY_ID=" + key + "\nAWS_SECRET_ACCESS_KEY=" + secret
	jsonl := lines(
		`{"type":"user","sessionId":"s-`+key+`","cwd":"/home/`+key+`","gitBranch":"b","message":{"content":`+quote("deploy with "+env+" please <private>my password is hunter2</private>")+`}}`,
		cBash("t1", "AWS_SECRET_ACCESS_KEY="+secret+" aws s3 ls"),
		cResult("t1", quote("Exit code 255\n"+env+"\nAn error occurred (InvalidAccessKeyId) for "+key), true),
		cUser(`"no, use the profile instead"`),
		cBash("t2", "aws s3 ls --profile dev"),
		cResult("t2", quote(env+"\n2026-01-01 bucket"), false),
		cAsst(`[{"type":"text","text":`+quote("Used "+key+" from the env.")+`},{"type":"tool_use","id":"e1","name":"Write","input":{"file_path":"/tmp/`+key+`.txt"}}]`),
		cResult("e1", `"ok"`, false),
	)
	c := condenseString(t, "claude", jsonl, transcript.Limits{})
	if len(c.Events) < 5 {
		t.Fatalf("too few events to prove anything: %q", briefs(c.Events))
	}
	out, _ := writer.Builtin{}.Write(context.Background(), c)
	j, _ := json.Marshal(out)
	all := allText(t, c) + string(j)
	for _, s := range append(fixtureSecrets, "hunter2") {
		if strings.Contains(all, s) {
			t.Errorf("output holds %q:\n%s", s, all)
		}
	}
	if !strings.Contains(c.Text, "[REDACTED:") || !strings.Contains(c.Text, "[private]") {
		t.Errorf("expected placeholders in:\n%s", c.Text)
	}
}

func TestWriterTranscriptsAreSkipped(t *testing.T) {
	body := strings.Repeat(cBash("t", "go test ./...")+"\n"+cResult("t", `"Exit code 1\nFAIL"`, true)+"\n", 20)
	tests := []struct {
		name, harness, jsonl, skip string
	}{
		{"claude writer run", "claude", lines(cUser(quote(transcript.WriterPromptMarker+"\nYou are reflect's learning writer."))) + body, transcript.SkipWriterRun},
		{"codex writer run after context messages", "codex", lines(xMeta,
			xUser("<environment_context>\n<cwd>/tmp/w</cwd>\n</environment_context>"),
			xUser(transcript.WriterPromptMarker+"\nYou are reflect's learning writer."), xUserMsg(transcript.WriterPromptMarker+"\nYou are…")), transcript.SkipWriterRun},
		{"claude run in the writer directory", "claude", lines(`{"type":"user","cwd":"/tmp/reflect-writer-123","message":{"content":"extract learnings"}}`) + body, transcript.SkipWriterRun},
		{"codex run in the state writer directory", "codex", lines(`{"type":"session_meta","payload":{"id":"x","cwd":"/home/u/.reflect/writer"}}`, xUser("extract")), transcript.SkipWriterRun},
		{"marker in a later prompt is an ordinary session", "claude", lines(cUser(`"how does the writer work?"`),
			cUser(quote("it starts with "+transcript.WriterPromptMarker))), ""},
		{"no events", "claude", lines(`{"type":"summary","summary":"x"}`), transcript.SkipNoEvents},
		{"unknown format", "", "hello\nworld\n", transcript.SkipUnknownFormat},
		{"empty file", "", "", transcript.SkipNoEvents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := condenseString(t, tt.harness, tt.jsonl, transcript.Limits{})
			if c.Skip != tt.skip {
				t.Fatalf("Skip = %q, want %q", c.Skip, tt.skip)
			}
			if tt.skip != "" && (len(c.Events) != 0 || c.Text != "") {
				t.Errorf("skipped transcript has events %q / text %q", briefs(c.Events), c.Text)
			}
			if tt.skip == "" && len(c.Events) == 0 {
				t.Errorf("ordinary session lost its events")
			}
			out, err := writer.Builtin{}.Write(context.Background(), c)
			if err != nil || (tt.skip != "" && len(out.Learnings) != 0) {
				t.Errorf("builtin on a skipped transcript: %v %+v", err, out)
			}
		})
	}
}

func FuzzCondense(f *testing.F) {
	for _, p := range []string{"testdata/claude-session.jsonl", "testdata/codex-rollout.jsonl"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0), uint16(0))
		f.Add(data, uint8(1), uint16(200))
	}
	f.Add([]byte(lines(xMeta, xUser("x"), xCall("c", "shell", `{"command":["bash","-lc","go test"]}`), xOutput("c", `{"exit_code":1}`))), uint8(2), uint16(50))
	f.Add([]byte(cUser(`"<reflect-learnings>`)+"\n{"), uint8(0), uint16(1))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, h uint8, maxChars uint16) {
		path := filepath.Join(dir, "fuzz.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		lim := transcript.Limits{MaxChars: int(maxChars), MaxEvents: 1 + int(h)%50}
		c, err := transcript.Condense(path, []string{"", "claude", "codex"}[int(h)%3], lim)
		if err != nil {
			t.Fatalf("Condense: %v", err)
		}
		bound := lim.WithDefaults()
		if len(c.Text) > bound.MaxChars || len(c.Events) > bound.MaxEvents || !utf8.ValidString(c.Text) {
			t.Fatalf("out of bounds: text %d/%d bytes, %d/%d events", len(c.Text), bound.MaxChars, len(c.Events), bound.MaxEvents)
		}
		if c.Skip != "" && (len(c.Events) > 0 || c.Text != "") {
			t.Fatalf("skipped (%s) but has events", c.Skip)
		}
		for _, ev := range c.Events {
			if len(ev.Text) > maxPromptBytes || len(ev.Command) > maxCommandBytes {
				t.Fatalf("event over its cap: %d/%d bytes", len(ev.Text), len(ev.Command))
			}
		}
		if _, err := (writer.Builtin{}).Write(context.Background(), c); err != nil {
			t.Fatalf("builtin: %v", err)
		}
	})
}
