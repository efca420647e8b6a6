package writer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/reflectkb/reflect/transcript"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reflectkb/reflect/store"
)

// Codex is the writer that runs Codex headless:
// codex exec [--ephemeral] --sandbox read-only --skip-git-repo-check --json
// --output-schema <schema> -o <file> - (prompt on stdin); --ephemeral when
// the installed codex lists it in `codex exec --help`.
type Codex struct {
	// Path is the codex executable; empty looks "codex" up on PATH.
	Path string
	// Dir is the working directory of the run, created if missing; empty
	// uses a temporary directory. Not the session's directory, for the
	// reasons given on Claude.Dir (AGENTS.md instead of CLAUDE.md).
	Dir string
	// Env is the environment the writer runs with; see Claude.Env.
	Env []string
}

// codexWriter runs Codex CLI.
var codexWriter = agentWriter{name: "codex", writer: func(path, dir string, env []string) Writer { return &Codex{Path: path, Dir: dir, Env: env} }}

// Name implements Writer.
func (*Codex) Name() string { return codexWriter.name }

// codexSchema is the JSON contract as a schema for --output-schema. Codex
// sends it to the Responses API with strict: true, where every object must
// list all its properties as required and set additionalProperties to
// false; optional values are expressed as "" or [] instead.
var codexSchema = sync.OnceValue(func() []byte {
	str := map[string]any{"type": "string"}
	strs := map[string]any{"type": "array", "items": str}
	object := func(props map[string]any) map[string]any {
		required := make([]string, 0, len(props))
		for _, k := range []string{
			"title", "key_insight", "problem", "solution", "confidence", "category",
			"tags", "symptoms", "questions", "entities", "relations", "cites", "update", "supersedes",
			"name", "type", "description", "source", "target", "strength", "learnings",
		} {
			if _, ok := props[k]; ok {
				required = append(required, k)
			}
		}
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	}
	entity := object(map[string]any{
		"name":        str,
		"type":        map[string]any{"type": "string", "enum": store.EntityTypes},
		"description": str,
	})
	relation := object(map[string]any{
		"source":      str,
		"target":      str,
		"type":        map[string]any{"type": "string", "enum": store.RelationshipTypes},
		"description": str,
		"strength":    map[string]any{"type": "number"},
	})
	learning := object(map[string]any{
		"title":       str,
		"key_insight": str,
		"problem":     str,
		"solution":    str,
		"confidence":  map[string]any{"type": "string", "enum": []string{"high", "medium", "low"}},
		"category":    str,
		"tags":        strs,
		"symptoms":    strs,
		"questions":   strs,
		"entities":    map[string]any{"type": "array", "items": entity},
		"relations":   map[string]any{"type": "array", "items": relation},
		"cites":       strs,
		"update":      str,
		"supersedes":  str,
	})
	root := object(map[string]any{"learnings": map[string]any{"type": "array", "items": learning}})
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic(err) // a static value: cannot fail
	}
	return b
})

// Write implements Writer. The prompt goes on stdin ("-"): it can exceed
// what one argument may hold. --skip-git-repo-check is needed because the
// run's directory is no repository (codex exec exits 1 otherwise), and is
// safe with a read-only sandbox. --json makes stdout JSONL events, which
// carry the token usage; the answer itself is read from the -o file.
func (w *Codex) Write(ctx context.Context, c *transcript.Condensed) (*Output, error) {
	path, err := lookWriter(w.Path, "codex")
	if err != nil {
		return nil, err
	}
	dir, cleanup, err := writerDir(w.Dir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	// The schema and answer files get their own directory, so a fixed Dir
	// never holds stale answers.
	files, err := os.MkdirTemp("", "reflect-codex-")
	if err != nil {
		return nil, fmt.Errorf("create codex files: %w", err)
	}
	defer os.RemoveAll(files)
	schema := filepath.Join(files, "schema.json")
	answer := filepath.Join(files, "answer.json")
	if err := os.WriteFile(schema, codexSchema(), 0o600); err != nil {
		return nil, fmt.Errorf("write codex schema: %w", err)
	}
	args := []string{"exec"}
	if supportsFlag(ctx, path, w.Env, []string{"exec", "--help"}, codexEphemeralFlag) {
		// No rollout: the reflection is no session of the user's.
		args = append(args, codexEphemeralFlag)
	}
	args = append(args, "--sandbox", "read-only", "--skip-git-repo-check",
		"--json", "--output-schema", schema, "-o", answer, "-")
	stdout, err := writerProc{
		path:    path,
		args:    args,
		dir:     dir,
		stdin:   strings.NewReader(promptFor(ctx, c)),
		environ: w.Env,
	}.run(ctx)
	if err != nil {
		return nil, err
	}
	in, out, failure := codexEvents(stdout)
	if failure != "" {
		failure = " (codex reported: " + failure + ")"
	}
	data, err := readFileBounded(answer, writerMaxStdout)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("codex exited 0 but wrote no answer file%s", failure)
	}
	if err != nil {
		return nil, fmt.Errorf("read codex answer: %w", err)
	}
	o, err := parseAnswer(ctx, data, c.Cwd)
	if err != nil {
		return nil, fmt.Errorf("codex: %w%s", err, failure)
	}
	// Codex reports tokens but no price: cost stays 0 (unknown).
	o.InputTokens, o.OutputTokens = in, out
	return o, nil
}

// codexEvents sums the token usage of codex's JSONL events and returns the
// last error message, if any, to explain a missing answer. Lines that are
// not events are ignored: the exit status and the answer file decide
// whether the run succeeded.
func codexEvents(stdout []byte) (in, out int, failure string) {
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64<<10), writerMaxStdout)
	for sc.Scan() {
		var ev struct {
			Type  string `json:"type"`
			Usage struct {
				InputTokens  int `json:"input_tokens"`
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
			Message string `json:"message"`
			Error   struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "turn.completed":
			in += ev.Usage.InputTokens
			out += ev.Usage.OutputTokens
		case "turn.failed":
			failure = snippet([]byte(ev.Error.Message), 300)
		case "error":
			failure = snippet([]byte(ev.Message), 300)
		}
	}
	return in, out, failure
}

// readFileBounded reads at most max bytes of path; a larger file is an error.
func readFileBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", filepath.Base(path), max)
	}
	return data, nil
}
