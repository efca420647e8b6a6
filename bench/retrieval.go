package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// RunDepth is how many results per query go into a run file.
const RunDepth = 100

// Report is the outcome of one retrieval benchmark.
type Report struct {
	Dataset   string  `json:"dataset"`
	Documents int     `json:"documents"`
	Scores    Scores  `json:"scores"`
	IndexMS   float64 `json:"index_ms"`
	P50MS     float64 `json:"search_p50_ms"`
	P95MS     float64 `json:"search_p95_ms"`
	// Run maps query id → ranked BEIR doc ids (not learning ids).
	Run map[string][]string `json:"-"`
}

// Options select what a retrieval benchmark searches with.
type Options struct {
	// Signals are the lists fused (zero: all of them), to measure what
	// each contributes.
	Signals index.Signals
	// Index configures the index (the embedder, as the user's config
	// would).
	Index []index.OpenOption
}

// Retrieval loads ds into a new knowledge base under workDir as real
// learnings (title → title, text → body) through store.Write and
// index.Update, runs every query through index.Search, and scores the
// ranking. workDir must be empty or missing; the caller removes it.
func Retrieval(ctx context.Context, ds *Dataset, workDir string, opts Options) (*Report, error) {
	st := store.Open(filepath.Join(workDir, "documents"))
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docOf := make(map[string]string, len(ds.Corpus)) // learning id → BEIR id
	for _, d := range ds.Corpus {
		title := d.Title
		if title == "" {
			title = d.ID
		}
		// The id hashes title+text, not title+key_insight: many turns share
		// a title ("<speaker> on <date>") and these learnings have no insight.
		id := store.NewID(title, d.Text)
		if _, dup := docOf[id]; dup {
			id = store.NewID(title, d.Text+"\x00"+d.ID)
		}
		docOf[id] = d.ID
		l := &store.Learning{ID: id, Title: title, Body: d.Text, Confidence: "medium", Created: created}
		if err := st.Write(l); err != nil {
			return nil, fmt.Errorf("load %s: %w", d.ID, err)
		}
	}
	start := time.Now()
	ix, err := index.Open(ctx, st.Dir, filepath.Join(workDir, "index"), opts.Index...)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if _, err := ix.Update(ctx, index.UpdateOptions{Communities: true}); err != nil {
		return nil, err
	}
	rep := &Report{Dataset: ds.Name, Documents: len(ds.Corpus), Run: map[string][]string{}}
	rep.IndexMS = float64(time.Since(start).Microseconds()) / 1000

	lat := make([]time.Duration, 0, len(ds.Queries))
	for _, q := range ds.Queries {
		t0 := time.Now()
		results, err := ix.Search(ctx, index.Query{Text: q.Text, Limit: RunDepth, Signals: opts.Signals})
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		lat = append(lat, time.Since(t0))
		ranked := make([]string, 0, len(results))
		for _, r := range results {
			ranked = append(ranked, docOf[r.ID])
		}
		rep.Run[q.ID] = ranked
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	rep.P50MS = percentile(lat, 0.50)
	rep.P95MS = percentile(lat, 0.95)
	rep.Scores = Score(rep.Run, ds.Qrels)
	return rep, nil
}

func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p)
	return float64(sorted[i].Microseconds()) / 1000
}

// WriteRun writes a run in the format beir_eval.py --run reads:
// "qid docid rank" per line, best first, queries in sorted order.
func WriteRun(w io.Writer, run map[string][]string) error {
	qids := make([]string, 0, len(run))
	for q := range run {
		qids = append(qids, q)
	}
	sort.Strings(qids)
	for _, q := range qids {
		for i, d := range run[q] {
			if _, err := fmt.Fprintf(w, "%s\t%s\t%d\n", q, d, i+1); err != nil {
				return err
			}
		}
	}
	return nil
}
