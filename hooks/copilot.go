package hooks

// copilotHarness is Copilot CLI. It sends Claude Code's payload fields
// when its hooks are registered under the PascalCase event names (its
// "VS Code compatible" format), reads its context answer flat, and may
// fire Stop before it has created the session's events.jsonl.
var copilotHarness = harness{
	name:            "copilot",
	context:         func(text string) any { return flatContextOutput{AdditionalContext: text} },
	awaitTranscript: true,
}

// flatContextOutput is Copilot CLI's answer: it reads additionalContext at
// the top level (1.0.102 ignores hookSpecificOutput) and appends it to
// the prompt in a <system_reminder>.
type flatContextOutput struct {
	AdditionalContext string `json:"additionalContext"`
}
