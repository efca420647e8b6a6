package recall

import "testing"

func TestPhraseRun(t *testing.T) {
	fields := []string{"Jest \"SyntaxError: Unexpected token 'export'\" from an ESM-only package", "Café crème ne marche pas"}
	for _, tc := range []struct {
		prompt string
		want   int
	}{
		{"SyntaxError: Unexpected end of JSON input", 2},                      // the tool's words, not its message
		{"jest fails: syntaxerror unexpected token export from a package", 5}, // case and punctuation do not count
		{"Jest SyntaxError Unexpected token export from an ESM only package", maxPhraseRun},
		{"cafe creme", 2}, // folded as the index folds
		{"nothing in common", 0},
		{"", 0},
	} {
		if got := phraseRun(tc.prompt, fields); got != tc.want {
			t.Errorf("phraseRun(%q) = %d, want %d", tc.prompt, got, tc.want)
		}
	}
	if got := phraseRun("export from an", nil); got != 0 {
		t.Errorf("no fields: %d, want 0", got)
	}
}
