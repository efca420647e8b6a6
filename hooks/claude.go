package hooks

// claudeHarness is Claude Code, the agent whose payloads and answers the
// others' are read and written against: it differs in nothing.
var claudeHarness = harness{name: "claude"}
