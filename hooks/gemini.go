package hooks

import (
	"strings"

	"github.com/reflectkb/reflect/internal/lazyre"
)

// geminiHarness is Gemini CLI: its own event names, a prompt that carries
// the context hooks added, and no channel to the model before a tool runs
// (internal/geminishell reads its failed commands).
var geminiHarness = harness{
	name:   "gemini",
	events: geminiEvents,
	normalize: func(p *Payload) {
		if strings.Contains(p.Prompt, "<hook_context>") {
			p.Prompt = strings.TrimSpace(geminiContext.ReplaceAllString(p.Prompt, " "))
		}
	},
	warnAfterTool: true,
}

// geminiContext matches the block Gemini CLI wraps a hook's
// additionalContext in when it adds it to the prompt. Gemini hands the
// prompt, with SessionStart's block prepended in non-interactive mode, to
// BeforeAgent: searching those words would recall the learnings already
// injected, and a correction would be judged on them. An unclosed block
// runs to the end of the text.
var geminiContext = lazyre.New(`(?s)<hook_context>.*?(</hook_context>|\z)`)

// geminiEvents are Gemini CLI's names for reflect's events: BeforeAgent
// fires after the user submits a prompt, BeforeTool before a tool runs, AfterAgent when the agent loop
// of a turn ends (Claude's Stop), PreCompress before history is
// summarised (agents/gemini.go registers the hooks under them).
var geminiEvents = map[string]string{
	"session-start": "SessionStart",
	"prompt":        "BeforeAgent",
	"pre-tool":      "BeforeTool",
	"post-tool":     "AfterTool",
	"pre-compact":   "PreCompress",
	"stop":          "AfterAgent",
	"session-end":   "SessionEnd",
}
