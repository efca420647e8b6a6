package writer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/reflectkb/reflect/transcript"
	"os"
	"path/filepath"
	"strings"
)

// Command is the writer that runs any executable (drain.command,
// REFLECT_WRITER_COMMAND) without a shell. It receives:
//
//   - on stdin, the condensed transcript (Condensed.Text);
//   - REFLECT_CONDENSED_JSON, the path of a file with the whole Condensed
//     as JSON (events, runs, files, cwd, the text as "text", and as
//     "candidates" the existing learnings it may update or supersede, or,
//     in a run of `reflect enrich`, as "subjects" the learnings to write
//     questions for, which stdin then lists instead of a transcript);
//   - REFLECT_WRITER_PROMPT, the path of a file with the prompt the claude
//     and codex writers send, for commands that wrap another LLM CLI;
//   - REFLECT_DISABLE=1, like every writer.
//
// It must print {"learnings":[…]} on stdout (see ParseOutput) and exit 0.
// It runs in the session's working directory when that still exists, so a
// script can read the files the session touched.
type Command struct {
	// Argv is the command and its arguments, as split by SplitCommand.
	Argv []string
	// Env is the environment the command runs with, before the variables
	// above are added; see Claude.Env.
	Env []string
}

// Name implements Writer.
func (*Command) Name() string { return "command" }

// Write implements Writer.
func (w *Command) Write(ctx context.Context, c *transcript.Condensed) (*Output, error) {
	if len(w.Argv) == 0 {
		return nil, errors.New("writer command is empty: set REFLECT_WRITER_COMMAND or drain.command")
	}
	files, err := os.MkdirTemp("", "reflect-command-")
	if err != nil {
		return nil, fmt.Errorf("create writer files: %w", err)
	}
	defer os.RemoveAll(files)
	full, err := json.Marshal(struct {
		*transcript.Condensed
		Text       string      `json:"text"`
		Candidates []Candidate `json:"candidates,omitempty"`
		Subjects   []Subject   `json:"subjects,omitempty"`
	}{c, c.Text, CandidatesFrom(ctx), subjectsFrom(ctx)})
	if err != nil {
		return nil, fmt.Errorf("encode condensed transcript: %w", err)
	}
	condensed := filepath.Join(files, "condensed.json")
	prompt := filepath.Join(files, "prompt.txt")
	if err := os.WriteFile(condensed, full, 0o600); err != nil {
		return nil, fmt.Errorf("write condensed transcript: %w", err)
	}
	if err := os.WriteFile(prompt, []byte(promptFor(ctx, c)), 0o600); err != nil {
		return nil, fmt.Errorf("write writer prompt: %w", err)
	}
	dir := files
	if c.Cwd != "" {
		if st, err := os.Stat(c.Cwd); err == nil && st.IsDir() {
			dir = c.Cwd
		}
	}
	stdout, err := writerProc{
		path:    w.Argv[0],
		args:    w.Argv[1:],
		dir:     dir,
		stdin:   strings.NewReader(c.Text),
		env:     []string{"REFLECT_CONDENSED_JSON=" + condensed, "REFLECT_WRITER_PROMPT=" + prompt},
		environ: w.Env,
	}.run(ctx)
	if err != nil {
		return nil, err
	}
	out, err := parseAnswer(ctx, stdout, c.Cwd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(w.Argv[0]), err)
	}
	return out, nil
}

// SplitCommand splits a command line into words the way a POSIX shell
// would, without running one: blanks separate words, single quotes keep
// everything literal, double quotes allow \" \\ \$ \` escapes, a backslash
// outside quotes escapes the next character. There is no expansion of
// variables, globs or command substitution, except a leading "~/" of the
// first word, which is the home directory.
func SplitCommand(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("command %q: unterminated single quote", line)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`\n", line[i+1]) >= 0 {
					i++
					if line[i] == '\n' {
						continue // line continuation
					}
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("command %q: unterminated double quote", line)
			}
			inWord = true
		case ch == '\\':
			if i+1 >= len(line) {
				return nil, fmt.Errorf("command %q: ends with a backslash", line)
			}
			i++
			if line[i] != '\n' {
				cur.WriteByte(line[i])
				inWord = true
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("command is empty")
	}
	// Only an unquoted "~/" is the home directory, as in a shell.
	if rest, ok := strings.CutPrefix(words[0], "~/"); ok && strings.HasPrefix(strings.TrimLeft(line, " \t\r\n"), "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			words[0] = filepath.Join(home, rest)
		}
	}
	return words, nil
}
