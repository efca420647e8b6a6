package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reflectkb/reflect/index/vector"
)

// ANNStatus is the outcome of the ANN tier's build-time check, kept in
// the catalog for searches and for 'reflect doctor'.
type ANNStatus struct {
	Vectors   int  `json:"vectors"`
	Threshold int  `json:"threshold"`
	Used      bool `json:"used"`
	// Recall is the measured recall@10 of the HNSW graph against the exact
	// scan; -1 when no graph was built (below the threshold).
	Recall float64 `json:"recall"`
	Reason string  `json:"reason"`
}

// WithANNThreshold sets the vector count from which 'reflect reindex'
// builds and checks the HNSW tier; 0 keeps the documented 50,000 (ARCHITECTURE §5).
func WithANNThreshold(n int) OpenOption {
	return func(o *openOptions) { o.annThreshold = n }
}

func (ix *Index) hnswPath() string {
	return filepath.Join(filepath.Dir(ix.path), "hnsw.graph")
}

// buildANN decides the vector search for the current vectors.f32: below
// the threshold the exact scan; above it an HNSW graph is built and used
// only when its recall@10 against the exact scan reaches 0.95 on a sample
// (vector.NewSearcher), in which case it is saved as hnsw.graph.
func (ix *Index) buildANN(ctx context.Context) (*ANNStatus, error) {
	f, err := vector.Open(ix.vectorsPath())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	p := vector.Policy{ANNThreshold: ix.opts.annThreshold}
	s := vector.NewSearcher(f, p)
	st := &ANNStatus{Vectors: f.Len(), Threshold: ix.annThreshold(), Used: s.UsesANN(), Recall: -1, Reason: s.Reason()}
	if r, ok := s.Recall(); ok {
		st.Recall = r
	}
	if st.Used {
		if err := s.ANN().Save(ix.hnswPath()); err != nil {
			return nil, err
		}
	} else if err := os.Remove(ix.hnswPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove hnsw graph: %w", err)
	}
	data, _ := json.Marshal(st)
	if _, err := ix.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key,value) VALUES('ann',?)`, string(data)); err != nil {
		return nil, fmt.Errorf("record ann status: %w", err)
	}
	return st, nil
}

func (ix *Index) annThreshold() int {
	if ix.opts.annThreshold > 0 {
		return ix.opts.annThreshold
	}
	return vector.DefaultPolicy.ANNThreshold
}

// ANN returns the status the last reindex recorded, or nil when none did.
func (ix *Index) ANN(ctx context.Context) (*ANNStatus, error) {
	var data string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='ann'`).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st ANNStatus
	if err := json.Unmarshal([]byte(data), &st); err != nil {
		return nil, nil // unreadable: as if never checked
	}
	return &st, nil
}

// searcher returns how f is searched: through the saved HNSW graph when
// the last reindex found it good enough and f still holds exactly the
// vectors it was built from, else by the exact scan.
func (ix *Index) searcher(ctx context.Context, f *vector.File) *vector.Searcher {
	exact := vector.NewSearcher(f, vector.Policy{ANNThreshold: f.Len() + 1})
	if f.Len() < ix.annThreshold() {
		return exact
	}
	st, err := ix.ANN(ctx)
	if err != nil || st == nil || !st.Used || st.Vectors != f.Len() {
		return exact
	}
	ann, err := vector.LoadANN(ix.hnswPath(), f.Dim())
	if err != nil || ann.Len() != f.Len() {
		return exact
	}
	return vector.WithANN(f, ann, st.Recall, st.Reason)
}
