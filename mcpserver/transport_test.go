package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/config"
)

const (
	initRequest = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listAfter   = `{"jsonrpc":"2.0","id":"after","method":"tools/list"}`
)

// answer is a JSON-RPC answer as the tests read it.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Tools []json.RawMessage `json:"tools"`
	} `json:"result"`
	Error *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

// session runs s over input as `reflect mcp` runs over stdin, until the
// input ends and every request is answered, and returns the answers.
func session(t testing.TB, s *Server, input string) []answer {
	t.Helper()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, s.Transport(strings.NewReader(input), &out)) }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("the session did not end at end of input")
	}
	var answers []answer
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var a answer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %q", line)
		}
		answers = append(answers, a)
	}
	return answers
}

// framed wraps one input line between the handshake and a tools/list.
func framed(line string) string {
	return initRequest + "\n" + initialized + "\n" + line + "\n" + listAfter + "\n"
}

// answeredAfter reports whether the tools/list sent after the input was
// answered with the tools: the server kept serving.
func answeredAfter(answers []answer) bool {
	for _, a := range answers {
		if string(a.ID) == `"after"` && a.Result != nil && len(a.Result.Tools) > 0 {
			return true
		}
	}
	return false
}

func overLongFrame() string {
	return `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"x":"` + strings.Repeat("a", MaxFrame) + `"}}`
}

// malformedFrames are the inputs that ended reflect-mcp before it checked
// each line, with the error code and id each must be answered with.
func malformedFrames() []struct {
	name, line string
	code       int64
	id         string
} {
	return []struct {
		name, line string
		code       int64
		id         string
	}{
		{"not JSON", `{not json}`, -32700, "null"},
		{"empty array", `[]`, -32600, "null"},
		{"null", `null`, -32600, "null"},
		{"a number", `123`, -32600, "null"},
		{"a string", `"tools/list"`, -32600, "null"},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, -32600, "7"},
		{"no version", `{"id":7,"method":"tools/list"}`, -32600, "7"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, -32600, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, -32600, "null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, -32600, "null"},
		{"method not a string", `{"jsonrpc":"2.0","id":8,"method":5}`, -32600, "8"},
		{"params not structured", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":5}`, -32600, "8"},
		{"response without result or error", `{"jsonrpc":"2.0","id":8}`, -32600, "8"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\xfe\"}}", -32700, "null"},
		{"100k-deep array", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), -32700, "null"},
		{"deep object", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":` + strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1000) + "}", -32700, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`, -32600, "null"},
		{"truncated object", `{"jsonrpc":"2.0","id":10,"method":"tools/list"`, -32700, "null"},
		{"two values on a line", `{"jsonrpc":"2.0","id":10,"method":"tools/list"}{}`, -32700, "null"},
		{"frame over the cap", overLongFrame(), -32600, "null"},
	}
}

func TestMalformedFramesAreAnsweredAndServingGoesOn(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, kb(t))
	for _, tc := range malformedFrames() {
		answers := session(t, s, framed(tc.line))
		var got *answer
		for i := range answers {
			if a := answers[i]; a.Error != nil && string(a.ID) != `"after"` && string(a.ID) != `"init"` {
				got = &answers[i]
			}
		}
		switch {
		case got == nil:
			t.Errorf("%s: no error answer in %d answers", tc.name, len(answers))
		case got.Error.Code != tc.code || string(got.ID) != tc.id:
			t.Errorf("%s: error %d with id %s, want %d with id %s", tc.name, got.Error.Code, got.ID, tc.code, tc.id)
		}
		if !answeredAfter(answers) {
			t.Errorf("%s: the tools/list that followed was not answered: the server stopped serving", tc.name)
		}
	}
}

// Lines the SDK answers itself (or ignores, for a stray response) must
// not end the session either; a blank line is skipped.
func TestValidButOddFramesKeepServing(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, kb(t))
	for _, line := range []string{
		``, `   `, "\r",
		`{"jsonrpc":"2.0","id":12,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","id":98,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":15,"method":"initialize","params":{}}`,
	} {
		if answers := session(t, s, framed(line)); !answeredAfter(answers) {
			t.Errorf("%q: the tools/list that followed was not answered (%d answers)", line, len(answers))
		}
	}
}

func newTestServer(t testing.TB, c *config.Config) *Server {
	t.Helper()
	s, err := New(Options{Config: c, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// FuzzMCPFrame: whatever one line holds, the server answers it or skips
// it, writes only JSON, and answers the tools/list that follows. CI runs
// the seed corpus (every input that once ended reflect-mcp); run
// `go test -tags sqlite_fts5 -run XXX -fuzz FuzzMCPFrame ./mcpserver/`
// for more.
func FuzzMCPFrame(f *testing.F) {
	for _, tc := range malformedFrames() {
		if len(tc.line) < 1<<20 {
			f.Add(tc.line)
		}
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":12,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"list","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"reflect://learning/lrn-x-a1a1a1"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\r",
	} {
		f.Add(s)
	}
	s := newTestServer(f, kb(f))
	f.Fuzz(func(t *testing.T, line string) {
		// The line is one line: a newline in it would make it two, each
		// checked on its own, which the seeds cover.
		line = strings.ReplaceAll(line, "\n", " ")
		if answers := session(t, s, framed(line)); !answeredAfter(answers) {
			t.Fatalf("%q: the tools/list that followed was not answered", line)
		}
	})
}
