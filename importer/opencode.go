package importer

// openCodeNative is what OpenCode loads: AGENTS.md from the repository
// root down to the session's directory.
var openCodeNative = native{
	agent: "opencode",
	loads: func(s Session, abs string) bool { return s.agentsMD(abs) },
}
