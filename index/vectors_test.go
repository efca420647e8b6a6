package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/index/vector"
)

func openWith(t testing.TB, k kb, opts ...OpenOption) *Index {
	t.Helper()
	ix, err := Open(context.Background(), k.docs, k.idx, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func hashEmbedder(t testing.TB, dim int) embed.Embedder {
	t.Helper()
	e, err := embed.NewHash(dim)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func vectorKeys(t testing.TB, k kb) (vector.Header, int) {
	t.Helper()
	f, err := vector.Open(filepath.Join(k.idx, "vectors.f32"))
	if err != nil {
		t.Fatalf("vectors.f32: %v", err)
	}
	defer f.Close()
	return f.Header(), f.Len()
}

// The vectors follow the documents: added on add, gone on delete,
// exported to vectors.f32 with the embedder's identity.
func TestVectorsFollowDocuments(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-a", "postgres connection pool exhausted"))
	k.write(t, simple("lrn-b", "docker build cache ENOSPC"))
	// Open builds the missing catalog, vectors included.
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 64)))
	if !ix.RebuildStats.Embedded {
		t.Errorf("first build embedded nothing: %+v", ix.RebuildStats)
	}
	h, n := vectorKeys(t, k)
	if n != 2 || h.Dim != 64 || h.Embedder != "hash" || !strings.HasSuffix(h.EmbedderVersion, "/64") {
		t.Fatalf("vectors.f32: %d rows, header %+v", n, h)
	}
	k.write(t, simple("lrn-c", "kafka consumer rebalance storm"))
	if err := os.Remove(k.docPath("lrn-a")); err != nil {
		t.Fatal(err)
	}
	st := update(t, ix, UpdateOptions{})
	if st.Added != 1 || st.Removed != 1 || !st.Embedded {
		t.Fatalf("stats %+v", st)
	}
	if _, n := vectorKeys(t, k); n != 2 {
		t.Fatalf("%d vectors after add+remove, want 2", n)
	}
	// A search with a paraphrase the words do not share still finds the
	// learning through its vector (character n-grams of "rebalancing").
	res := search(t, ix, Query{Text: "rebalancing consumers", Signals: Vector})
	if len(res) == 0 || res[0].ID != "lrn-c" || res[0].Why.VectorRank != 1 || res[0].Why.Cosine <= 0 {
		t.Fatalf("vector search: %+v", res)
	}
	for _, r := range res {
		if r.ID == "lrn-a" {
			t.Fatalf("removed learning %s still found by its vector", r.ID)
		}
	}
}

// Changing the embedder re-embeds everything on the next update, and the
// file of the old space is never used to rank.
func TestEmbedderChangeReembeds(t *testing.T) {
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c"} {
		k.write(t, simple(id, "words for "+id))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	update(t, ix, UpdateOptions{})
	ix.Close()

	ix2 := openWith(t, k, WithEmbedder(hashEmbedder(t, 48)))
	if hits, err := ix2.vectorHits(context.Background(), "words", 10); err != nil || len(hits) != 0 {
		t.Fatalf("vectors of another space used: %v %v", hits, err)
	}
	var calls []int
	st := update(t, ix2, UpdateOptions{EmbedProgress: func(done, total int) { calls = append(calls, total) }})
	if !st.Embedded || len(calls) == 0 || calls[len(calls)-1] != 3 {
		t.Fatalf("embedder change: stats %+v progress %v", st, calls)
	}
	if h, n := vectorKeys(t, k); h.Dim != 48 || n != 3 {
		t.Fatalf("after change: %d rows of dim %d", n, h.Dim)
	}
	if st := update(t, ix2, UpdateOptions{}); st.Embedded {
		t.Error("an update with nothing new embedded again")
	}
}

// A vector file lost after the commit (a crash, a user deleting it) is
// written again by the next update; an update without an embedder (a hook
// with a remote one) leaves learnings for the next update to embed.
func TestVectorsRecover(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-a", "alpha beta"))
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 16)))
	update(t, ix, UpdateOptions{})
	ix.Close()
	if err := os.Remove(filepath.Join(k.idx, "vectors.f32")); err != nil {
		t.Fatal(err)
	}
	noEmb := openWith(t, k)
	k.write(t, simple("lrn-b", "gamma delta"))
	if st := update(t, noEmb, UpdateOptions{}); st.Embedded || st.Added != 1 {
		t.Fatalf("update without embedder: %+v", st)
	}
	noEmb.Close()
	ix = openWith(t, k, WithEmbedder(hashEmbedder(t, 16)))
	if st := update(t, ix, UpdateOptions{}); !st.Embedded {
		t.Fatalf("missing vector not embedded: %+v", st)
	}
	if _, n := vectorKeys(t, k); n != 2 {
		t.Fatalf("%d vectors, want 2", n)
	}
}

// An offline index (a hook with a remote embedder) never embeds a query.
func TestQueryEmbeddingOff(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-a", "alpha beta"))
	e := &countingEmbedder{Embedder: hashEmbedder(t, 16)}
	ix := openWith(t, k, WithEmbedder(e), QueryEmbedding(false))
	update(t, ix, UpdateOptions{})
	before := e.calls
	search(t, ix, Query{Text: "alpha"})
	if e.calls != before {
		t.Fatalf("query embedded %d times with query embedding off", e.calls-before)
	}
}

type countingEmbedder struct {
	embed.Embedder
	calls int
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls++
	return c.Embedder.Embed(ctx, texts)
}

// Freshness: a learning citing a file whose content changed is demoted and
// marked stale; a missing file or another project's relative path is not
// evidence.
func TestFreshness(t *testing.T) {
	k := newKB(t)
	root := t.TempDir()
	src := filepath.Join(root, "cookie.go")
	writeRaw(t, src, "package cookie // v1\n")
	sum := sha256.Sum256([]byte("package cookie // v1\n"))
	cite := func(path string) string {
		return "cites: [{path: " + path + ", sha256: " + hex.EncodeToString(sum[:]) + "}]\n"
	}
	k.write(t, doc{ID: "lrn-cited", Title: "SameSite cookie state", Project: "auth", Scope: "project", Extra: cite("cookie.go"), Body: "SameSite cookie\n"})
	k.write(t, doc{ID: "lrn-other-project", Title: "SameSite cookie other", Project: "billing", Scope: "project", Extra: cite("cookie.go"), Body: "SameSite cookie\n"})
	k.write(t, doc{ID: "lrn-missing", Title: "SameSite cookie missing", Extra: cite("gone.go"), Body: "SameSite cookie\n"})
	ix := k.open(t)
	q := Query{Text: "SameSite cookie", Project: "auth", Root: root}
	for _, r := range search(t, ix, q) {
		if r.Stale || r.Why.Freshness != 1 {
			t.Fatalf("%s stale before any change: %+v", r.ID, r)
		}
	}
	writeRaw(t, src, "package cookie // v2\n")
	stale := map[string]Result{}
	for _, r := range search(t, ix, q) {
		stale[r.ID] = r
	}
	if r := stale["lrn-cited"]; !r.Stale || r.Why.Freshness != staleFactor || len(r.StaleFiles) != 1 || r.StaleFiles[0] != "cookie.go" {
		t.Errorf("changed cited file: %+v", r)
	}
	if stale["lrn-other-project"].Stale || stale["lrn-missing"].Stale {
		t.Errorf("stale without evidence: %+v / %+v", stale["lrn-other-project"], stale["lrn-missing"])
	}
}

func TestRecencyFactor(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	for _, tc := range []struct {
		age      time.Duration
		halfLife time.Duration
		want     float64
	}{
		{0, 0, 1},
		{-day, 0, 1}, // from the future: no bonus
		{DefaultHalfLife, 0, 1 - recencyWeight/2},
		{10 * DefaultHalfLife, 0, 1 - recencyWeight*(1-1.0/1024)},
		{30 * day, 30 * day, 1 - recencyWeight/2},
		{400 * day, -1, 1}, // off
	} {
		got := recencyFactor(now.Add(-tc.age).Format(time.RFC3339), now, tc.halfLife)
		if diff := got - tc.want; diff > 1e-9 || diff < -1e-9 {
			t.Errorf("age %v half-life %v: %v, want %v", tc.age, tc.halfLife, got, tc.want)
		}
	}
	if got := recencyFactor("not a time", now, 0); got != 1 {
		t.Errorf("bad time: %v", got)
	}
}

func TestParseSignals(t *testing.T) {
	for in, want := range map[string]Signals{"": AllSignals, "all": AllSignals, "lexical": Lexical, "Lexical, vector": Lexical | Vector, "graph,trigram": Graph | Trigram} {
		got, err := ParseSignals(in)
		if err != nil || got != want {
			t.Errorf("ParseSignals(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseSignals("lexical,bogus"); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown signal: %v", err)
	}
	if s := (Lexical | Graph).String(); s != "lexical,graph" {
		t.Errorf("String = %q", s)
	}
}

// Rerank orders only what the other signals found: no learning enters
// through its vector alone, and the candidates' vector ranks follow their
// cosines.
func TestVectorRerank(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-pool", "postgres connection pool exhausted under load"))
	k.write(t, simple("lrn-pool2", "pool sizing for the postgres replica"))
	k.write(t, simple("lrn-rebalance", "kafka consumers rebalancing storm"))
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 64)))
	full := search(t, ix, Query{Text: "postgres pool rebalancng"})
	re := search(t, ix, Query{Text: "postgres pool rebalancng", Rerank: true, Signals: Lexical | Vector})
	if len(full) != 3 {
		t.Fatalf("full search found %v", ids(full))
	}
	if len(re) != 2 {
		t.Fatalf("rerank found %v, want only the two lexical matches", ids(re))
	}
	for _, r := range re {
		if r.Why.LexicalRank == 0 || r.Why.VectorRank == 0 {
			t.Errorf("%s: ranks %+v", r.ID, r.Why)
		}
	}
	if re[0].Why.VectorRank == re[1].Why.VectorRank || (re[0].Why.Cosine > re[1].Why.Cosine) != (re[0].Why.VectorRank < re[1].Why.VectorRank) {
		t.Errorf("vector ranks do not follow cosines: %+v / %+v", re[0].Why, re[1].Why)
	}
}

// Communities are regrouped by a reindex that asks for it when the graph
// was never grouped, on --full, or once a tenth of the learnings changed.
func TestCommunitiesWhenStale(t *testing.T) {
	k := newKB(t)
	for i := 0; i < 20; i++ {
		k.write(t, simple(fmt.Sprintf("lrn-%02d", i), fmt.Sprintf("pgbouncer pool tuning step %d", i)))
	}
	ix := k.open(t)
	if st := update(t, ix, UpdateOptions{Communities: true}); st.Graph == nil {
		t.Fatal("never grouped: no rebuild")
	}
	k.write(t, simple("lrn-new-1", "pgbouncer transaction mode"))
	if st := update(t, ix, UpdateOptions{Communities: true}); st.Graph != nil {
		t.Fatal("one change in 21 learnings regrouped the graph")
	}
	k.write(t, simple("lrn-new-2", "pgbouncer session mode"))
	k.write(t, simple("lrn-new-3", "pgbouncer statement mode"))
	if st := update(t, ix, UpdateOptions{}); st.Graph != nil {
		t.Fatal("regrouped without being asked")
	}
	if st := update(t, ix, UpdateOptions{Communities: true}); st.Graph == nil {
		t.Fatal("3 changes in 23 learnings: no regrouping")
	}
	if st := update(t, ix, UpdateOptions{Communities: true, Full: true}); st.Graph == nil {
		t.Fatal("--full did not regroup")
	}
}

// In a Rerank search the trigram list holds the lexical candidates that
// contain the identifier, best lexical score first, as the full trigram
// search would mark them.
func TestTrigramRerank(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-a", "raise max_connections on the primary"))
	k.write(t, simple("lrn-b", "connections dropped at max load"))
	k.write(t, simple("lrn-c", "pool max_connections and MAX_CONNECTIONS_PER_HOST"))
	ix := k.open(t)
	q := Query{Text: "max_connections", Signals: Lexical | Trigram, Rerank: true}
	got := map[string]int{}
	for _, r := range search(t, ix, q) {
		got[r.ID] = r.Why.TrigramRank
	}
	if got["lrn-b"] != 0 || got["lrn-a"] == 0 || got["lrn-c"] == 0 {
		t.Fatalf("trigram ranks %v: want lrn-a and lrn-c ranked, lrn-b not", got)
	}
	full := map[string]bool{}
	q.Rerank = false
	for _, r := range search(t, ix, q) {
		if r.Why.TrigramRank > 0 {
			full[r.ID] = true
		}
	}
	for id, rank := range got {
		if (rank > 0) != full[id] {
			t.Errorf("%s: rerank trigram rank %d, full search contains=%v", id, rank, full[id])
		}
	}
}

func TestGraphRerank(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-a", "docker build stops with ENOSPC"))
	k.write(t, simple("lrn-b", "docker layers are slow"))
	k.write(t, simple("lrn-c", "ENOSPC on the runner"))
	k.write(t, simple("lrn-d", "docker compose networks"))
	k.write(t, simple("lrn-e", "unrelated flaky test"))
	ix := k.open(t)
	q := Query{Text: "docker ENOSPC", Signals: Lexical | Graph, Rerank: true}
	res := search(t, ix, q)
	if len(res) == 0 {
		t.Fatal("no results")
	}
	ranked := 0
	for _, r := range res {
		if r.Why.GraphRank > 0 && r.Why.LexicalRank == 0 {
			t.Errorf("%s: graph rank %d without a lexical match; a Rerank search only orders lexical candidates", r.ID, r.Why.GraphRank)
		}
		if r.Why.GraphRank > 0 {
			ranked++
		}
		if r.ID == "lrn-a" && (r.Why.GraphRank != 1 || r.Why.GraphVia != "ENOSPC") {
			t.Errorf("lrn-a names both entities: graph rank %d via %q, want 1 via ENOSPC (the rarer)", r.Why.GraphRank, r.Why.GraphVia)
		}
		if r.ID == "lrn-e" {
			t.Errorf("lrn-e matched: %+v", r.Why)
		}
	}
	if ranked != 4 {
		t.Errorf("%d learnings graph-ranked, want the 4 that name docker or ENOSPC", ranked)
	}
}

// A reindex removes the HNSW graph and its status row that versions up to
// schema 12 kept: nothing reads them any more, and the graph is the size
// of vectors.f32. An update that does not ask for it leaves them.
func TestReindexDropsRetiredGraph(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-a", "postgres pool timeout"))
	ix := k.open(t)
	update(t, ix, UpdateOptions{})
	graph := filepath.Join(k.idx, retiredGraph)
	writeRaw(t, graph, "an old graph")
	ctx := context.Background()
	if _, err := ix.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key,value) VALUES('ann','{}')`); err != nil {
		t.Fatal(err)
	}
	annRows := func() int {
		var n int
		if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM meta WHERE key='ann'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	update(t, ix, UpdateOptions{})
	if _, err := os.Stat(graph); err != nil || annRows() != 1 {
		t.Fatalf("an update without DropRetired removed them: %v, %d rows", err, annRows())
	}
	update(t, ix, UpdateOptions{DropRetired: true})
	if _, err := os.Stat(graph); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there: %v", graph, err)
	}
	if n := annRows(); n != 0 {
		t.Errorf("%d ann rows left in meta", n)
	}
	update(t, ix, UpdateOptions{DropRetired: true}) // nothing left to remove is no error
}
