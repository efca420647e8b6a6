package redact

import "testing"

func TestScratchDebug(t *testing.T) {
	for _, in := range []string{
		"oauth_token: gho_0FAKEgithubOAUTHtoken0123456789abcde[private]tail",
		"oauth_token: gho_0FAKEgithubOAUTHtoken0123456789abcde<private>x</private>tail",
		"oauth_token: abc[private]tail",
	} {
		t.Logf("%q -> %q", in, String(in))
	}
}
