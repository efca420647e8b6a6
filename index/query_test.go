package index

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	many := make([]string, 100)
	for i := range many {
		many[i] = fmt.Sprintf("word%03d", i)
	}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"lowercased", "Postgres Connection POOL", []string{"postgres", "connection", "pool"}},
		{"stopwords dropped", "how do I fix the cache in the build", []string{"fix", "cache", "build"}},
		{"all stopwords kept", "how to", []string{"how", "to"}},
		{"all stopwords kept, deduplicated", "the THE the of", []string{"the", "of"}},
		{"operators are stopwords", "AND OR NOT", []string{"and", "or", "not"}},
		{"operators among words", "postgres AND pool OR NOT x", []string{"postgres", "pool"}},
		{"deduplicated case-insensitively", "cache Cache CACHE cache", []string{"cache"}},
		{"single letters dropped", "c++ -fPIC x", []string{"fpic"}},
		{"single letter alone kept", "^x", []string{"x"}},
		{"single digits kept", "x 5 y", []string{"5"}},
		{"punctuation separates", `title:foo NEAR(a b) "bar" baz*`, []string{"title", "foo", "near", "bar", "baz"}},
		{"underscores and dots separate", "ERR_SSL_PROTOCOL_ERROR callback/cookie.go", []string{"err", "ssl", "protocol", "error", "callback", "cookie", "go"}},
		{"unicode letters", "Café naïve İstanbul 数据库", []string{"café", "naïve", "istanbul", "数据库"}},
		{"combining marks stay in the word", "e\u0301cole", []string{"e\u0301cole"}},
		{"emoji only", "🔥🚀", nil},
		{"symbols only", `* ( ) " -- ++`, nil},
		{"digits", "E0502 404", []string{"e0502", "404"}},
		{"log timestamps dropped", "2026-02-20T10:41:07.512Z Task timed out [2026-04-09 12:01:13] DEBUG 2025-01-08 10:14:02.118 UTC", []string{"task", "timed", "out", "debug", "utc"}},
		{"access log date dropped", `10.0.1.7 - - [12/Feb/2026:09:41:17 +0000] "GET /api HTTP/1.1" 404`, []string{"get", "api", "http", "1", "404"}},
		{"address dropped, port kept", "connect ECONNREFUSED 172.20.0.2:5432", []string{"connect", "econnrefused", "5432"}},
		{"a variable alone is searched for", "10.0.1.7", []string{"10", "0", "1", "7"}},
		{"a hex id beside words dropped", "commit 3f0a2e1c", []string{"commit"}},
		{"a hex id alone is searched for", "3f0a2e1c", []string{"3f0a2e1c"}},
		{"logfmt and sentence ends", "time=2026-05-02T10:11:52Z msg=refused from 10.0.1.7.", []string{"time", "msg", "refused"}},
		{"special addresses kept", "127.0.0.1 works, 0.0.0.0:8080 and 169.254.169.254 too", []string{"127", "0", "1", "works", "8080", "169", "254", "too"}},
		{"uuids and hex ids dropped", "RequestId: 3f0a2e1c-5d4b-4c1e-9a7f-2b8d6e0c1a33 pod api-6c8d9f7b5-qwx2n commit 3f0a2e1c", []string{"requestid", "pod", "api", "qwx2n", "commit"}},
		{"bare dates, times and versions kept", "layout 2006-01-02 15:04:05 go 1.22.3 sha256 deadbeef", []string{"layout", "2006", "01", "02", "15", "04", "05", "go", "1", "22", "3", "sha256", "deadbeef"}},
		{"capped", strings.Join(many, " "), many[:maxQueryTerms]},
		{"capped after dedupe", strings.Repeat("same ", 100) + strings.Join(many, " "), append([]string{"same"}, many[:maxQueryTerms-1]...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Terms(tc.in)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestQuoteQuery(t *testing.T) {
	many := make([]string, 60)
	for i := range many {
		many[i] = fmt.Sprintf("w%d", i)
	}
	tests := []struct{ in, want string }{
		{"", ""},
		{"!!! ***", ""},
		{"postgres", `"postgres"`},
		{"postgres pool", `"postgres" OR "pool"`},
		{`c++ -fPIC "foo`, `"fpic" OR "foo"`},
		{"AND OR NOT", `"and" OR "or" OR "not"`},
		{"NEAR(a b)", `"near"`},
		{"title:foo", `"title" OR "foo"`},
		{"^x", `"x"`},
		{"*", ""},
		{`say "hello" twice`, `"say" OR "hello" OR "twice"`},
	}
	for _, tc := range tests {
		if got := QuoteQuery(tc.in); got != tc.want {
			t.Errorf("QuoteQuery(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := strings.Count(QuoteQuery(strings.Join(many, " ")), " OR "); got != maxQueryTerms-1 {
		t.Errorf("60 words gave %d ORs, want %d", got, maxQueryTerms-1)
	}
	// quoteAll doubles quotes inside a term, as FTS5 strings require.
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{`a"b`}, `"a""b"`},
		{[]string{`"`, `x`}, `"""" OR "x"`},
		{[]string{`""`}, `""""""`},
		{nil, ""},
	} {
		if got := quoteAll(tc.in); got != tc.want {
			t.Errorf("quoteAll(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestIdentifiers(t *testing.T) {
	var many []string
	for i := 0; i < 60; i++ {
		many = append(many, fmt.Sprintf("id_%d", i))
	}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"flag", "recompile with -fPIC please", []string{"-fPIC"}},
		{"error code", "Chrome shows ERR_SSL_PROTOCOL_ERROR here", []string{"ERR_SSL_PROTOCOL_ERROR"}},
		{"path", "see callback/cookie.go.", []string{"callback/cookie.go"}},
		{"path in parens with colon", "(internal/auth/callback.go:42),", []string{"internal/auth/callback.go:42"}},
		{"quoted", "`context.WithTimeout` and \"sync.Mutex\"", []string{"context.WithTimeout", "sync.Mutex"}},
		{"key=value", "SameSite=Lax", []string{"SameSite=Lax"}},
		{"CamelCase", "useEffect fires twice", []string{"useEffect"}},
		{"digits", "E0502 sha256 x509 utf8", []string{"E0502", "sha256", "x509", "utf8"}},
		{"plain words are not identifiers", "the cache broke after the upgrade", nil},
		{"capitalised word is not", "Postgres", nil},
		{"too short", "ab -f E1", nil},
		{"numbers only", "404 1.2.3 --", nil},
		{"deduplicated case-insensitively", "Foo_Bar foo_bar FOO_BAR", []string{"Foo_Bar"}},
		{"other punctuation rejects", "don't a$b c!d%e", nil},
		{"too long", strings.Repeat("a_", 70), nil},
		{"capped", strings.Join(many, " "), many[:maxQueryTerms]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Identifiers(tc.in)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Identifiers(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
