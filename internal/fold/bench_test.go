package fold

import (
	"strings"
	"testing"
)

var benchText = strings.Repeat("The OAuth state cookie must be SameSite=Lax: Strict drops it on the IdP redirect (callback/cookie.go). ", 20)

func BenchmarkWords(b *testing.B) {
	for b.Loop() {
		Words(benchText)
	}
}

// BenchmarkFieldsLower is what the index did before folding, for scale.
func BenchmarkFieldsLower(b *testing.B) {
	for b.Loop() {
		strings.FieldsFunc(strings.ToLower(benchText), func(r rune) bool {
			return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
		})
	}
}
