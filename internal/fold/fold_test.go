package fold

import (
	"reflect"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Café crème":      "cafe creme",
		"Straße":          "strasse",
		"Łódź":            "lodz",
		"ÆSIR Œuvre":      "aesir oeuvre",
		"cafe\u0301":      "cafe", // decomposed é
		"Ångström":        "angstrom",
		"plain ASCII 123": "plain ascii 123",
		"日本語":             "日本語",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Café au lait", []string{"cafe", "au", "lait"}},
		{"cafe\u0301 noir", []string{"cafe", "noir"}},
		{"日本語のタイトル", []string{"日本", "本語", "語の", "のタ", "タイ", "イト", "トル"}},
		{"Go言語 v2", []string{"go", "言語", "v2"}},
		{"猫", []string{"猫"}},
		{"한국어 검색", []string{"한국", "국어", "검색"}},
		{"", nil},
	} {
		if got := Words(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
