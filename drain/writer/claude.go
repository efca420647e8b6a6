package writer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/reflectkb/reflect/transcript"
	"os/exec"
	"strings"
)

// Claude is the writer that runs Claude Code headless:
// claude -p <prompt> --output-format json --max-turns 1
// [--no-session-persistence], the flag when `claude --help` lists it.
type Claude struct {
	// Path is the claude executable; empty looks "claude" up on PATH.
	Path string
	// Dir is the working directory of the run, created if missing; empty
	// uses a temporary directory. It is never the session's directory:
	// the writer needs no tools, and a project directory would load that
	// project's CLAUDE.md, settings and hooks into every run. A fixed
	// directory keeps Claude Code's per-directory session files in one
	// place instead of one new project per run.
	Dir string
	// Env is the environment the writer runs with, before the guard every
	// writer gets (REFLECT_DISABLE=1, no Claude Code session variables);
	// nil is this process's. The command layer leaves it nil; tests set
	// it, so that fakes run side by side without changing the process's.
	Env []string
}

// claudeWriter runs Claude Code, the first writer "auto" tries.
var claudeWriter = agentWriter{name: "claude", writer: func(path, dir string, env []string) Writer { return &Claude{Path: path, Dir: dir, Env: env} }}

// Name implements Writer.
func (*Claude) Name() string { return claudeWriter.name }

// claudeEnvelope is the result object of claude -p --output-format json.
type claudeEnvelope struct {
	Type         string  `json:"type"`
	Subtype      string  `json:"subtype"`
	IsError      bool    `json:"is_error"`
	Result       *string `json:"result"`
	TotalCostUSD float64 `json:"total_cost_usd"`
	Usage        struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

// claudeMaxArgPrompt is the largest prompt passed as an argument. Linux refuses
// a single argument over 128 KiB (MAX_ARG_STRLEN) with E2BIG; a longer
// prompt goes on stdin, which claude -p reads when it has no prompt
// argument.
const claudeMaxArgPrompt = 100 << 10

// Write implements Writer. A prompt that fits goes as an argument with
// stdin empty (/dev/null), since claude -p otherwise waits for piped
// stdin.
func (w *Claude) Write(ctx context.Context, c *transcript.Condensed) (*Output, error) {
	path, err := lookWriter(w.Path, "claude")
	if err != nil {
		return nil, err
	}
	dir, cleanup, err := writerDir(w.Dir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	p := writerProc{path: path, dir: dir, args: []string{"-p"}, environ: w.Env}
	if prompt := promptFor(ctx, c); len(prompt) <= claudeMaxArgPrompt {
		p.args = append(p.args, prompt)
	} else {
		p.stdin = strings.NewReader(prompt)
	}
	p.args = append(p.args, "--output-format", "json", "--max-turns", "1")
	if supportsFlag(ctx, path, w.Env, []string{"--help"}, claudeNoPersistFlag) {
		// The reflection is no session of the user's: keep it out of
		// their session list and /resume.
		p.args = append(p.args, claudeNoPersistFlag)
	}
	stdout, err := p.run(ctx)
	if err != nil {
		return nil, err
	}
	return parseClaudeEnvelope(ctx, stdout, c.Cwd)
}

// parseClaudeEnvelope reads claude's result envelope. Cost and tokens are
// reported even when the run failed, but a failed run's Output is not
// returned: the entry is retried and its cost shows in the next run.
func parseClaudeEnvelope(ctx context.Context, stdout []byte, cwd string) (*Output, error) {
	var env claudeEnvelope
	if err := json.Unmarshal(stdout, &env); err != nil {
		// Older versions and wrappers may print lines before the object;
		// the envelope is the last line.
		lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
		if json.Unmarshal([]byte(lines[len(lines)-1]), &env) != nil {
			return nil, fmt.Errorf("claude printed no JSON result (starts %q)", snippet(stdout, 80))
		}
	}
	if env.Type != "result" {
		return nil, fmt.Errorf("claude printed %q, not a result object", env.Type)
	}
	if env.IsError || env.Subtype != "success" {
		// The subtype names the failure (error_max_turns,
		// error_during_execution); an API error is in the result text.
		msg := "claude run failed: " + env.Subtype
		if env.Result != nil && *env.Result != "" {
			msg += ": " + snippet([]byte(*env.Result), 200)
		}
		// A failed run is still billed: return its cost so the daily budget
		// counts it.
		return &Output{CostUSD: env.TotalCostUSD}, errors.New(msg)
	}
	if env.Result == nil {
		return nil, errors.New("claude result has no \"result\" text")
	}
	out, err := parseAnswer(ctx, []byte(*env.Result), cwd)
	if err != nil {
		return nil, fmt.Errorf("claude: %w", err)
	}
	out.CostUSD = env.TotalCostUSD
	out.InputTokens = env.Usage.InputTokens
	out.OutputTokens = env.Usage.OutputTokens
	return out, nil
}

// lookWriter resolves a writer's executable: path when set, else name on
// PATH, with an error that says what to do.
func lookWriter(path, name string) (string, error) {
	if path != "" {
		return path, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s not found on PATH: install it or set REFLECT_WRITER to another writer (%w)", name, err)
	}
	return p, nil
}
