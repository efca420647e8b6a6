package vector

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"

	"github.com/coder/hnsw"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// HNSWParams tunes the graph. Zero fields take the defaults in
// DefaultHNSWParams.
type HNSWParams struct {
	// M is the most neighbours a node keeps.
	M int
	// EfSearch is how many candidates a search (and an insertion) keeps.
	EfSearch int
	// Ml is the level factor: each layer holds about Ml of the one below.
	Ml float64
	// Seed fixes level generation. (The graph still varies a little between
	// runs: the library picks entry points by map iteration.)
	Seed int64
}

// DefaultHNSWParams are coder/hnsw's defaults with a wider search (its 20
// is tuned for speed, not for the recall the self-check demands) and a
// fixed seed.
var DefaultHNSWParams = HNSWParams{M: 16, EfSearch: 100, Ml: 0.25, Seed: 1}

// ANN is an approximate nearest-neighbour index over a copy of the vectors
// (the graph keeps its vectors, so it must not point into a mapping that
// may be closed), except a Searcher's, which lives no longer than its File.
// Search re-scores its candidates exactly.
type ANN struct {
	g   *hnsw.Graph[uint64]
	dim int
}

// BuildHNSW builds an HNSW graph of rows, which must be non-empty, of one
// dimension, and have unique keys. A panic inside the hnsw library (the
// served versions are known to panic on some inputs) is returned as an
// error.
func BuildHNSW(rows []Row, p HNSWParams) (ann *ANN, err error) {
	return buildHNSW(rows, p, true)
}

// buildHNSW is BuildHNSW; with copyVecs false the graph points into rows'
// vectors instead of a copy of them, so it is valid only while they are
// (a File's mapping: until Close).
func buildHNSW(rows []Row, p HNSWParams, copyVecs bool) (ann *ANN, err error) {
	if len(rows) == 0 {
		return nil, errors.New("hnsw: no vectors")
	}
	p = p.withDefaults()
	dim := len(rows[0].Vec)
	if dim == 0 {
		return nil, errors.New("hnsw: zero-length vectors")
	}
	var backing []float32
	if copyVecs {
		backing = make([]float32, len(rows)*dim)
	}
	nodes := make([]hnsw.Node[uint64], len(rows))
	seen := make(map[uint64]struct{}, len(rows))
	for i, r := range rows {
		if len(r.Vec) != dim {
			return nil, fmt.Errorf("hnsw: row %d has %d components, want %d", i, len(r.Vec), dim)
		}
		// The library replaces a node added twice through Delete, which is
		// where its served versions panic.
		if _, dup := seen[r.Key]; dup {
			return nil, fmt.Errorf("hnsw: key %d appears twice", r.Key)
		}
		seen[r.Key] = struct{}{}
		v := r.Vec[:dim:dim]
		if copyVecs {
			v = backing[i*dim : (i+1)*dim : (i+1)*dim]
			copy(v, r.Vec)
		}
		nodes[i] = hnsw.MakeNode(r.Key, v)
	}
	defer func() {
		if r := recover(); r != nil {
			ann, err = nil, fmt.Errorf("hnsw: build panicked: %v", r)
		}
	}()
	g := hnsw.NewGraph[uint64]()
	g.M, g.EfSearch, g.Ml = p.M, p.EfSearch, p.Ml
	g.Rng = rand.New(rand.NewSource(p.Seed))
	g.Distance = unitCosine
	g.Add(nodes...)
	return &ANN{g: g, dim: dim}, nil
}

// unitCosine is the graph's distance. Vectors are unit length, so 1 - dot
// is the cosine distance without the library recomputing both norms on
// every comparison. It is registered by name so a graph can be saved.
func unitCosine(a, b []float32) float32 { return 1 - dot(a, b) }

const unitCosineName = "reflect-unit-cosine"

func init() { hnsw.RegisterDistanceFunc(unitCosineName, unitCosine) }

// Save writes the graph to path atomically (temp file and rename),
// streamed: the export holds every layer's vectors, over 100 MB at
// 100,000 learnings, which a buffer in memory would add to the peak of a
// reindex (docs/benchmarks.md).
func (a *ANN) Save(path string) error {
	if err := fsutil.WriteAtomicFunc(path, fsutil.FilePerm, a.g.Export); err != nil {
		return fmt.Errorf("save hnsw graph: %w", err)
	}
	return nil
}

// LoadANN reads a graph written by Save for vectors of dim components. A
// panic inside the library while decoding a damaged file is returned as an
// error.
func LoadANN(path string, dim int) (ann *ANN, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load hnsw graph: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			ann, err = nil, fmt.Errorf("load hnsw graph %s: damaged (%v)", path, r)
		}
	}()
	g := hnsw.NewGraph[uint64]()
	if err := g.Import(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("load hnsw graph %s: %w", path, err)
	}
	if g.Len() > 0 && g.Dims() != dim {
		return nil, fmt.Errorf("load hnsw graph %s: %d dimensions, want %d", path, g.Dims(), dim)
	}
	return &ANN{g: g, dim: dim}, nil
}

func (p HNSWParams) withDefaults() HNSWParams {
	d := DefaultHNSWParams
	if p.M > 0 {
		d.M = p.M
	}
	if p.EfSearch > 0 {
		d.EfSearch = p.EfSearch
	}
	if p.Ml > 0 && p.Ml < 1 {
		d.Ml = p.Ml
	}
	if p.Seed != 0 {
		d.Seed = p.Seed
	}
	return d
}

// Len returns the number of vectors in the graph.
func (a *ANN) Len() int { return a.g.Len() }

// Search returns up to k approximate nearest neighbours of q, best first,
// scored exactly (dot product). A panic inside the library is returned as
// an error.
func (a *ANN) Search(q []float32, k int) (hits []Hit, err error) {
	if len(q) != a.dim || k <= 0 || !finite(q) {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			hits, err = nil, fmt.Errorf("hnsw: search panicked: %v", r)
		}
	}()
	nodes := a.g.Search(q, k)
	t := newTopK(k)
	for _, n := range nodes {
		t.push(Hit{Key: n.Key, Score: dot(q, n.Value)})
	}
	return t.sorted(), nil
}

// SelfCheck measures the ANN's recall@k against exact search of file: it
// queries both with sample stored vectors spread evenly over the file and
// returns the mean fraction of the exact top k that the ANN also returns.
// ann must have been built from file's rows. Any failure of the ANN,
// including a panic, counts as recall 0, since the check exists to keep a
// broken index out of use.
func SelfCheck(ann *ANN, file *File, sample, k int) (recall float64) {
	if ann == nil || file == nil || file.Len() == 0 || sample <= 0 || k <= 0 {
		return 0
	}
	defer func() {
		if r := recover(); r != nil {
			recall = 0
		}
	}()
	sample = min(sample, file.Len())
	found, want := 0, 0
	for s := range sample {
		q := file.Vector(s * file.Len() / sample)
		exact := file.Search(q, k, nil)
		approx, err := ann.Search(q, k)
		if err != nil {
			return 0
		}
		in := make(map[uint64]bool, len(approx))
		for _, h := range approx {
			in[h.Key] = true
		}
		for _, h := range exact {
			if in[h.Key] {
				found++
			}
		}
		want += len(exact)
	}
	if want == 0 {
		return 0
	}
	return float64(found) / float64(want)
}

// Rows returns every row of f, with vectors pointing into the mapping
// (valid until Close).
func (f *File) Rows() []Row {
	rows := make([]Row, f.count)
	for i := range rows {
		rows[i] = Row{Key: f.Key(i), Vec: f.Vector(i)}
	}
	return rows
}

// Policy decides between the exact scan and the HNSW tier. Zero fields take
// the defaults in DefaultPolicy.
type Policy struct {
	// ANNThreshold is the number of vectors from which an ANN is tried
	// (config: ann_threshold).
	ANNThreshold int
	// MinRecall is the recall@K the ANN must reach in SelfCheck to be used.
	MinRecall float64
	// Sample is how many stored vectors SelfCheck uses as queries.
	Sample int
	// K is the k of the recall@k measured.
	K int
	// HNSW tunes the graph.
	HNSW HNSWParams
}

// DefaultPolicy follows ARCHITECTURE §5: an ANN only from 50,000 vectors, and
// only with recall@10 ≥ 0.95.
var DefaultPolicy = Policy{ANNThreshold: 50000, MinRecall: 0.95, Sample: 200, K: 10}

func (p Policy) withDefaults() Policy {
	d := DefaultPolicy
	if p.ANNThreshold > 0 {
		d.ANNThreshold = p.ANNThreshold
	}
	if p.MinRecall > 0 {
		d.MinRecall = p.MinRecall
	}
	if p.Sample > 0 {
		d.Sample = p.Sample
	}
	if p.K > 0 {
		d.K = p.K
	}
	d.HNSW = p.HNSW
	return d
}

// annOversample is how many more candidates than asked for Searcher takes
// from the ANN, so that a filter rejecting some of them still leaves k.
const annOversample = 4

// Searcher searches a vector file with the exact scan or, when the file is
// large enough and the HNSW tier passed its self-check, with the ANN. It
// says which and why, for `reflect doctor`. It is safe for concurrent use.
type Searcher struct {
	file   *File
	ann    *ANN
	recall float64
	reason string
}

// NewSearcher chooses how to search f under p. Above the threshold it
// builds the HNSW graph and runs SelfCheck, which costs time proportional
// to the file (call it at reindex, not per query); below it, it costs
// nothing. The Searcher, and the graph its ANN method returns, are valid
// only while f is open.
func NewSearcher(f *File, p Policy) *Searcher {
	p = p.withDefaults()
	s := &Searcher{file: f, recall: -1}
	if f.Len() < p.ANNThreshold {
		s.reason = fmt.Sprintf("exact scan: %s vectors below ann_threshold %s", thousands(f.Len()), thousands(p.ANNThreshold))
		return s
	}
	// A Searcher reads f (the exact scan, re-scoring) and is valid only
	// while f is open, so its graph may point into f's mapping: a copy
	// would add the whole file to the heap, 100 MB at 100,000 learnings,
	// beside the mapped pages (docs/benchmarks.md). The library only
	// reads a node's vector.
	ann, err := buildHNSW(f.Rows(), p.HNSW, false)
	if err != nil {
		s.reason = "exact scan: " + err.Error()
		return s
	}
	s.recall = SelfCheck(ann, f, p.Sample, p.K)
	if s.recall < p.MinRecall {
		s.reason = fmt.Sprintf("exact scan: hnsw self-check recall@%d = %.3f < %.2f", p.K, s.recall, p.MinRecall)
		return s
	}
	s.ann = ann
	s.reason = fmt.Sprintf("hnsw: self-check recall@%d = %.3f ≥ %.2f over %s vectors", p.K, s.recall, p.MinRecall, thousands(f.Len()))
	return s
}

// Search returns the k best rows for q as File.Search does. With the ANN in
// use, its candidates are filtered and re-scored exactly; if it fails or
// too few candidates pass the filter, the exact scan answers instead.
func (s *Searcher) Search(q []float32, k int, filter func(key uint64) bool) []Hit {
	if s.ann == nil || k <= 0 {
		return s.file.Search(q, k, filter)
	}
	cand, err := s.ann.Search(q, k*annOversample)
	if err != nil {
		return s.file.Search(q, k, filter)
	}
	kept := cand[:0]
	for _, h := range cand {
		if (filter == nil || filter(h.Key)) && !s.removed(h.Key) {
			kept = append(kept, h)
		}
	}
	if len(kept) < min(k, s.file.Len()) {
		return s.file.Search(q, k, filter)
	}
	return kept[:min(k, len(kept))]
}

// removed reports whether key's row in the file is a tombstone (Patch
// zeroed it): the graph keeps its own copy of the vector, which would
// still be found.
func (s *Searcher) removed(key uint64) bool {
	i, ok := s.file.Find(key)
	return ok && !slices.ContainsFunc(s.file.Vector(i), func(x float32) bool { return x != 0 })
}

// WithANN returns a Searcher that answers through ann, a graph of f's
// rows that passed its self-check with recall when it was built (saved by
// Save, loaded by LoadANN), as NewSearcher would have decided.
func WithANN(f *File, ann *ANN, recall float64, reason string) *Searcher {
	return &Searcher{file: f, ann: ann, recall: recall, reason: reason}
}

// ANN returns the graph in use, or nil with the exact scan.
func (s *Searcher) ANN() *ANN { return s.ann }

// UsesANN reports whether searches go through the HNSW tier.
func (s *Searcher) UsesANN() bool { return s.ann != nil }

// Recall returns the self-check's recall@k, and false when no check ran.
func (s *Searcher) Recall() (float64, bool) { return s.recall, s.recall >= 0 }

// Reason says which search is used and why, e.g. "exact scan: 8,000
// vectors below ann_threshold 50,000".
func (s *Searcher) Reason() string { return s.reason }

// thousands formats n with comma separators, as the reasons are read by
// people.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
