// Package recall decides which learnings are worth putting in front of an
// agent, and how. It owns query building (the prompt — a pasted stack
// trace reduced to its error lines and the user's words — or at session
// start the project, branch and recent commits of the working directory), the
// session-start briefing of the project's own learnings (briefing.go), the
// relevance floor, the size budgets, the per-session dedupe set under
// $REFLECT_STATE_DIR/session-injected/, and the rendering of the
// <reflect-learnings> block. The agent hooks and `reflect recall` share it.
//
// Recall runs inside agent hooks, so it must never call the network, never
// load a model, never wait on the drainer and never print anything itself:
// it returns text and lets its caller decide where that goes. When nothing
// clears the floor it returns nothing, because silence beats noise.
package recall
