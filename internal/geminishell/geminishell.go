// Package geminishell reads the result Gemini CLI's run_shell_command tool
// hands the model (its llmContent), which is where the command's exit code
// lives: Gemini reports a command that exited non-zero as a successful tool
// call, and both its AfterTool hook payload and its chat file carry only
// this text.
//
// The text, as Gemini CLI 0.61 builds it, is the output and then trailer
// lines, each present only when it applies, the whole wrapped in
// <untrusted_context> tags:
//
//	Output: <the command's output, maybe many lines, or "(empty)">
//	Error: <a spawn error>
//	Exit Code: <n, only when not 0>
//	Signal: <signal>
//	Background PIDs: <pids>
//	Process Group PGID: <pid>
package geminishell

import (
	"strconv"
	"strings"
)

// Result is a parsed run_shell_command result.
type Result struct {
	// Output is what the command printed ("" for Gemini's "(empty)"),
	// followed by the Error line's text when there is one.
	Output string
	// ExitCode is the exit status; 0 when Gemini printed none.
	ExitCode int
	// Signal is the signal that ended the command, if any.
	Signal string
}

// Failed reports whether the command exited non-zero or was killed.
func (r Result) Failed() bool { return r.ExitCode != 0 || r.Signal != "" }

const (
	openTag  = "<untrusted_context>"
	closeTag = "</untrusted_context>"
)

// trailers are the lines Gemini appends after the output, by prefix.
var trailers = []string{"Error: ", "Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: "}

// Parse reads a run_shell_command result. ok is false for text in another
// shape: a cancelled or backgrounded command, or another tool's result.
func Parse(s string) (r Result, ok bool) {
	s = strings.TrimSpace(s)
	if rest, found := strings.CutPrefix(s, openTag); found {
		s = strings.TrimSpace(strings.TrimSuffix(rest, closeTag))
	}
	body, found := strings.CutPrefix(s, "Output: ")
	if !found {
		if s != "Output:" && !strings.HasPrefix(s, "Output:\n") {
			return Result{}, false
		}
		body = strings.TrimPrefix(s, "Output:")
	}
	lines := strings.Split(body, "\n")
	// The trailer is read from the end, so an output line that happens to
	// start with "Exit Code: " is never taken for the status.
	var errText string
	end := len(lines)
	for end > 1 {
		line := lines[end-1]
		prefix := trailerOf(line)
		if prefix == "" {
			break
		}
		value := strings.TrimSpace(strings.TrimPrefix(line, prefix))
		switch prefix {
		case "Exit Code: ":
			n, err := strconv.Atoi(value)
			if err != nil {
				return Result{}, false
			}
			r.ExitCode = n
		case "Signal: ":
			if value != "(none)" {
				r.Signal = value
			}
		case "Error: ":
			errText = value
		}
		end--
	}
	out := strings.TrimSpace(strings.Join(lines[:end], "\n"))
	if out == "(empty)" {
		out = ""
	}
	if errText != "" {
		out = strings.TrimSpace(out + "\n" + errText)
	}
	r.Output = out
	return r, true
}

func trailerOf(line string) string {
	for _, p := range trailers {
		if strings.HasPrefix(line, p) {
			return p
		}
	}
	return ""
}
