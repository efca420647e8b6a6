package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// rawRecordTypes are the record structs the parsers decode.
func rawRecordTypes() []func() any {
	return []func() any{
		func() any { return new(claudeRecord) },
		func() any { return new(claudePart) },
		func() any { return new(codexRecord) },
		func() any { return new(codexPayload) },
		func() any { return new(geminiMessage) },
		func() any { return new(openCodeMessage) },
		func() any { return new(openCodePart) },
		func() any { return new(copilotEvent) },
		func() any { return new(probe) },
		func() any { return new(textPart) },
	}
}

// rawCorpus is every line of the golden fixtures, mangled and not, with
// every value of every line as a record of its own.
func rawCorpus(t testing.TB) [][]byte {
	var out [][]byte
	for _, fx := range goldenFixtures(t.(*testing.T)) {
		body, err := os.ReadFile(fx[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(append(body, mangle(body)...), []byte("\n")) {
			if line = bytes.TrimSpace(line); len(line) == 0 {
				continue
			}
			out = append(out, line)
		}
	}
	return out
}

// checkDecodeRaw decodes line into every record struct with decodeRaw
// and with json.Unmarshal, and reports where they differ.
func checkDecodeRaw(t *testing.T, line []byte) {
	t.Helper()
	for _, mk := range rawRecordTypes() {
		want, got := mk(), mk()
		wantErr := json.Unmarshal(line, want)
		gotErr := decodeRaw(line, got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%T of %q: json.Unmarshal says %v, decodeRaw %v", want, line, wantErr, gotErr)
			continue
		}
		if wantErr == nil && !reflect.DeepEqual(want, got) {
			t.Errorf("%T of %q:\njson.Unmarshal %+v\ndecodeRaw      %+v", want, line, want, got)
		}
	}
}

// decodeRaw decides and decodes as json.Unmarshal does: the same error
// or none, the same fields.
func TestDecodeRawIsUnmarshal(t *testing.T) {
	lines := rawCorpus(t)
	extra := [][]byte{
		[]byte(`{"a":null}`), []byte(`null`), []byte(`[1]`), []byte(`"x"`), []byte(`{"type":"user","TYPE":"x"}`),
		[]byte(`{"message":{"content":1},"message":{"x":2}}`), []byte(`{"message":{"content":1},"message":null}`),
		[]byte(`{"message":3,"type":"user"}`), []byte(`{"parts":[1],"parts":null}`), []byte(`{"parts":[1,2],"parts":[3]}`),
		[]byte(`{"parts":[]}`), []byte(`{"parts":5}`), []byte(`{"toolCalls":[{"name":"a","args":1},{"name":"b"}],"toolCalls":[{"args":2}]}`),
		[]byte(`{"toolCalls":[1,{"name":"x"}]}`), []byte(`{"t\u0079pe":"user"}`), []byte(`{"ſessionId":"s","\u212Aey":1}`),
		[]byte(`{"type":"a"} x`), []byte(`{"type":"a"`), []byte(" {\"type\" : \"a\\u00e9\" } "), []byte(`{"type":"\ud800"}`),
		[]byte("{\"type\":\"\xff\"}"), []byte(`{"data":{"context":{"cwd":"/x"},"context":{"branch":"b"}}}`),
		[]byte(`{"info":{"path":[]},"parts":[]}`), []byte(`{"$set":{"messages":[]}}`), []byte(`{"session_id":1,"sessionid":2}`),
	}
	lines = append(lines, extra...)
	for _, line := range lines {
		checkDecodeRaw(t, line)
		var wantA, wantO any
		var a []json.RawMessage
		var o map[string]json.RawMessage
		if json.Unmarshal(line, &a) == nil && len(line) > 0 && line[0] == '[' {
			wantA = a
		}
		if json.Unmarshal(line, &o) == nil && len(line) > 0 && line[0] == '{' {
			wantO = o
		}
		if gotA := array(line); (wantA == nil) != (gotA == nil) || wantA != nil && !reflect.DeepEqual(wantA, any(gotA)) {
			t.Errorf("array(%q) = %q, json.Unmarshal %q", line, gotA, wantA)
		}
		if gotO := object(line); (wantO == nil) != (gotO == nil) || wantO != nil && !reflect.DeepEqual(wantO, any(gotO)) {
			t.Errorf("object(%q) = %q, json.Unmarshal %q", line, gotO, wantO)
		}
	}
}

// codexLineOf decodes a Codex record in two steps, the record and then its
// payload when it is an object, as json.Unmarshal would.
func codexLineOf(line []byte) (codexLine, error) {
	var r codexRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return codexLine{}, err
	}
	out := codexLine{Type: r.Type}
	if len(r.Payload) > 0 && r.Payload[0] == '{' {
		if err := json.Unmarshal(r.Payload, &out.Payload); err != nil {
			return codexLine{}, err
		}
	} else if len(r.Payload) > 0 && string(r.Payload) != "null" {
		return codexLine{}, errRawType
	}
	return out, nil
}

// A codexLine decoded in one pass is the record and its payload decoded
// one after the other.
func checkCodexLine(t *testing.T, line []byte) {
	t.Helper()
	want, wantErr := codexLineOf(line)
	var got codexLine
	gotErr := decodeRaw(line, &got)
	if (wantErr == nil) != (gotErr == nil) {
		t.Errorf("codexLine of %q: in two steps %v, in one %v", line, wantErr, gotErr)
		return
	}
	if wantErr == nil && !reflect.DeepEqual(want, got) {
		t.Errorf("codexLine of %q:\ntwo steps %+v\none pass  %+v", line, want, got)
	}
}

func TestCodexLineIsTwoSteps(t *testing.T) {
	lines := append(rawCorpus(t),
		[]byte(`{"type":"event_msg","payload":{"type":"a","message":"m"},"payload":{"type":"b"}}`),
		[]byte(`{"type":"event_msg","payload":{"type":"a"},"payload":null}`),
		[]byte(`{"type":"event_msg","payload":"x"}`), []byte(`{"type":"event_msg","payload":[1]}`),
		[]byte(`{"type":"event_msg","Payload":{"TYPE":"a"}}`), []byte(`{"payload":{"type":"a"}} x`))
	for _, line := range lines {
		checkCodexLine(t, line)
	}
}

// str decodes as json.Unmarshal does, with or without its fast path.
func TestStrIsUnmarshal(t *testing.T) {
	for _, raw := range []string{`"plain"`, `"a\nb"`, `"\u00e9"`, "\"\xff\"", "\"é\"", `"a"b"`, `"`, `""`, `"tab	in"`, `"\ud800"`, `7`, `null`, `"x`, `x"`} {
		var want string
		if raw[0] != '"' || json.Unmarshal([]byte(raw), &want) != nil {
			want = ""
		}
		if got := str(json.RawMessage(raw)); got != want {
			t.Errorf("str(%q) = %q, want %q", raw, got, want)
		}
	}
}

func FuzzDecodeRaw(f *testing.F) {
	for _, name := range []string{"claude-session.jsonl", "codex-rollout.jsonl", "gemini-session.jsonl"} {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for i, line := range bytes.Split(body, []byte("\n")) {
			if i < 20 && len(line) < 4000 {
				f.Add(line)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkDecodeRaw(t, line)
		checkCodexLine(t, line)
	})
}
