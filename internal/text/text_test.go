package text

import (
	"testing"
	"unicode/utf8"
)

// Each case pins the output the helper's callers produced before they
// shared this package, boundaries and odd inputs included.
func TestClippers(t *testing.T) {
	t.Parallel()
	long := "the quick brown fox jumps over the lazy dog"
	tests := []struct {
		name string
		fn   func(string, int) string
		s    string
		n    int
		want string
	}{
		{"OneLine", func(s string, _ int) string { return OneLine(s) }, "  a\n\tb  c\r\n", 0, "a b c"},
		{"OneLine empty", func(s string, _ int) string { return OneLine(s) }, " \n ", 0, ""},

		{"ClipRunes fits", ClipRunes, "héllo", 5, "héllo"},
		{"ClipRunes cuts", ClipRunes, "héllo wörld", 7, "héllo…"},
		{"ClipRunes keeps leading space", ClipRunes, "  ab cd ef", 6, "  ab…"},
		{"ClipRunes keeps a tab", ClipRunes, "ab\tcdef", 4, "ab\t…"},

		{"ClipRunesTrim cuts", ClipRunesTrim, "héllo wörld", 7, "héllo…"},
		{"ClipRunesTrim trims both ends", ClipRunesTrim, "  ab cd ef", 6, "ab…"},
		{"ClipRunesTrim trims a tab", ClipRunesTrim, "ab\tcdef", 4, "ab…"},

		{"CutRunes fits", CutRunes, "日本語", 3, "日本語"},
		{"CutRunes cuts", CutRunes, "日本語テキスト", 3, "日本語"},
		{"CutRunes trims", CutRunes, " ab cd", 4, "ab"},

		{"ClipBytes fits", ClipBytes, "abc", 3, "abc"},
		{"ClipBytes marks", ClipBytes, "abcdefgh", 6, "abc…"},
		{"ClipBytes rune boundary", ClipBytes, "a€€b", 6, "a…"},
		{"ClipBytes smaller than the mark", ClipBytes, "abcdef", 2, "ab"},

		{"ClipWords fits", ClipWords, "a b", 3, "a b"},
		{"ClipWords last boundary", ClipWords, long, 12, "the quick…"},
		{"ClipWords early boundary", ClipWords, "a bcdefghijklmnop", 10, "a…"},
		{"ClipWords no boundary", ClipWords, "abcdefghij", 5, "abcd…"},
		{"ClipWords trims punctuation", ClipWords, "one, two-three", 6, "one…"},

		{"ClipWordsHalf boundary in the second half", ClipWordsHalf, long, 12, "the quick…"},
		{"ClipWordsHalf boundary too early", ClipWordsHalf, "a bcdefghijklmnop", 10, "a bcdefgh…"},
		{"ClipWordsHalf cut on a space", ClipWordsHalf, "abcd efgh", 5, "abcd…"},
		{"ClipWordsHalf trims dashes", ClipWordsHalf, "abcdef — x", 9, "abcdef…"},

		{"ClipWordsNear boundary", ClipWordsNear, long, 12, "the quick…"},
		{"ClipWordsNear boundary too far back", ClipWordsNear, "ab " + "cdefghijklmnopqrstuvwxyz0123", 25, "ab cdefghijklmnopqrstuvw…"},
		{"ClipWordsNear n <= 1", ClipWordsNear, "abc", 1, ""},
		{"ClipWordsNear trims punctuation", ClipWordsNear, "one; two three", 8, "one…"},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.s, tt.n); got != tt.want {
			t.Errorf("%s: (%q, %d) = %q, want %q", tt.name, tt.s, tt.n, got, tt.want)
		}
	}
}

func TestPrefixBytes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 2, "ab"},
		{"a€", 2, "a"},
		{"€€", 4, "€"},
		{"€", 0, ""},
	} {
		if got := PrefixBytes(tt.s, tt.n); got != tt.want {
			t.Errorf("PrefixBytes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// FuzzClip: the rune and byte clippers keep to their bound and to UTF-8.
func FuzzClip(f *testing.F) {
	f.Add("the quick brown fox", 7)
	f.Add("日本語 テキスト", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if !utf8.ValidString(s) || n < 2 || n > 1000 {
			return
		}
		for name, fn := range map[string]func(string, int) string{
			"ClipRunes": ClipRunes, "ClipRunesTrim": ClipRunesTrim, "CutRunes": CutRunes,
			"ClipWords": ClipWords, "ClipWordsHalf": ClipWordsHalf, "ClipWordsNear": ClipWordsNear,
		} {
			if got := fn(s, n); utf8.RuneCountInString(got) > n || !utf8.ValidString(got) {
				t.Fatalf("%s(%q, %d) = %q: over the bound or not UTF-8", name, s, n, got)
			}
		}
		if got := ClipBytes(s, n); len(got) > n || !utf8.ValidString(got) {
			t.Fatalf("ClipBytes(%q, %d) = %q: over the bound or not UTF-8", s, n, got)
		}
	})
}

func TestOrList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a or b"},
		{[]string{"a", "b", "c"}, "a, b or c"},
	} {
		if got := OrList(tc.in); got != tc.want {
			t.Errorf("OrList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
