package graph

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reflectkb/reflect/store"
)

// The synthetic knowledge base: benchDocs learnings, each about one of
// benchTopics topics, naming ~10 entities as a sidecar writer would: ~7
// from its topic's vocabulary and ~3 from a global one of tools and
// libraries, both drawn Zipf-like, so a few entities are in thousands of
// learnings and most in a handful; ~4 relationships each.
const (
	benchDocs    = 10000
	benchTopics  = 250
	topicVocab   = 120
	globalVocab  = 400
	benchRelsPer = 4
)

var types = []string{"technology", "library", "tool", "file", "function", "error", "concept", "config"}

func topicEntity(t, j int) string { return fmt.Sprintf("topic%d-thing%d", t, j) }
func globalEntity(j int) string   { return fmt.Sprintf("tool%d", j) }

// syntheticSidecars generates the knowledge base deterministically.
func syntheticSidecars(n int) []*store.Sidecar {
	rnd := rand.New(rand.NewPCG(7, 11))
	local := rand.NewZipf(rnd, 1.3, 1, topicVocab-1)
	global := rand.NewZipf(rnd, 1.1, 1, globalVocab-1)
	out := make([]*store.Sidecar, n)
	for i := range out {
		id := fmt.Sprintf("lrn-syn-%05d", i)
		topic := rnd.IntN(benchTopics)
		sc := &store.Sidecar{DocumentID: id}
		seen := map[string]bool{}
		add := func(name string) {
			if !seen[name] {
				seen[name] = true
				sc.Entities = append(sc.Entities, store.Entity{Name: name, Type: types[len(name)%len(types)]})
			}
		}
		k := 8 + rnd.IntN(5)
		for len(sc.Entities) < k*7/10 {
			add(topicEntity(topic, int(local.Uint64())))
		}
		for len(sc.Entities) < k {
			add(globalEntity(int(global.Uint64())))
		}
		for r := 0; r < benchRelsPer; r++ {
			a, b := rnd.IntN(len(sc.Entities)), rnd.IntN(len(sc.Entities))
			if a != b {
				sc.Relationships = append(sc.Relationships, store.Relationship{
					Source: sc.Entities[a].Name, Target: sc.Entities[b].Name,
					Type: store.RelationshipTypes[rnd.IntN(len(store.RelationshipTypes))], Strength: float64(1 + rnd.IntN(10)),
				})
			}
		}
		out[i] = sc
	}
	return out
}

var (
	benchOnce  sync.Once
	benchDB    *sql.DB
	benchDir   string
	benchAdd   time.Duration // AddDocument of every learning
	benchBuild time.Duration // the first Rebuild
	benchErr   error
)

// TestMain removes the benchmark catalog, which outlives any one
// benchmark so that it is built once per run.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDB != nil {
		benchDB.Close()
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// syntheticDB is the 10k-learning catalog, built on first use with
// AddDocument in one transaction, as a full reindex would.
func syntheticDB(b *testing.B) *sql.DB {
	b.Helper()
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "graph-bench-")
		if benchErr != nil {
			return
		}
		db, err := sql.Open("sqlite3", "file:"+filepath.Join(benchDir, "catalog.db")+"?_journal_mode=WAL&_busy_timeout=5000&_txlock=immediate&_synchronous=NORMAL")
		if err != nil {
			benchErr = err
			return
		}
		db.SetMaxOpenConns(1)
		benchDB = db
		for _, s := range append([]string{`CREATE TABLE docs(n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)`}, Schema()...) {
			if _, benchErr = db.Exec(s); benchErr != nil {
				return
			}
		}
		scs := syntheticSidecars(benchDocs)
		ctx := context.Background()
		start := time.Now()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			benchErr = err
			return
		}
		defer tx.Rollback()
		for i, sc := range scs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO docs(n, id) VALUES(?, ?)`, i+1, sc.DocumentID); err != nil {
				benchErr = err
				return
			}
			if err := AddDocument(ctx, tx, int64(i+1), sc, nil); err != nil {
				benchErr = err
				return
			}
		}
		benchAdd = time.Since(start)
		st, err := Rebuild(ctx, tx)
		if err != nil {
			benchErr = err
			return
		}
		benchBuild = st.Duration
		benchErr = tx.Commit()
		db.Exec(`ANALYZE`)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDB
}

// benchQueries are queries of each kind a search sees: naming rare topic
// entities, a topic's frequent head entity, hub tools, nothing at all,
// and a long prompt with two entities in it.
func benchQueries() map[string][]string {
	rnd := rand.New(rand.NewPCG(3, 5))
	q := map[string][]string{}
	for i := 0; i < 64; i++ {
		t := rnd.IntN(benchTopics)
		q["rare"] = append(q["rare"], fmt.Sprintf("why does %s fail after the upgrade", topicEntity(t, 20+rnd.IntN(80))))
		q["head"] = append(q["head"], fmt.Sprintf("%s and %s keep timing out", topicEntity(t, 0), topicEntity(t, 1)))
		q["hubs"] = append(q["hubs"], fmt.Sprintf("tool0 with tool%d and tool%d crash", 1+rnd.IntN(3), 4+rnd.IntN(10)))
		q["none"] = append(q["none"], "the cache is slow after deploy and the retry loop never stops")
		q["prompt"] = append(q["prompt"], strings.Repeat("please look at the failing build again, it worked yesterday before the merge ", 4)+
			fmt.Sprintf("and now %s complains about %s in the logs", topicEntity(t, rnd.IntN(topicVocab)), globalEntity(rnd.IntN(50))))
	}
	return q
}

// BenchmarkExpand measures Expand on the 10k-learning catalog, per kind of
// query; the budget is 2 ms.
func BenchmarkExpand(b *testing.B) {
	db := syntheticDB(b)
	ctx := context.Background()
	for _, kind := range []string{"rare", "head", "hubs", "none", "prompt"} {
		qs := benchQueries()[kind]
		b.Run(kind, func(b *testing.B) {
			hits := 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				h, err := Expand(ctx, db, qs[i%len(qs)], defaultLimit)
				if err != nil {
					b.Fatal(err)
				}
				hits += len(h)
			}
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
		})
	}
}

// BenchmarkRebuild measures community detection over the 10k-learning
// catalog, rolled back after each run.
func BenchmarkRebuild(b *testing.B) {
	db := syntheticDB(b)
	b.Logf("10k learnings: AddDocument (sidecars) %s, first Rebuild %s", benchAdd.Round(time.Millisecond), benchBuild.Round(time.Millisecond))
	ctx := context.Background()
	var st Stats
	for b.Loop() {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		st, err = Rebuild(ctx, tx)
		tx.Rollback()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Entities), "entities")
	b.ReportMetric(float64(st.Edges), "edges")
	b.ReportMetric(float64(st.Communities), "communities")
	b.ReportMetric(st.Modularity, "Q")
}

// benchLearning is a learning of typical size for extraction and writing.
func benchLearning(i int) *store.Learning {
	return &store.Learning{
		ID:         fmt.Sprintf("lrn-bench-%d", i),
		Title:      fmt.Sprintf("Dial fails with ECONNREFUSED in service%d/client.go", i%50),
		KeyInsight: "The `retryDial` helper gives up before postgres is ready; wait for the health check in docker-compose.yml.",
		Tags:       []string{"docker", "postgres", fmt.Sprintf("svc%d", i%20)},
		Body: "## Problem\nAfter `docker compose up`, the API logs `dial tcp 127.0.0.1:5432: connect: connection refused`\n" +
			"and exits with exit code 1. The DATABASE_URL is right; psql connects a second later.\n\n" +
			"## Solution\nAdd a healthcheck with pg_isready and `depends_on: condition: service_healthy`.\n" +
			"Make retryDial back off (see internal/db/retry.go) and log the SQLSTATE 57P03 it gets meanwhile.\n\n" +
			"```yaml\nservices:\n  db:\n    image: postgres:16\n    healthcheck:\n      test: [\"CMD\", \"pg_isready\"]\n```\n\n" +
			"## Context\nSeen on macOS with Docker Desktop and on Linux CI (GitHub Actions). Go 1.22, pgx v5.\n",
	}
}

// BenchmarkExtract measures heuristic extraction of one learning.
func BenchmarkExtract(b *testing.B) {
	l := benchLearning(1)
	b.ReportAllocs()
	for b.Loop() {
		Extract(l)
	}
}

// BenchmarkAddDocument measures what a reindex spends on the graph for one
// learning without a sidecar: extraction plus the writes, in a transaction
// shared by many learnings as in a full reindex.
func BenchmarkAddDocument(b *testing.B) {
	db := openDB(b)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := AddDocument(ctx, tx, int64(i+1), nil, benchLearning(i)); err != nil {
			b.Fatal(err)
		}
	}
}
