package writer

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/store"
)

// codexScript records like recordScript, copies the schema it was given,
// and writes $ANSWER (when set) to the -o file, as codex exec does.
const codexScript = recordScript + `
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--output-last-message) out="$2"; shift ;;
    --output-schema) cp "$2" "$FAKE_OUT/schema.json"; shift ;;
  esac
  shift
done
echo '{"type":"thread.started","thread_id":"t-1"}'
echo '{"type":"turn.started"}'
echo 'not an event'
echo '{"type":"turn.completed","usage":{"input_tokens":5000,"cached_input_tokens":1000,"output_tokens":300}}'
if [ -n "$ANSWER" ]; then printf '%s' "$ANSWER" > "$out"; fi
`

func TestCodexWriter(t *testing.T) {
	t.Parallel()
	f := fakeBin(t, "codex", codexScript,
		`ANSWER={"learnings":[{"title":"Run go vet with the fts5 tag","key_insight":"Other tag sets rebuild sqlite for a minute.","problem":"","solution":"","confidence":"high","category":"build","tags":["go"],"symptoms":[],"entities":[],"relations":[],"cites":["/work/repo/Makefile"]}]}`,
		"REFLECT_DISABLE=")
	out := f.out

	got, err := (&Codex{Path: f.path, Env: f.env}).Write(context.Background(), writerCondensed)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Learnings) != 1 || got.Learnings[0].Title != "Run go vet with the fts5 tag" {
		t.Fatalf("learnings = %+v", got.Learnings)
	}
	if c := got.Learnings[0].Cites; !reflect.DeepEqual(c, []string{"Makefile"}) {
		t.Errorf("cites = %q, want the absolute path made relative to the session cwd", c)
	}
	if got.InputTokens != 5000 || got.OutputTokens != 300 || got.CostUSD != 0 {
		t.Errorf("tokens %d/%d cost %v, want 5000/300 and unknown cost", got.InputTokens, got.OutputTokens, got.CostUSD)
	}

	args := fakeArgs(t, out)
	joined := " " + strings.Join(args, " ") + " "
	for _, want := range []string{" exec ", " --ephemeral ", " --sandbox read-only ", " --skip-git-repo-check ", " --json ", " --output-schema ", " -o "} {
		if !strings.Contains(joined, want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	if args[0] != "exec" || args[len(args)-1] != "-" {
		t.Errorf("args = %q, want exec … - (prompt on stdin)", args)
	}
	if readRecorded(t, out, "stdin") != Prompt(writerCondensed) {
		t.Error("stdin is not the prompt")
	}
	if env := readRecorded(t, out, "env"); !strings.Contains(env, "\nREFLECT_DISABLE=1\n") {
		t.Errorf("env lacks REFLECT_DISABLE=1")
	}
	if schema := readRecorded(t, out, "schema.json"); schema != string(codexSchema()) {
		t.Errorf("codex got schema %q", schema)
	}
}

func TestCodexWriterFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, answer, script, want string
	}{
		{"exit 0 without answer", "", codexScript, "wrote no answer file"},
		{"empty answer", "", codexScript + `: > "$out"`, "writer output is empty"},
		{"prose answer", "I found nothing.", codexScript, `no JSON object with a "learnings" key`},
		{"failed turn", "", `echo '{"type":"turn.failed","error":{"message":"stream disconnected"}}'; echo "Not inside a trusted directory" >&2; exit 1`, "Not inside a trusted directory"},
		{"error event with exit 0", "", `echo '{"type":"error","message":"model overloaded"}'`, "model overloaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeBin(t, "codex", tt.script, "ANSWER="+tt.answer)
			got, err := (&Codex{Path: f.path, Env: f.env}).Write(context.Background(), writerCondensed)
			if err == nil {
				t.Fatalf("Write = %+v, want an error", got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

// TestCodexSchemaStrict checks the schema against what the Responses API
// demands of a strict schema: every object lists all its properties as
// required and forbids additional ones.
func TestCodexSchemaStrict(t *testing.T) {
	t.Parallel()
	var root map[string]any
	if err := json.Unmarshal(codexSchema(), &root); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, node map[string]any)
	objects := 0
	walk = func(path string, node map[string]any) {
		if node["type"] == "object" {
			objects++
			props, _ := node["properties"].(map[string]any)
			var keys, required []string
			for k := range props {
				keys = append(keys, k)
			}
			for _, r := range node["required"].([]any) {
				required = append(required, r.(string))
			}
			sort.Strings(keys)
			sort.Strings(required)
			if !reflect.DeepEqual(keys, required) {
				t.Errorf("%s: required %q, properties %q", path, required, keys)
			}
			if node["additionalProperties"] != false {
				t.Errorf("%s: additionalProperties is not false", path)
			}
			for k, v := range props {
				walk(path+"."+k, v.(map[string]any))
			}
		}
		if items, ok := node["items"].(map[string]any); ok {
			walk(path+"[]", items)
		}
	}
	walk("$", root)
	if objects != 4 {
		t.Errorf("%d objects in the schema, want 4 (answer, learning, entity, relation)", objects)
	}
	learning := root["properties"].(map[string]any)["learnings"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)
	var draftKeys []string
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Draft{})) {
		draftKeys = append(draftKeys, strings.Split(f.Tag.Get("json"), ",")[0])
	}
	for _, k := range draftKeys {
		if _, ok := learning[k]; !ok {
			t.Errorf("schema lacks Draft field %q", k)
		}
	}
	if len(learning) != len(draftKeys) {
		t.Errorf("schema has %d learning fields, Draft %d", len(learning), len(draftKeys))
	}
	enum := func(obj string) []any {
		return learning[obj].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)["enum"].([]any)
	}
	if got := enum("entities"); len(got) != len(store.EntityTypes) {
		t.Errorf("entity enum %v, want %v", got, store.EntityTypes)
	}
	if got := enum("relations"); len(got) != len(store.RelationshipTypes) {
		t.Errorf("relation enum %v, want %v", got, store.RelationshipTypes)
	}
}
