package index_test

// The benchmarks live in the external test package: package bench (the
// synthetic KB generator) imports index.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/bench"
	"github.com/reflectkb/reflect/index"
)

const benchDocs = 10000

// benchKB generates and indexes a 10,000-learning KB in b's temp dir. Call
// it from the outer benchmark and measure in b.Run: the outer function runs
// once, so the KB is built once.
func benchKB(b *testing.B) (*index.Index, string) {
	b.Helper()
	root := b.TempDir()
	docs, idx := filepath.Join(root, "documents"), filepath.Join(root, "index")
	if err := bench.Generate(docs, benchDocs, 42); err != nil {
		b.Fatal(err)
	}
	ix, err := index.Open(context.Background(), docs, idx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if c, err := ix.Count(context.Background()); err != nil || c.Learnings != benchDocs {
		b.Fatalf("indexed %d of %d: %v", c.Learnings, benchDocs, err)
	}
	return ix, docs
}

func BenchmarkSearch(b *testing.B) {
	ix, _ := benchKB(b)
	ctx := context.Background()
	for _, q := range []string{
		"postgres connection pool timeout",
		"how do I stop the kafka consumer from dropping messages after a deploy",
		"-fPIC",
		"ERR_SSL_PROTOCOL_ERROR",
		"internal/auth/callback.go SameSite=Lax",
		"cache",
	} {
		b.Run(fmt.Sprintf("%.24s", q), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res, err := ix.Search(ctx, index.Query{Text: q, Limit: 10})
				if err != nil {
					b.Fatal(err)
				}
				if len(res) == 0 {
					b.Fatalf("%q: no results", q)
				}
			}
		})
	}
}

func BenchmarkUpdateOneChanged(b *testing.B) {
	ix, _ := benchKB(b)
	ctx := context.Background()
	files, err := ix.Store().Scan()
	if err != nil {
		b.Fatal(err)
	}
	path := files[len(files)/2].Path
	orig, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	edits := 0 // across the rounds b.Run makes: every write is new content
	b.Run("10k", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			// A new size every time: the change is seen whatever the
			// file system's timestamp granularity.
			edits++
			data := append(append([]byte{}, orig...), fmt.Sprintf("\nedit %s\n", strings.Repeat("x", edits%50+1))...)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			st, err := ix.Update(ctx, index.UpdateOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if st.Updated != 1 || st.Unchanged != benchDocs-1 {
				b.Fatalf("stats %+v, want 1 updated", st)
			}
		}
	})
	b.Run("10k-nothing-changed", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			st, err := ix.Update(ctx, index.UpdateOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if st.Unchanged != benchDocs {
				b.Fatalf("stats %+v", st)
			}
		}
	})
}

// BenchmarkReindexFull rebuilds the whole index as 'reflect reindex --full'
// does (communities and the ANN decision included), to profile it:
//
//	REFLECT_BENCH_DOCS=20000 go test -tags sqlite_fts5 -run '^$' \
//	  -bench ReindexFull -benchtime 1x -cpuprofile cpu.out -memprofile mem.out ./index
//
// The KB size defaults to 2,000 learnings so that -bench . stays quick.
func BenchmarkReindexFull(b *testing.B) {
	n := 2000
	if v := os.Getenv("REFLECT_BENCH_DOCS"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil {
			b.Fatalf("REFLECT_BENCH_DOCS=%q: %v", v, err)
		}
	}
	root := b.TempDir()
	docs, idx := filepath.Join(root, "documents"), filepath.Join(root, "index")
	if err := bench.Generate(docs, n, 42); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ix, err := index.Open(ctx, docs, idx)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := ix.Update(ctx, index.UpdateOptions{Full: true, Communities: true, DropRetired: true})
		if err != nil {
			b.Fatal(err)
		}
		if st.Indexed != n {
			b.Fatalf("indexed %d of %d", st.Indexed, n)
		}
	}
}
