package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/geminishell"
	"github.com/reflectkb/reflect/internal/lazyre"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/text"
)

// Bounds on what a Failure keeps. An armed file and the mini-learning made
// from it are read by people and injected into prompts: a sentence of error
// and a screenful of context are what help, a megabyte of build log is not.
const (
	maxCommandChars   = 500
	maxErrorHeadChars = 300
	maxContextLines   = 20
	maxContextBytes   = 2048
	// scanWindow is how much of each end of a huge output is looked at. The
	// head comes from the start and the context from the end, so the middle
	// of a long log never matters, and redacting it would only cost time.
	scanWindow = 64 << 10
)

// WatchTTL is how long a watcher waits for a correction. A correction comes
// right after the failure; ten minutes later the user is talking about
// something else.
const WatchTTL = 10 * time.Minute

// Failure is a failed shell command the next prompt may correct. It is what
// an armed file holds. Every text field is redacted before it is stored.
type Failure struct {
	Agent     string `json:"agent,omitempty"` // claude | codex | gemini
	SessionID string `json:"session_id,omitempty"`
	Tool      string `json:"tool"`
	Command   string `json:"command"`
	ExitCode  int    `json:"exit_code"`
	// ErrorHead is the error's first meaningful line, e.g. "curl: (60) SSL
	// certificate problem: self-signed certificate".
	ErrorHead string `json:"error_head,omitempty"`
	// ErrorContext is the tail of the output (at most 20 lines, 2 kB),
	// where build and test tools print their summary.
	ErrorContext string    `json:"error_context,omitempty"`
	Cwd          string    `json:"cwd,omitempty"`
	ArmedAt      time.Time `json:"armed_at"`
}

// toolPayload is the part of a PostToolUse / PostToolUseFailure payload that
// failure detection reads. Fields whose shape differs between agents and
// versions stay raw and are decoded tolerantly.
type toolPayload struct {
	SessionID    string          `json:"session_id"`
	Cwd          string          `json:"cwd"`
	Event        string          `json:"hook_event_name"`
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	// ToolResult is Copilot CLI's: {result_type, text_result_for_llm}.
	ToolResult  json.RawMessage `json:"tool_result"`
	Error       json.RawMessage `json:"error"`
	IsInterrupt bool            `json:"is_interrupt"`
}

// shellTools are the tool names under which the agents run shell commands:
// Claude's Bash, the names Codex has used across versions, and Gemini
// CLI's run_shell_command.
var shellTools = map[string]bool{
	"bash": true, "shell": true, "exec_command": true, "local_shell": true,
	"shell_command": true, "container.exec": true, "unified_exec": true,
	"run_shell_command": true,
}

// FailedBash reports whether a post-tool payload is a shell command that
// exited non-zero, and describes it. Claude reports those as
// PostToolUseFailure with "Exit code N" on the first line of error; Codex as
// PostToolUse whose tool_response is the text "Exit code: N …Output:…" or,
// in some versions, an object with exit_code and output. Codex 0.169 sends
// the output text alone; CodexRolloutFailure reads the exit code from the
// rollout for that case. Gemini CLI reports a non-zero exit as AfterTool
// whose tool_response.llmContent ends with "Exit Code: N" (see
// internal/geminishell). A successful call,
// an interrupted one (the user pressed Esc: nothing to learn), or a failure
// without an exit code (a denied permission, a timeout) is not a Failure.
//
// Text is redacted here, before it is cut to size: a cut can split a token
// so that it no longer looks like one.
func FailedBash(agent string, payload []byte) (Failure, bool) {
	var p toolPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return Failure{}, false
	}
	if !shellTools[strings.ToLower(p.ToolName)] || p.IsInterrupt {
		return Failure{}, false
	}
	var (
		code   int
		output string
		ok     bool
	)
	if errText := jsonString(p.Error); errText != "" {
		// Claude reports failures only on PostToolUseFailure; the error
		// field of anything else is not an exit status.
		if p.Event != "" && p.Event != "PostToolUseFailure" {
			return Failure{}, false
		}
		code, output, ok = parseExitText(errText)
	} else if len(p.ToolResponse) == 0 && len(p.ToolResult) > 0 {
		code, output, ok = parseCopilotResult(p.ToolResult)
	} else {
		code, output, ok = parseResponse(p.ToolResponse)
	}
	if !ok || code == 0 {
		return Failure{}, false
	}
	head, context := summarizeOutput(output)
	return Failure{
		Agent:        agent,
		SessionID:    cleanSessionID(p.SessionID),
		Tool:         p.ToolName,
		Command:      text.ClipRunes(redact.String(commandOf(p.ToolInput)), maxCommandChars),
		ExitCode:     code,
		ErrorHead:    head,
		ErrorContext: context,
		Cwd:          redact.String(p.Cwd),
	}, true
}

// copilotExit is the line Copilot CLI (1.0.102) ends a shell result
// with: "<shellId: 0 completed with exit code 2>" (only as the last line:
// a command may print the like itself). It reports a failed
// command as result_type "success" (the tool ran), so this line is the
// only exit status in the payload.
var copilotExit = lazyre.New(`(?:\A|\n)<shellId: [^>]*completed with exit code (-?\d+)>\s*\z`)

// parseCopilotResult reads Copilot's tool_result.
func parseCopilotResult(raw json.RawMessage) (code int, output string, ok bool) {
	var r struct {
		Text string `json:"text_result_for_llm"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return 0, "", false
	}
	loc := copilotExit.FindStringSubmatchIndex(r.Text)
	if loc == nil {
		return 0, "", false
	}
	code, err := strconv.Atoi(r.Text[loc[2]:loc[3]])
	if err != nil {
		return 0, "", false
	}
	return code, r.Text[:loc[0]], true
}

// exitLine matches "Exit code 60" (Claude) and "Exit code: 1" (Codex).
var exitLine = lazyre.New(`^\s*(?:Exit code|Exited with code|exit status):?\s*(-?\d+)\b`)

// parseExitText reads an exit status text: a first line naming the exit
// code, then the output. Codex puts header lines (Wall time, Total output
// lines) and an "Output:" line before the output itself.
func parseExitText(s string) (code int, output string, ok bool) {
	first, rest, _ := strings.Cut(s, "\n")
	m := exitLine.FindStringSubmatch(first)
	if m == nil {
		return 0, "", false
	}
	code, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, "", false
	}
	if i := strings.Index(rest, "Output:\n"); i >= 0 && (i == 0 || rest[i-1] == '\n') {
		return code, rest[i+len("Output:\n"):], true
	}
	if strings.HasPrefix(rest, "Output:") {
		return code, strings.TrimPrefix(rest, "Output:"), true
	}
	// No Output: section: drop the header lines that are there.
	lines := strings.Split(rest, "\n")
	for len(lines) > 0 && codexHeader.MatchString(lines[0]) {
		lines = lines[1:]
	}
	return code, strings.Join(lines, "\n"), true
}

var codexHeader = lazyre.New(`^(?:Wall time|Total output lines|Chunk ID|Original token count|Process exited)\b`)

// parseResponse reads a tool_response: a status text, an object with an
// exit code and output, or that object encoded as a string.
func parseResponse(raw json.RawMessage) (code int, output string, ok bool) {
	if len(raw) == 0 {
		return 0, "", false
	}
	if s, isString := decodeString(raw); isString {
		if strings.HasPrefix(strings.TrimSpace(s), "{") {
			return parseResponse(json.RawMessage(s))
		}
		return parseExitText(s)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return 0, "", false
	}
	if content, gemini := obj["llmContent"]; gemini {
		r, ok := geminishell.Parse(jsonString(content))
		if !ok {
			return 0, "", false
		}
		if r.ExitCode == 0 && r.Signal != "" {
			// Killed by a signal: the shell's convention, 128+n, is
			// unknown here; -1 still marks it failed.
			return -1, r.Output, true
		}
		return r.ExitCode, r.Output, true
	}
	code, ok = exitCodeOf(obj)
	var parts []string
	for _, k := range []string{"output", "aggregated_output", "formatted_output", "stderr", "stdout"} {
		if s := jsonString(obj[k]); s != "" {
			parts = append(parts, s)
			if k != "stderr" {
				// output and aggregated_output already hold both
				// streams; stderr alone is the informative one.
				break
			}
		}
	}
	output = strings.Join(parts, "\n")
	if !ok {
		// Some versions wrap the status text in an output field. Only
		// there: a command that prints "Exit code 1" did not fail.
		return parseExitText(jsonString(obj["output"]))
	}
	if c, text, isText := parseExitText(output); isText && c == code {
		output = text
	}
	return code, output, true
}

// exitCodeOf finds the exit code of a response object, at the top level or
// under metadata, spelled the ways Codex versions have spelled it.
func exitCodeOf(obj map[string]json.RawMessage) (int, bool) {
	for _, k := range []string{"exit_code", "exitCode", "code", "status"} {
		var n int
		if raw, ok := obj[k]; ok && json.Unmarshal(raw, &n) == nil {
			return n, true
		}
	}
	var meta map[string]json.RawMessage
	if raw, ok := obj["metadata"]; ok && json.Unmarshal(raw, &meta) == nil {
		return exitCodeOf(meta)
	}
	return 0, false
}

// commandOf returns the command of a tool_input: a string under command or
// cmd, or an argv (["bash", "-lc", "go test ./..."] gives the script).
func commandOf(raw json.RawMessage) string {
	var in map[string]json.RawMessage
	if json.Unmarshal(raw, &in) != nil {
		return ""
	}
	for _, k := range []string{"command", "cmd"} {
		v, ok := in[k]
		if !ok {
			continue
		}
		if s, isString := decodeString(v); isString {
			return s
		}
		var argv []string
		if json.Unmarshal(v, &argv) == nil && len(argv) > 0 {
			if len(argv) == 3 && isShell(argv[0]) && strings.HasPrefix(argv[1], "-") && strings.HasSuffix(argv[1], "c") {
				return argv[2]
			}
			return strings.Join(argv, " ")
		}
	}
	return ""
}

func isShell(s string) bool {
	switch filepath.Base(s) {
	case "bash", "sh", "zsh", "dash":
		return true
	}
	return false
}

// decodeString decodes raw as a JSON string.
func decodeString(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonString is decodeString for fields that are either a string or
// irrelevant.
func jsonString(raw json.RawMessage) string {
	s, _ := decodeString(raw)
	return s
}

// errorish marks a line that states an error, so the head is "--- FAIL:
// TestX" and not the progress line printed before it.
var errorish = lazyre.New(`(?i)\b(?:error|err!|fail(?:ed|ure|s)?|fatal|panic|exception|denied|not found|no such|cannot|can't|unable|invalid|unknown|refused|timed out|problem)\b`)

// summarizeOutput returns the error head (the first line that reads as an
// error, else the first non-blank line) and the context (the last lines).
// Both are redacted; see FailedBash.
func summarizeOutput(output string) (head, context string) {
	output = strings.ReplaceAll(output, "\r\n", "\n")
	start, end := output, output
	if len(output) > 2*scanWindow {
		start = output[:cutLineEnd(output, scanWindow)]
		end = output[cutLineStart(output, len(output)-scanWindow):]
	}
	start = redact.String(start)
	if len(end) == len(output) {
		end = start
	} else {
		end = redact.String(end)
	}

	first := ""
	for i, line := range strings.Split(start, "\n") {
		line = strings.TrimSpace(line)
		if !meaningful(line) {
			continue
		}
		if first == "" {
			first = line
		}
		if errorish.MatchString(line) && !strings.HasPrefix(line, "Traceback") {
			head = line
			break
		}
		if i > 200 {
			break
		}
	}
	if head == "" {
		head = first
	}
	head = text.ClipRunes(head, maxErrorHeadChars)

	lines := strings.Split(strings.TrimRight(end, "\n \t"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) > maxContextLines {
		lines = lines[len(lines)-maxContextLines:]
	}
	context = strings.Join(lines, "\n")
	if len(context) > maxContextBytes {
		cut := len(context) - maxContextBytes
		for cut < len(context) && !utf8.RuneStart(context[cut]) {
			cut++
		}
		context = "…" + context[cut:]
	}
	return head, context
}

// meaningful is false for blank lines and separators ("-----", "===").
func meaningful(line string) bool {
	for _, r := range line {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > utf8.RuneSelf {
			return true
		}
	}
	return false
}

// cutLineEnd returns the end of the last whole line within s[:n].
func cutLineEnd(s string, n int) int {
	if i := strings.LastIndexByte(s[:n], '\n'); i > 0 {
		return i
	}
	return n
}

// cutLineStart returns the start of the first whole line within s[i:].
func cutLineStart(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return i
}

// errNoSession refuses to arm a watcher without a session id: every such
// payload would share one file and one session's failure could be
// "corrected" by another's prompt.
var errNoSession = errors.New("arm watcher: payload has no session id")

// maxArmedFile bounds what Armed reads: Arm writes a few kilobytes.
const maxArmedFile = 1 << 20

func armedPath(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "armed", fsutil.SafeName(sessionID)+".json")
}

// Arm records f as the failure the session's next prompt may correct,
// replacing any earlier one (a correction answers the latest failure). The
// file is $REFLECT_STATE_DIR/armed/<sid>.json, written atomically, 0600;
// every text field passes through redact.String first. Watchers of other
// sessions that were left behind for a day are removed on the way.
func Arm(stateDir, sessionID string, f Failure, now time.Time) error {
	if strings.TrimSpace(sessionID) == "" {
		return errNoSession
	}
	f.SessionID = sessionID
	f.ArmedAt = now.UTC()
	f.Agent = redact.String(f.Agent)
	f.Tool = redact.String(f.Tool)
	f.Command = redact.String(f.Command)
	f.ErrorHead = redact.String(f.ErrorHead)
	f.ErrorContext = redact.String(f.ErrorContext)
	f.Cwd = redact.String(f.Cwd)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("arm watcher: %w", err)
	}
	path := armedPath(stateDir, sessionID)
	if err := fsutil.EnsureStateSubdir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("arm watcher: %w", err)
	}
	if err := fsutil.WriteAtomicNoSync(path, append(data, '\n'), fsutil.FilePerm); err != nil {
		return err
	}
	sweepArmed(filepath.Dir(path), filepath.Base(path))
	return nil
}

// staleArmed is the age (by the wall clock, not the injected now) after
// which a watcher nobody read is removed by sweepArmed. A session that ends
// right after a failure never reads its watcher again.
const staleArmed = 24 * time.Hour

// sweepArmed removes abandoned watchers. It is best effort: a file it cannot
// remove is tried again on the next Arm.
func sweepArmed(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-staleArmed)
	for _, e := range entries {
		if e.Name() == keep || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// Armed returns the session's watcher if one was armed less than WatchTTL
// before now. An expired or unreadable watcher is deleted. A watcher whose
// recorded session differs from sessionID (two ids that sanitise to the
// same file name) is not returned.
func Armed(stateDir, sessionID string, now time.Time) (Failure, bool) {
	if strings.TrimSpace(sessionID) == "" {
		return Failure{}, false
	}
	path := armedPath(stateDir, sessionID)
	// A FIFO planted here would hang every prompt of the session.
	data, err := fsutil.ReadRegular(path, maxArmedFile)
	if err != nil {
		if errors.Is(err, fsutil.ErrNotRegular) || errors.Is(err, fsutil.ErrTooLarge) {
			_ = os.Remove(path)
		}
		return Failure{}, false
	}
	var f Failure
	if err := json.Unmarshal(data, &f); err != nil {
		_ = os.Remove(path)
		return Failure{}, false
	}
	if f.SessionID != sessionID {
		return Failure{}, false
	}
	// A watcher from the future (the clock was set back) counts as expired
	// too, or it would never expire.
	if age := now.Sub(f.ArmedAt); age > WatchTTL || age < -WatchTTL {
		_ = os.Remove(path)
		return Failure{}, false
	}
	return f, true
}

// Disarm removes the session's watcher. No watcher is not an error.
func Disarm(stateDir, sessionID string) error {
	if strings.TrimSpace(sessionID) == "" {
		return nil
	}
	err := os.Remove(armedPath(stateDir, sessionID))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("disarm watcher: %w", err)
	}
	return nil
}
