package hooks

import (
	"testing"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/recall"
)

// Gemini CLI hands BeforeAgent the prompt with SessionStart's context
// prepended in a <hook_context> block (as captured from Gemini CLI 0.61,
// where < and > inside it are escaped). The recall query and the
// correction judgement must see what the user typed, and only for Gemini:
// another agent's prompt is the user's own text.
func TestNormalizeGeminiPrompt(t *testing.T) {
	t.Parallel()
	const typed = "no, use ls /var/cache/widget instead"
	withContext := "<hook_context>&lt;reflect-learnings&gt;\n- [high] Widget cache lives in /var/cache/widget (lrn-x)\n&lt;/reflect-learnings&gt;</hook_context>\n\n" + typed
	for _, tc := range []struct{ agent, in, want string }{
		{"gemini", withContext, typed},
		{"gemini", typed + "\n\n<hook_context>unclosed", typed},
		{"gemini", typed, typed},
		{"claude", withContext, withContext},
	} {
		p := Payload{Prompt: tc.in}
		p.normalize(tc.agent)
		if p.Prompt != tc.want {
			t.Errorf("%s: normalize(%q) = %q, want %q", tc.agent, tc.in, p.Prompt, tc.want)
		}
	}
}

// The prompt hook's recall runs at the gate level the configuration sets
// (recall.gate), as `reflect recall` and the MCP recall tool do.
func TestRequestCarriesTheGate(t *testing.T) {
	for level, want := range map[string]recall.Gate{"strict": recall.GateStrict, "eager": recall.GateEager} {
		r := &invocation{Options: Options{Config: &config.Config{Recall: config.Recall{Gate: level}}}, payload: &Payload{Prompt: "p"}}
		if got := r.request(recall.Prompt).Gate; got != want {
			t.Errorf("recall.gate %s: the request's gate is %q, want %q", level, got, want)
		}
	}
}
