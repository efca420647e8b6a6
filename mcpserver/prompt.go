package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reflectPrompt asks the agent to record what it learned, through the
// remember tool, at the end of a piece of work: what the drainer does for
// the agents it has hooks in (Claude Code, Codex, Gemini CLI, OpenCode,
// Copilot CLI) from their transcripts, for agents reflect has no hooks in.
const reflectPrompt = `Look back over this session and record what is worth knowing next time, using the reflect "remember" tool once per learning.

Worth recording: a failure and what fixed it (the error message, the command, the file); a cause that took effort to find; a gotcha of this codebase, tool or library; a correction or preference the user stated.
Not worth recording: what any documentation says plainly, what was tried and did not matter, anything secret (tokens, passwords, keys), one-off details of this task.

For each learning:
- title: the learning in one line, specific ("pytest -x hides the fixture error: run with --setup-show"), not a topic ("pytest");
- key_insight: what to do or avoid next time, in one or two sentences;
- body: markdown with Problem, Solution and Context, quoting commands, paths and error messages verbatim;
- tags: a few lowercase keywords; confidence: high when verified, medium otherwise, low for a hunch;
- scope: project when it is true of this codebase, global when it is true anywhere.

Before adding, call "search" with the title's key words: if a learning already says it, skip it, or call "remember" with the same title and key_insight to update it. If nothing in this session is worth recording, say so and record nothing.`

func (s *Server) addPrompt() {
	s.sdk.AddPrompt(&mcp.Prompt{
		Name:        "reflect-reflect",
		Title:       "Record what you learned",
		Description: "Asks the agent to record this session's learnings (fixes, gotchas, user corrections) in reflect through the remember tool.",
	}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{
			Description: "Record this session's learnings in reflect",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: reflectPrompt}}},
		}, nil
	})
}
