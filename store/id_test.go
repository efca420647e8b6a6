package store

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, title, want string
	}{
		{"design title", "OAuth state cookie must be SameSite=Lax", "oauth-state-cookie-must-be-samesite-lax"},
		{"punctuation run", "Hello,   World!!  ", "hello-world"},
		{"mixed separators", "a--b__c..d//e", "a-b-c-d-e"},
		{"leading and trailing punctuation", "--(leading and trailing)--", "leading-and-trailing"},
		{"digits kept", "HTTP 502 from nginx v1.25", "http-502-from-nginx-v1-25"},
		{"tabs and newlines", "line\tone\nline two", "line-one-line-two"},
		{"accented letters are transliterated", "Café crème", "cafe-creme"},
		{"sharp s", "Straße", "strasse"},
		{"decomposed accent", "cafe\u0301 noir", "cafe-noir"},
		{"polish", "Łódź", "lodz"},
		{"kelvin sign lowercases to ascii k", "\u212Aelvin", "kelvin"},
		{"emoji between words", "fix 🚀 deploy", "fix-deploy"},
		{"CJK letters are kept", "日本語のタイトル", "日本語のタイトル"},
		{"CJK and ASCII", "Go言語 の panic", "go言語-の-panic"},
		{"cut at a character boundary", strings.Repeat("日", 25), strings.Repeat("日", 20)},
		{"only punctuation", "!!! ??? ---", "untitled"},
		{"empty", "", "untitled"},
		{"whitespace", "   \t ", "untitled"},
		{"exactly 60", strings.Repeat("a", 60), strings.Repeat("a", 60)},
		{"61 cut to 60", strings.Repeat("a", 61), strings.Repeat("a", 60)},
		{"cut lands on a dash", strings.Repeat("a", 59) + " bcdef", strings.Repeat("a", 59)},
		{"cut after a dash run", strings.Repeat("ab ", 30), strings.TrimRight(strings.Repeat("ab-", 20), "-")},
		{"long title with unicode", strings.Repeat("é", 100) + "x", strings.Repeat("e", 60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Slug(tt.title); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.title, got, tt.want)
			}
		})
	}
}

// Whatever the title, a slug is short, lowercase letters and digits, and
// has no empty segments: it is part of a file name.
func TestSlugShape(t *testing.T) {
	t.Parallel()
	shape := regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{Lm}\p{N}]+(-[\p{Ll}\p{Lo}\p{Lm}\p{N}]+)*$`)
	titles := []string{
		"", "-", "a", "A-", "-A", strings.Repeat("x-", 100), strings.Repeat("ß", 61) + "a",
		"../../etc/passwd", "foo/bar\\baz", "\x00\x01", "a\u00a0b", strings.Repeat("Z9 ", 40),
	}
	for _, title := range titles {
		s := Slug(title)
		if len(s) > 60 || !shape.MatchString(s) {
			t.Errorf("Slug(%q) = %q: want 1..60 bytes of lowercase letters and digits joined by single '-'", title, s)
		}
	}
}

func TestNewID(t *testing.T) {
	t.Parallel()
	const title = "OAuth state cookie must be SameSite=Lax"
	const insight = "A SameSite=Strict state cookie is dropped on the cross-site redirect back from the IdP."

	// Computed independently: python3 -c 'import hashlib; print(hashlib.sha256(b"<title><insight>").hexdigest()[:6])'
	const want = "lrn-oauth-state-cookie-must-be-samesite-lax-139f03"
	if got := NewID(title, insight); got != want {
		t.Fatalf("NewID = %q, want %q", got, want)
	}

	shape := regexp.MustCompile(`^lrn-[\p{Ll}\p{Lo}\p{N}-]+-[0-9a-f]{6}$`)
	tests := []struct{ title, insight string }{
		{title, insight},
		{"Use ripgrep, not grep", ""},
		{"", ""},
		{"日本語", "洞察"},
		{strings.Repeat("long title ", 20), "x"},
	}
	for _, tt := range tests {
		id := NewID(tt.title, tt.insight)
		sum := sha256.Sum256([]byte(tt.title + tt.insight))
		wantID := "lrn-" + Slug(tt.title) + "-" + hex.EncodeToString(sum[:])[:6]
		if id != wantID {
			t.Errorf("NewID(%q, %q) = %q, want %q", tt.title, tt.insight, id, wantID)
		}
		if !shape.MatchString(id) {
			t.Errorf("NewID(%q, %q) = %q: not lrn-<slug>-<6 hex>", tt.title, tt.insight, id)
		}
		if !ValidID(id) {
			t.Errorf("NewID(%q, %q) = %q is not a ValidID", tt.title, tt.insight, id)
		}
		if again := NewID(tt.title, tt.insight); again != id {
			t.Errorf("NewID is not deterministic: %q then %q", id, again)
		}
	}

	if a, b := NewID(title, insight), NewID(title, insight+" "); a == b {
		t.Errorf("a different key insight must change the id, both are %q", a)
	}
	if a, b := NewID("Same Title", "x"), NewID("same title!", "x"); a[:len(a)-6] != b[:len(b)-6] || a == b {
		t.Errorf("titles with the same slug must share the slug and differ in the hash: %q, %q", a, b)
	}
}

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{"lrn-oauth-state-cookie-samesite-1a2b3c", true},
		{"a", true},
		{"A.b_c-d9", true},
		{"v1.2", true},
		{strings.Repeat("a", 128), true},

		{"", false},
		{"../x", false},
		{"..", false},
		{"a/b", false},
		{"a\\b", false},
		{"/abs", false},
		{".hidden", false},
		{"-flag", false},
		{"_x", false},
		{"a..b", false},
		{"a b", false},
		{"x\n", false},
		{"x\x00", false},
		{"café", true},
		{"lrn-日本語のタイトル-1a2b3c", true},
		{"a\u0301", false}, // a combining mark is not a letter
		{"日/x", false},
		{strings.Repeat("日", 43), false}, // 129 bytes
		{strings.Repeat("a", 129), false},
		{strings.Repeat("a", 200), false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}
