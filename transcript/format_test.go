package transcript

import "testing"

// Detection keeps the precedence the formats' markers need whatever the
// order of the formats table: Gemini's header has a sessionId, which
// alone says Claude; a record type beats OpenCode's shape, which beats a
// bare sessionId.
func TestHarnessOfPrecedence(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		`{"sessionId":"s","projectHash":"h"}`:                        "gemini",
		`{"type":"gemini","sessionId":"s"}`:                          "gemini",
		`{"$set":{},"message":"m"}`:                                  "gemini",
		`{"type":"session_meta","payload":{},"sessionId":"s"}`:       "codex",
		`{"type":"session_meta","sessionId":"s"}`:                    "claude",
		`{"type":"user","info":{},"parts":[]}`:                       "claude",
		`{"type":"session.start","data":{},"info":{},"parts":[]}`:    "copilot",
		`{"type":"session.start","info":{},"parts":[]}`:              "opencode",
		`{"info":{},"parts":[],"sessionId":"s"}`:                     "opencode",
		`{"sessionId":"s"}`:                                          "claude",
		`{"type":"response_item","payload":{},"info":{},"parts":[]}`: "codex",
		`{"other":1}`: "",
		`not json`:    "",
	} {
		if got := harnessOf([]byte(line)); got != want {
			t.Errorf("harnessOf(%s) = %q, want %q", line, got, want)
		}
	}
}

func TestFormatsHaveDistinctNamesAndParsers(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, f := range formats {
		if f.name == "" || seen[f.name] || f.detect == nil || f.parser == nil {
			t.Errorf("format %q: empty, repeated, or without detect or parser", f.name)
		}
		seen[f.name] = true
	}
}
