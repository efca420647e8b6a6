package index

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// searchCorpus is a small KB built so that each ranking rule decides one
// comparison. Documents that must lose a comparison get the smaller id:
// documents are indexed in id order and equal scores keep index order, so
// the winner cannot be winning by a tie-break.
func searchCorpus() []doc {
	kafka := func(id, scope, project string) doc {
		return doc{ID: id, Title: "Kafka consumer rebalance storm", Scope: scope, Project: project,
			Body: "## Problem\nConsumers kept rebalancing every few seconds.\n\n## Solution\nRaise max.poll.interval.ms.\n"}
	}
	redis := func(id, confidence string) doc {
		return doc{ID: id, Title: "Redis eviction policy surprise", Confidence: confidence,
			Body: "## Problem\nKeys vanished under memory pressure.\n"}
	}
	docs := []doc{
		{ID: "lrn-pg-a-body", Title: "Database notes from the incident",
			Body: "## Problem\nThe postgres connection pool was exhausted by idle transactions.\n"},
		{ID: "lrn-pg-b-title", Title: "Postgres connection pool exhausted",
			Body: "## Problem\nRequests stalled for minutes while everything waited.\n\n## Solution\nRaise the limit and add a statement timeout.\n"},
		redis("lrn-redis-a-low", "low"),
		redis("lrn-redis-b-high", "high"),
		kafka("lrn-kafka-a-beta", "project", "beta"),
		kafka("lrn-kafka-b-global", "global", ""),
		kafka("lrn-kafka-c-alpha", "project", "alpha"),
		{ID: "lrn-fpic-a-distractor", Title: "Position independent code notes",
			Body: "We talked about fpic and pie for a while.\n"},
		{ID: "lrn-fpic-b", Title: "Shared library link fails",
			Body: "Build with `-fPIC` when linking a static archive into a shared object.\n"},
		{ID: "lrn-ssl-a-distractor", Title: "SSL protocol error in the Java client",
			Body: "An ssl protocol error appeared after the JDK upgrade; the error went away with TLS 1.3 disabled.\n"},
		{ID: "lrn-ssl-b", Title: "Browser handshake failure behind the proxy",
			Body: "Chrome shows ERR_SSL_PROTOCOL_ERROR when the proxy speaks plain HTTP on port 443.\n"},
		{ID: "lrn-cookie-a-distractor", Title: "Cookie callback in go handlers",
			Body: "The callback sets a cookie; go figure.\n"},
		{ID: "lrn-cookie-b", Title: "OAuth state cookie must be SameSite=Lax",
			KeyInsight: "A SameSite=Strict state cookie is dropped on the cross-site redirect back from the IdP.",
			Tags:       []string{"oauth", "cookies"}, Symptoms: []string{"state mismatch after callback"},
			Body: "## Problem\nThe state cookie is set in callback/cookie.go with SameSite=Strict.\n"},
	}
	for i := 0; i < 15; i++ {
		docs = append(docs, doc{ID: fmt.Sprintf("lrn-widget-%02d", i), Title: fmt.Sprintf("Widget rendering quirk %d", i),
			Body: fmt.Sprintf("The widget number %d flickers %s.\n", i, strings.Repeat("again ", i))})
	}
	return docs
}

func corpusIndex(t testing.TB) *Index {
	t.Helper()
	k := newKB(t)
	for _, d := range searchCorpus() {
		k.write(t, d)
	}
	ix := k.open(t)
	if !strings.Contains(ix.Rebuilt, "missing") {
		t.Fatalf("Rebuilt = %q", ix.Rebuilt)
	}
	return ix
}

func resultByID(res []Result, id string) (Result, int) {
	for i, r := range res {
		if r.ID == id {
			return r, i
		}
	}
	return Result{}, -1
}

func TestSearchRanking(t *testing.T) {
	ix := corpusIndex(t)
	tests := []struct {
		name   string
		q      Query
		winner string
		loser  string
		// tie: the two are equal in every signal and factor, so they
		// score the same and keep the index's order (by id).
		tie     bool
		checkFn func(t *testing.T, win, lose Result)
	}{
		{
			name: "title beats body", q: Query{Text: "postgres connection pool"},
			winner: "lrn-pg-b-title", loser: "lrn-pg-a-body",
			checkFn: func(t *testing.T, win, lose Result) {
				if win.Why.BM25 <= lose.Why.BM25 || win.Why.LexicalRank != 1 {
					t.Errorf("title doc bm25 %v rank %d, body doc bm25 %v", win.Why.BM25, win.Why.LexicalRank, lose.Why.BM25)
				}
			},
		},
		{
			name: "high confidence beats equal low", q: Query{Text: "redis eviction"},
			winner: "lrn-redis-b-high", loser: "lrn-redis-a-low",
			checkFn: func(t *testing.T, win, lose Result) {
				if win.Why.BM25 != lose.Why.BM25 {
					t.Errorf("equal documents scored %v and %v", win.Why.BM25, lose.Why.BM25)
				}
				if win.Why.Confidence != 1.0 || lose.Why.Confidence != 0.55 {
					t.Errorf("confidence factors %v, %v; want 1.0 and 0.55", win.Why.Confidence, lose.Why.Confidence)
				}
			},
		},
		{
			name: "own project beats global", q: Query{Text: "kafka rebalance", Project: "alpha"},
			winner: "lrn-kafka-c-alpha", loser: "lrn-kafka-b-global",
			checkFn: func(t *testing.T, win, lose Result) {
				if win.Why.Scope <= 1 || lose.Why.Scope != 1 {
					t.Errorf("scope factors %v, %v", win.Why.Scope, lose.Why.Scope)
				}
			},
		},
		{
			name: "global beats another project", q: Query{Text: "kafka rebalance", Project: "alpha"},
			winner: "lrn-kafka-b-global", loser: "lrn-kafka-a-beta",
			checkFn: func(t *testing.T, win, lose Result) {
				if lose.Why.Scope >= 1 {
					t.Errorf("other project's scope factor %v, want < 1", lose.Why.Scope)
				}
			},
		},
		{
			name: "project match is case-insensitive", q: Query{Text: "kafka rebalance", Project: "ALPHA"},
			winner: "lrn-kafka-c-alpha", loser: "lrn-kafka-a-beta",
		},
		{
			name: "other project wins when it is the current one", q: Query{Text: "kafka rebalance", Project: "beta"},
			winner: "lrn-kafka-a-beta", loser: "lrn-kafka-c-alpha",
		},
		{
			name: "without a project, no scope factor", q: Query{Text: "kafka rebalance"},
			winner: "lrn-kafka-a-beta", loser: "lrn-kafka-c-alpha", tie: true,
			checkFn: func(t *testing.T, win, lose Result) {
				if win.Why.Scope != 1 || lose.Why.Scope != 1 {
					t.Errorf("scope factors %v, %v without a project", win.Why.Scope, lose.Why.Scope)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := search(t, ix, tc.q)
			win, wi := resultByID(res, tc.winner)
			lose, li := resultByID(res, tc.loser)
			if wi < 0 || li < 0 {
				t.Fatalf("results %v lack %s or %s", ids(res), tc.winner, tc.loser)
			}
			if tc.tie && (wi > li || win.Score != lose.Score) {
				t.Errorf("%s (#%d, %.5f) and %s (#%d, %.5f) should tie in id order; results %v",
					tc.winner, wi, win.Score, tc.loser, li, lose.Score, ids(res))
			}
			if !tc.tie && (wi > li || win.Score <= lose.Score) {
				t.Errorf("%s (#%d, %.5f) should outrank %s (#%d, %.5f); results %v",
					tc.winner, wi, win.Score, tc.loser, li, lose.Score, ids(res))
			}
			if tc.checkFn != nil {
				tc.checkFn(t, win, lose)
			}
		})
	}
}

// The issue orders the column weights title > key_insight > tags/symptoms >
// body. Each document below holds the query word in one field only; all
// fields have the same length in every document, so only the weights differ.
func TestSearchFieldWeights(t *testing.T) {
	k := newKB(t)
	filler := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("filler%c", 'a'+i)
		}
		return out
	}
	type fields struct{ title, insight, tags, symptoms, body []string }
	mk := func(id string, place func(f *fields)) {
		f := fields{filler(4), filler(6), filler(2), filler(2), filler(10)}
		place(&f)
		d := doc{ID: id, Title: strings.Join(f.title, " "), KeyInsight: strings.Join(f.insight, " "),
			Tags: f.tags, Symptoms: []string{strings.Join(f.symptoms, " ")}, Body: strings.Join(f.body, " ") + "\n"}
		k.write(t, d)
	}
	// ids in reverse of the expected order, so ties cannot pass as wins
	mk("lrn-w1-title", func(f *fields) { f.title[1] = "zeppelin" })
	mk("lrn-w2-insight", func(f *fields) { f.insight[1] = "zeppelin" })
	mk("lrn-w3-tags", func(f *fields) { f.tags[1] = "zeppelin" })
	mk("lrn-w4-symptoms", func(f *fields) { f.symptoms[1] = "zeppelin" })
	mk("lrn-w5-body", func(f *fields) { f.body[1] = "zeppelin" })
	for i := 0; i < 5; i++ { // documents without the word, so it has a real idf
		mk(fmt.Sprintf("lrn-w9-other%d", i), func(*fields) {})
	}
	ix := k.open(t)
	// BM25F alone: the entity graph rightly relates the other documents
	// through the tags they share with the one tagged zeppelin.
	res := search(t, ix, Query{Text: "zeppelin", Signals: Lexical})
	bm := map[string]float64{}
	for _, r := range res {
		bm[r.ID] = r.Why.BM25
	}
	if len(bm) != 5 {
		t.Fatalf("results %v, want the 5 documents with the word", ids(res))
	}
	order := []string{"lrn-w1-title", "lrn-w2-insight", "lrn-w3-tags", "lrn-w5-body"}
	for i := 0; i+1 < len(order); i++ {
		if !(bm[order[i]] > bm[order[i+1]]) {
			t.Errorf("BM25F of %s = %v, want more than %s = %v", order[i], bm[order[i]], order[i+1], bm[order[i+1]])
		}
	}
	if math.Abs(bm["lrn-w3-tags"]-bm["lrn-w4-symptoms"]) > 1e-9 {
		t.Errorf("tags %v and symptoms %v share a column and should score the same", bm["lrn-w3-tags"], bm["lrn-w4-symptoms"])
	}
}

func TestSearchIdentifiers(t *testing.T) {
	ix := corpusIndex(t)
	tests := []struct {
		query, want string
	}{
		{"-fPIC", "lrn-fpic-b"},
		{"-fpic", "lrn-fpic-b"},
		{"recompile with -fPIC", "lrn-fpic-b"},
		{"ERR_SSL_PROTOCOL_ERROR", "lrn-ssl-b"},
		{"callback/cookie.go", "lrn-cookie-b"},
		{"SameSite=Lax", "lrn-cookie-b"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			res := search(t, ix, Query{Text: tc.query})
			if len(res) == 0 || res[0].ID != tc.want {
				t.Fatalf("results %v, want %s first", ids(res), tc.want)
			}
			w := res[0].Why
			if w.TrigramRank != 1 {
				t.Errorf("trigram rank %d, want 1", w.TrigramRank)
			}
			if w.Identifiers != 1 || math.Abs(w.Contributions.Trigram-weightTrigram) > 1e-12 {
				t.Errorf("identifiers %v, trigram contribution %v; want the whole identifier, weight %v", w.Identifiers, w.Contributions.Trigram, weightTrigram)
			}
			wantFused := w.Contributions.Lexical + w.Contributions.Trigram + w.Contributions.Vector + w.Contributions.Graph
			if math.Abs(w.Fused-wantFused) > 1e-12 {
				t.Errorf("fused %v, want the sum of %+v", w.Fused, w.Contributions)
			}
			for _, r := range res[1:] {
				if r.Why.TrigramRank == 1 {
					t.Errorf("%s also has trigram rank 1", r.ID)
				}
			}
		})
	}
}

func TestSearchWhyAndSnippet(t *testing.T) {
	ix := corpusIndex(t)
	for _, q := range []Query{
		{Text: "postgres connection pool"},
		{Text: "OAuth state cookie"},
		{Text: "widget flickers", Limit: 20},
		{Text: "ERR_SSL_PROTOCOL_ERROR"},
		{Text: "kafka rebalance", Project: "alpha"},
	} {
		t.Run(q.Text, func(t *testing.T) {
			res := search(t, ix, q)
			if len(res) == 0 {
				t.Fatal("no results")
			}
			for i, r := range res {
				w := r.Why
				if r.Snippet == "" {
					t.Errorf("%s: empty snippet", r.ID)
				}
				if r.Title == "" || r.Path == "" || r.Updated == "" || r.Confidence == "" || r.Type != "learning" {
					t.Errorf("%s: incomplete result %+v", r.ID, r)
				}
				if w.LexicalRank == 0 && w.TrigramRank == 0 && w.VectorRank == 0 && w.GraphRank == 0 {
					t.Errorf("%s: found by no signal: %+v", r.ID, w)
				}
				if (w.LexicalRank > 0) != (w.BM25 > 0) {
					t.Errorf("%s: lexical rank %d with bm25 %v", r.ID, w.LexicalRank, w.BM25)
				}
				if w.Fused <= 0 || w.Confidence <= 0 || w.Scope <= 0 || w.Recency <= 0 || w.Recency > 1 || w.Freshness != 1 {
					t.Errorf("%s: factors %+v", r.ID, w)
				}
				if math.Abs(r.Score-w.Fused*w.Confidence*w.Scope*w.Recency*w.Freshness) > 1e-12 {
					t.Errorf("%s: score %v != fused %v x confidence %v x scope %v x recency %v x freshness %v", r.ID, r.Score, w.Fused, w.Confidence, w.Scope, w.Recency, w.Freshness)
				}
				if w.LexicalRank > 0 && w.MatchedTerms == 0 {
					t.Errorf("%s: lexical match with 0 matched terms", r.ID)
				}
				if i > 0 && res[i-1].Score < r.Score {
					t.Errorf("results not sorted by score at %d", i)
				}
			}
		})
	}

	t.Run("snippet is the key insight when there is one", func(t *testing.T) {
		res := search(t, ix, Query{Text: "SameSite state cookie"})
		if len(res) == 0 || res[0].ID != "lrn-cookie-b" {
			t.Fatalf("results %v", ids(res))
		}
		if !strings.HasPrefix(res[0].Snippet, "A SameSite=Strict state cookie") {
			t.Errorf("snippet %q", res[0].Snippet)
		}
		if res[0].KeyInsight == "" || !reflect.DeepEqual(res[0].Tags, []string{"oauth", "cookies"}) {
			t.Errorf("key insight %q tags %v", res[0].KeyInsight, res[0].Tags)
		}
	})
	t.Run("snippet shows the body around the match", func(t *testing.T) {
		res := search(t, ix, Query{Text: "idle transactions"})
		if len(res) == 0 || res[0].ID != "lrn-pg-a-body" {
			t.Fatalf("results %v", ids(res))
		}
		if !strings.Contains(res[0].Snippet, "idle transactions") {
			t.Errorf("snippet %q does not show the match", res[0].Snippet)
		}
		if res[0].Why.MatchedTerms != 2 {
			t.Errorf("matched terms %d, want 2", res[0].Why.MatchedTerms)
		}
	})
}

func TestSearchLimit(t *testing.T) {
	ix := corpusIndex(t)
	for _, tc := range []struct{ limit, want int }{{1, 1}, {5, 5}, {0, 10}, {-3, 10}, {15, 15}, {100, 15}} {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			res := search(t, ix, Query{Text: "widget", Limit: tc.limit})
			if len(res) != tc.want {
				t.Errorf("Limit %d: %d results, want %d", tc.limit, len(res), tc.want)
			}
		})
	}
}

// adversarialQueries are user texts that would be FTS5 syntax errors (or
// worse) if they reached MATCH unquoted.
var adversarialQueries = []string{
	`c++ -fPIC "foo`,
	`AND OR NOT`,
	`AND`, `OR`, `NOT`, `NEAR`,
	`*`, `foo*`, `*foo`, `"foo"*`,
	`NEAR(a b)`, `NEAR(postgres pool, 2)`, `NEAR(`,
	`title:foo`, `title:`, `:foo`, `{title body}:postgres`, `-title:postgres`, `body:"pool"`,
	`^x`, `^postgres`, `postgres^`,
	`"`, `""`, `"""`, `'`, `''`, "`", `"unbalanced`, `a"b"c`, `"postgres" "pool"`,
	`(`, `)`, `(postgres`, `postgres)`, `((()))`, `[postgres]`, `{`, `}`,
	`+`, `-`, `--`, `- postgres`, `postgres -pool`, `a - b`, `a AND`, `OR b`, `AND AND AND`,
	`%`, `_`, `%_%`, `\`, `\"`, `$1`, `?`, `?1`, `:name`, `@var`, `#`, `;`,
	`'; DROP TABLE docs; --`, `"); DELETE FROM fts; --`,
	"🔥", "🔥 postgres 🔥", "👩‍💻 fails", "\u200b", "\ufeffpostgres",
	"\u0301", "e\u0301", "café naïve", "İstanbul", "ǅungla", "Ⱥⱥ", "ǰ", "ß", "ﬁx",
	"数据库 连接池 耗尽", "пул соединений", "مرحبا", "עברית",
	"\x00", "post\x00gres", "\xff\xfe\xfd", "pool \xc3", "\t\n\r",
	strings.Repeat("a", 10000),
	strings.Repeat("postgres ", 1200),
	strings.Repeat("x_y ", 2500),
	strings.Repeat("-fPIC ", 1700),
	strings.Repeat(`"`, 10000),
	strings.Repeat("NEAR(", 2000),
	strings.Repeat("é", 5000),
	tenKBText(),
}

func tenKBText() string {
	var b strings.Builder
	for i := 0; b.Len() < 10000; i++ {
		fmt.Fprintf(&b, "word%d src/pkg%d/file%d.go ERR_CODE_%d (NEAR title:x%d) \"q%d ", i, i, i, i, i, i)
	}
	return b.String()
}

// searchNoPanic runs Search and turns a panic into an error.
func searchNoPanic(ix *Index, q Query) (res []Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return ix.Search(context.Background(), q)
}

func TestSearchAdversarialQueries(t *testing.T) {
	ix := corpusIndex(t)
	for _, text := range adversarialQueries {
		name := text
		if len(name) > 40 {
			name = fmt.Sprintf("%.40s…(%d bytes)", name, len(text))
		}
		t.Run(name, func(t *testing.T) {
			res, err := searchNoPanic(ix, Query{Text: text, Project: text})
			if err != nil {
				t.Fatalf("Search(%q): %v", name, err)
			}
			if len(res) > 10 {
				t.Errorf("%d results over the limit", len(res))
			}
			if q := QuoteQuery(text); q != "" {
				if err := ftsMatch(context.Background(), ix, q); err != nil {
					t.Errorf("QuoteQuery(%q) = %q is not valid FTS5: %v", name, q, err)
				}
			}
		})
	}
	// These still find what they name.
	for _, tc := range []struct{ text, want string }{
		{`c++ -fPIC "foo`, "lrn-fpic-b"},
		{`title:postgres`, "lrn-pg-b-title"},
		{`NEAR(postgres pool)`, "lrn-pg-b-title"},
		{`"postgres`, "lrn-pg-b-title"},
		{`postgres*`, "lrn-pg-b-title"},
	} {
		res := search(t, ix, Query{Text: tc.text})
		if len(res) == 0 || res[0].ID != tc.want {
			t.Errorf("Search(%q) = %v, want %s first", tc.text, ids(res), tc.want)
		}
	}
}

func TestSearchNothingSearchable(t *testing.T) {
	ix := corpusIndex(t)
	for _, text := range []string{"", "   ", "\n\t", "!!!", "*", "* * *", "---", "++ -- //", `""`, "()", "🔥🚀", "…", "\x00\x01"} {
		res, err := searchNoPanic(ix, Query{Text: text})
		if err != nil || len(res) != 0 {
			t.Errorf("Search(%q) = %v, %v; want no results and no error", text, ids(res), err)
		}
	}
	// Words that exist nowhere: no results, no error.
	if res := search(t, ix, Query{Text: "xylophone quagmire"}); len(res) != 0 {
		t.Errorf("unknown words found %v", ids(res))
	}
	// Only stopwords: they are searched rather than dropped.
	k := newKB(t)
	k.write(t, doc{ID: "lrn-howto", Title: "How to", Body: "how to do it\n"})
	ix2 := k.open(t)
	if res := search(t, ix2, Query{Text: "how to"}); len(res) != 1 {
		t.Errorf("stopword-only query found %v", ids(res))
	}
}

func TestSearchEmptyIndex(t *testing.T) {
	k := newKB(t)
	ix := k.open(t)
	for _, text := range []string{"postgres", "-fPIC", "how to"} {
		if res := search(t, ix, Query{Text: text}); len(res) != 0 {
			t.Errorf("empty index: %q found %v", text, ids(res))
		}
	}
}

// A body whose lowercase form is longer in bytes than the body itself
// (U+023A 'Ⱥ' is 2 bytes, its lowercase U+2C65 is 3) must not make the
// snippet code index past the end of the body.
func TestSearchSnippetWithCaseChangingLength(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-wide-lower", Title: "Unicode case folding",
		Body: strings.Repeat("Ⱥ", 100) + " needle in the haystack\n"})
	k.write(t, doc{ID: "lrn-kelvin", Title: "Kelvin sign",
		Body: strings.Repeat("\u212a", 100) + " needle again\n"}) // 'K' (3 bytes) lowers to 'k' (1 byte)
	ix := k.open(t)
	res, err := searchNoPanic(ix, Query{Text: "needle"})
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if len(res) != 2 {
		t.Fatalf("results %v, want both documents", ids(res))
	}
	for _, r := range res {
		if !strings.Contains(r.Snippet, "needle") {
			t.Errorf("%s: snippet %q does not show the match", r.ID, r.Snippet)
		}
	}
}

func TestListAndCount(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	k.write(t, doc{ID: "lrn-l1", Title: "one", Created: "2026-01-01T00:00:00Z", Scope: "project", Project: "alpha", Body: "x\n"})
	k.write(t, doc{ID: "lrn-l2", Title: "two", Created: "2026-03-01T00:00:00Z", Scope: "project", Project: "Alpha", Body: "x\n"})
	k.write(t, doc{ID: "lrn-l3", Title: "three", Created: "2026-02-01T00:00:00Z", Type: "mini", Body: "x\n"})
	writeRaw(t, k.docPath("lrn-bad"), "junk")
	ix := k.open(t)
	all, err := ix.List(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(all); !reflect.DeepEqual(got, []string{"lrn-l2", "lrn-l3", "lrn-l1"}) {
		t.Errorf("List = %v, want newest first", got)
	}
	alpha, err := ix.List(ctx, ListOptions{Project: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(alpha); !reflect.DeepEqual(got, []string{"lrn-l2", "lrn-l1"}) {
		t.Errorf("List(alpha) = %v", got)
	}
	one, _ := ix.List(ctx, ListOptions{Limit: 1})
	if len(one) != 1 {
		t.Errorf("List(limit 1) = %v", ids(one))
	}
	if c := counts(t, ix); c != (Counts{Learnings: 3, Mini: 1, Problems: 1}) {
		t.Errorf("Count = %+v", c)
	}
}

// A catalog written before the corpus totals were stored in meta (same
// schema version, so Open does not rebuild it) must still rank sensibly:
// BM25F with a document count of 0 gives negative idf and inverts ranking.
func TestSearchCatalogWithoutCorpusTotals(t *testing.T) {
	ix := corpusIndex(t)
	if _, err := ix.db.Exec(`DELETE FROM meta WHERE key <> 'docs_stamp'`); err != nil {
		t.Fatal(err)
	}
	res := search(t, ix, Query{Text: "postgres connection pool"})
	if len(res) < 2 || res[0].ID != "lrn-pg-b-title" {
		t.Errorf("results %v, want lrn-pg-b-title first", ids(res))
	}
	for _, r := range res {
		if r.Why.BM25 <= 0 {
			t.Errorf("%s: BM25F %v, want > 0", r.ID, r.Why.BM25)
		}
	}
}
