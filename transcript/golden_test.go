package transcript

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden from the current condenser")

// goldenFixtures are every transcript the repository holds, with the
// harness each is condensed as ("" detects it).
func goldenFixtures(t *testing.T) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	add := func(pattern, harness string) {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("no fixtures match %s", pattern)
		}
		for _, f := range files {
			name := strings.NewReplacer("../", "", "/", "_").Replace(f)
			out[name+"."+harness] = [2]string{f, harness}
			out[name+".detect"] = [2]string{f, ""}
		}
	}
	add("testdata/claude-session.jsonl", "claude")
	add("testdata/codex-rollout.jsonl", "codex")
	add("testdata/gemini-session.jsonl", "gemini")
	add("testdata/copilot/events.jsonl", "copilot")
	add("testdata/opencode/session.jsonl", "opencode")
	add("../testdata/real/transcripts/claude/*.jsonl", "claude")
	add("../testdata/real/transcripts/codex/*.jsonl", "codex")
	add("../testdata/real/payloads/claude/*.jsonl", "claude")
	add("../testdata/real/payloads/codex/*.jsonl", "codex")
	add("../backfill/testdata/claude-session.jsonl", "claude")
	add("../backfill/testdata/codex-rollout.jsonl", "codex")
	add("../backfill/testdata/gemini-session.jsonl", "gemini")
	add("../backfill/testdata/copilot-events.jsonl", "copilot")
	add("../backfill/testdata/opencode-session.jsonl", "opencode")
	return out
}

// mangle derives, from every line of a fixture, the shapes a decoder may
// treat differently: invalid UTF-8 inside strings, keys in another case,
// duplicate keys, nulls, wrong types and cut lines.
func mangle(body []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(body, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s := string(line)
		variants := []string{
			strings.Replace(s, `":"`, "\":\"\xff\xfe", 3),
			strings.NewReplacer(`"sessionId"`, `"SESSIONID"`, `"type":`, `"Type":`, `"cwd"`, `"Cwd"`, `"text"`, `"TEXT"`).Replace(s),
			strings.Replace(s, "{", `{"type":"assistant","content":7,`, 1),
			strings.Replace(s, `"content":`, `"content":null,"content":`, 1),
			strings.Replace(s, `"content":`, `"content":{"a":[1,2,{}]},"x":`, 1),
			strings.Replace(s, `"text":"`, `"text":["`, 1),
			strings.Replace(s, `"input":`, `"input":"oops","y":`, 1),
			s[:len(s)/2],
			s + ` trailing`,
			strings.ReplaceAll(s, `\n`, `\u000a\ud800`),
			s,
		}
		for _, v := range variants {
			out.WriteString(v + "\n")
		}
	}
	return out.Bytes()
}

// The condenser's output on every fixture, and on every fixture mangled,
// is the one recorded in testdata/golden: a faster decoder must not change
// a byte of what the drain sends.
func TestCondenseGolden(t *testing.T) {
	dir := t.TempDir()
	for name, fx := range goldenFixtures(t) {
		for _, mangled := range []bool{false, true} {
			path, key := fx[0], name
			if mangled {
				body, err := os.ReadFile(fx[0])
				if err != nil {
					t.Fatal(err)
				}
				path = filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))
				if err := os.WriteFile(path, mangle(body), 0o600); err != nil {
					t.Fatal(err)
				}
				key += ".mangled"
			}
			c, err := Condense(path, fx[1], Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c.RawBytes = 0 // the file's size, not something the condenser made
			got, err := json.MarshalIndent(c, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, "\n---- text ----\n"+c.Text...)
			golden := filepath.Join("testdata", "golden", key+".txt")
			if *updateGolden {
				if err := os.WriteFile(golden, got, 0o600); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%s: %v (run with -args -update-golden on the old condenser first)", key, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: condensed output differs from %s:\n%s", key, golden, got)
			}
		}
	}
}
