package index

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// parseQuoted checks that q is a sequence of FTS5 strings ("..." with ""
// for a quote inside) joined by " OR ", and returns the unquoted terms.
func parseQuoted(q string) ([]string, bool) {
	if q == "" {
		return nil, true
	}
	var terms []string
	for i := 0; ; {
		if i >= len(q) || q[i] != '"' {
			return nil, false
		}
		i++
		var b strings.Builder
		for {
			if i >= len(q) {
				return nil, false // unterminated
			}
			if q[i] == '"' {
				if i+1 < len(q) && q[i+1] == '"' {
					b.WriteByte('"')
					i += 2
					continue
				}
				i++
				break
			}
			b.WriteByte(q[i])
			i++
		}
		terms = append(terms, b.String())
		if i == len(q) {
			return terms, true
		}
		if !strings.HasPrefix(q[i:], " OR ") {
			return nil, false
		}
		i += len(" OR ")
	}
}

// FuzzQuoteQuery proves that every user text becomes a valid FTS5 query:
// QuoteQuery only ever produces quoted terms joined by OR, FTS5 accepts it,
// and Search over a real index never errors or panics.
func FuzzQuoteQuery(f *testing.F) {
	for _, s := range adversarialQueries {
		if len(s) <= 2000 {
			f.Add(s)
		}
	}
	for _, s := range []string{"postgres connection pool", "-fPIC", "ERR_SSL_PROTOCOL_ERROR", "callback/cookie.go", "how to", ""} {
		f.Add(s)
	}
	k := newKB(f)
	for _, d := range searchCorpus() {
		k.write(f, d)
	}
	ix := k.open(f)
	ctx := context.Background()

	f.Fuzz(func(t *testing.T, text string) {
		q := QuoteQuery(text)
		terms, ok := parseQuoted(q)
		if !ok {
			t.Fatalf("QuoteQuery(%q) = %q: not quoted terms joined by OR", text, q)
		}
		want := Terms(text)
		if len(terms) != len(want) {
			t.Fatalf("QuoteQuery(%q) = %q has %d terms, Terms has %d", text, q, len(terms), len(want))
		}
		for i := range terms {
			if terms[i] != want[i] || terms[i] == "" {
				t.Fatalf("QuoteQuery(%q) term %d = %q, want %q", text, i, terms[i], want[i])
			}
		}
		if len(terms) > maxQueryTerms {
			t.Fatalf("%d terms, more than %d", len(terms), maxQueryTerms)
		}
		if q != "" {
			if err := ftsMatch(ctx, ix, q); err != nil {
				t.Fatalf("QuoteQuery(%q) = %q is not valid FTS5: %v", text, q, err)
			}
		}
		var res []Result
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err = searchNoPanic(ix, Query{Text: text, Limit: 5, Project: text})
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("Search(%q) did not return within 20 s", text)
		}
		if err != nil {
			t.Fatalf("Search(%q): %v", text, err)
		}
		if len(res) > 5 {
			t.Fatalf("Search(%q): %d results over the limit", text, len(res))
		}
		if len(Terms(text)) == 0 && len(Identifiers(text)) == 0 && len(res) != 0 {
			t.Fatalf("Search(%q): results without searchable words", text)
		}
		for _, r := range res {
			if !utf8.ValidString(r.Snippet) {
				t.Fatalf("Search(%q): snippet of %s is not UTF-8: %q", text, r.ID, r.Snippet)
			}
		}
	})
}
