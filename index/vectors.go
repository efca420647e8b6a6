package index

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/index/vector"
)

// Embeddings live in the catalog's vectors table, written in the same
// transaction as the documents they belong to, so a crash never leaves a
// vector for a learning that is not indexed, or the reverse for long: a
// learning without a vector is embedded by the next update. After every
// update that changed them they are exported to vectors.f32, the flat file
// a search maps and scans (package vector); the file is derived from the
// table. A recomputable embedder's rows hold an empty blob: the table then
// says which learnings have a vector, and their floats are made again
// from the documents whenever the table is read (tableVector), so
// vectors.f32 is their only stored copy. A full or incremental Update
// rewrites the file whole (patched from its
// previous version when few rows changed), by rename, so a reader's
// mapping stays valid; a targeted update (a Change) patches it in place
// instead, appending rows and zeroing removed ones (vectortargeted.go,
// vector.Patch), under a file lock that readers opening it respect.
const vectorsSchema = `CREATE TABLE IF NOT EXISTS vectors(n INTEGER PRIMARY KEY, v BLOB NOT NULL)`

// minCosine is the similarity below which a vector hit is noise and not
// a candidate: texts that share no words still share a few hashed
// features. (See docs/ranking.md, Retrieval quality, for how it was chosen.)
const minCosine = 0.15

// embedBatch is how many learnings are embedded per Embed call.
const embedBatch = 64

// WithEmbedder sets the embedder of the vector signal. Without one, updates
// store no vectors and searches use the lexical and graph signals only.
func WithEmbedder(e embed.Embedder) OpenOption {
	return func(o *openOptions) { o.embedder = e }
}

// WithVectorWeight sets the vector signal's fusion weight; 0 keeps the
// embedder's default (HashVectorWeight for hash, ModelVectorWeight for a
// model).
func WithVectorWeight(w float64) OpenOption {
	return func(o *openOptions) { o.vectorWeight = w }
}

func (ix *Index) vectorWeight() float64 {
	switch {
	case ix.opts.vectorWeight > 0:
		return ix.opts.vectorWeight
	case ix.opts.embedder != nil && ix.opts.embedder.Name() == embed.ProviderHash:
		return HashVectorWeight
	default:
		return ModelVectorWeight
	}
}

// QueryEmbedding controls whether a search may embed its query: a hook
// must never call the network, so it passes false when the embedder is a
// remote one. The vector signal is then left out of that search.
func QueryEmbedding(allowed bool) OpenOption {
	return func(o *openOptions) { o.noQueryEmbedding = !allowed }
}

// embedderID names the vector space: provider, feature scheme or model,
// and dimension. Vectors made under another id are re-embedded.
func embedderID(e embed.Embedder) string {
	return fmt.Sprintf("%s/%s/%d", e.Name(), e.Version(), e.Dim())
}

func (ix *Index) vectorsPath() string {
	return filepath.Join(filepath.Dir(ix.path), "vectors.f32")
}

// embedMissing embeds, inside the update's transaction, every indexed
// learning that has no vector under the current embedder: those just added
// or changed, all of them after the embedder changed, and any a crashed or
// embedder-less update left behind. It returns the rows it embedded, and
// whether it first emptied the table because the embedder changed. When it
// embedded every row of an empty table with a recomputable embedder (a
// full reindex, a new embedder), it wrote them to a new vectors.f32 as it
// went, returned uncommitted in file: the export would otherwise embed
// every learning a second time, reading each back from its markdown.
func (ix *Index) embedMissing(ctx context.Context, tx *sql.Tx, progress func(done, total int), known map[int64]string) (added []int64, respaced bool, file *vector.Writer, err error) {
	defer func() {
		if err != nil && file != nil {
			file.Abort()
			file = nil
		}
	}()
	e := ix.opts.embedder
	if e == nil {
		return nil, false, nil, nil
	}
	var stored string
	err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='embedder'`).Scan(&stored)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil, fmt.Errorf("reindex: vectors: %w", err)
	}
	// A remote embedder learns its dimension from its first answer, so its
	// id is only known once something was embedded.
	if id := embedderID(e); e.Dim() > 0 && stored != id {
		if _, err := tx.ExecContext(ctx, `DELETE FROM vectors`); err != nil {
			return nil, false, nil, fmt.Errorf("reindex: vectors: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key,value) VALUES('embedder',?)`, id); err != nil {
			return nil, false, nil, fmt.Errorf("reindex: vectors: %w", err)
		}
		respaced = stored != ""
	}
	// The texts are read a batch at a time, not all at once: after a full
	// reindex every learning needs a vector, and holding all their texts
	// was a quarter of a gigabyte at 100,000 learnings.
	const missing = `FROM docs d WHERE d.n NOT IN (SELECT n FROM vectors)`
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) `+missing).Scan(&total); err != nil {
		return nil, false, nil, fmt.Errorf("reindex: vectors: %w", err)
	}
	if total == 0 {
		return nil, respaced, nil, nil
	}
	ins, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vectors(n, v) VALUES(?,?)`)
	if err != nil {
		return nil, false, nil, fmt.Errorf("reindex: vectors: %w", err)
	}
	defer ins.Close()
	if file, err = ix.newVectorFile(ctx, tx, e); err != nil {
		return nil, false, nil, err
	}
	var ns []int64
	for last := int64(0); ; {
		if progress != nil {
			progress(len(ns), total)
		}
		batch, texts, err := missingTexts(ctx, tx, known, last, embedBatch)
		if err != nil {
			return nil, false, nil, err
		}
		if len(batch) == 0 {
			break
		}
		last = batch[len(batch)-1]
		vecs, err := e.Embed(ctx, texts)
		if err != nil {
			return nil, false, nil, fmt.Errorf("reindex: embed with %s: %w", e.Name(), err)
		}
		if len(vecs) != len(batch) {
			return nil, false, nil, fmt.Errorf("reindex: embed with %s: %d vectors for %d texts", e.Name(), len(vecs), len(batch))
		}
		for i, v := range vecs {
			if _, err := ins.ExecContext(ctx, batch[i], ix.storedVector(v)); err != nil {
				return nil, false, nil, fmt.Errorf("reindex: vectors: %w", err)
			}
			if file != nil && file.Add(uint64(batch[i]), v) != nil {
				// Aborted (a vector the file refuses): the export
				// writes the file from the table instead, and reports it.
				file = nil
			}
		}
		ns = append(ns, batch...)
	}
	if progress != nil {
		progress(len(ns), len(ns))
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key,value) VALUES('embedder',?)`, embedderID(e)); err != nil {
		return nil, false, nil, fmt.Errorf("reindex: vectors: %w", err)
	}
	return ns, respaced, file, nil
}

// missingTexts reads up to limit learnings after row last that have no
// vector yet, with the text each is embedded from, read back from its
// markdown (the catalog keeps no copy of the body: text.go); one that
// cannot be read is embedded from its title and key insight.
func missingTexts(ctx context.Context, tx *sql.Tx, known map[int64]string, last int64, limit int) ([]int64, []string, error) {
	return loadTexts(ctx, tx, known, `d.n > ? AND d.n NOT IN (SELECT n FROM vectors) ORDER BY d.n LIMIT ?`, last, limit)
}

// loadTexts reads the learnings the condition cond (on docs d) selects,
// with the text each is embedded from: the one query both a full update's
// embedding and a targeted one's read their texts with.
// known are texts already at hand, by row (writer.texts): not read again.
func loadTexts(ctx context.Context, tx *sql.Tx, known map[int64]string, cond string, args ...any) ([]int64, []string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT d.n, d.path, d.title, d.key_insight FROM docs d
		WHERE `+cond, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("reindex: vectors: %w", err)
	}
	defer rows.Close()
	var ns []int64
	var texts []string
	for rows.Next() {
		var n int64
		var path, title, insight string
		if err := rows.Scan(&n, &path, &title, &insight); err != nil {
			return nil, nil, err
		}
		ns = append(ns, n)
		if t, ok := known[n]; ok {
			texts = append(texts, t)
			continue
		}
		texts = append(texts, docText(path, title, insight))
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("reindex: vectors: %w", err)
	}
	return ns, texts, nil
}

// docText is the text the learning at path is embedded from, read back
// from its markdown; one that cannot be read is embedded from its title
// and key insight.
func docText(path, title, insight string) string {
	f, err := readFields(path)
	if err != nil {
		f = [numFields]string{title, insight}
	}
	return embedText(f[0], f[1], f[2], f[3])
}

// embedText is what a learning's vector is made of: every indexed field.
func embedText(title, insight, tags, body string) string {
	return strings.Join([]string{title, insight, tags, body}, "\n")
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	decodeInto(v, b)
	return v
}

// decodeInto decodes b's little-endian floats into v, which holds len(b)/4.
func decodeInto(v []float32, b []byte) {
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// vectorChanges is what an update did to the vectors table.
type vectorChanges struct {
	full     bool           // a rebuild: every row is new
	respaced bool           // the embedder changed: every vector was dropped
	gone     []int64        // rows removed (their learning was deleted or changed)
	added    []int64        // rows embedded
	file     *vector.Writer // every row's vector, written as embedded (embedMissing), to commit
}

// abort drops the vector file an update wrote and did not commit.
func (c vectorChanges) abort() {
	if c.file != nil {
		c.file.Abort()
	}
}

func (c vectorChanges) any() bool {
	return c.full || c.respaced || len(c.gone) > 0 || len(c.added) > 0
}

// exportVectors rewrites vectors.f32 when the update changed the vectors
// table or the file does not match it (missing, damaged, another embedder,
// or another count after a crash between commit and export). A small change
// patches the previous file (patchVectors); anything else, or a patch that
// finds the file out of step with the table, rewrites it from the table.
func (ix *Index) exportVectors(ctx context.Context, ch vectorChanges) error {
	e := ix.opts.embedder
	if e == nil {
		return nil
	}
	if ch.file != nil {
		// Written as embedded: it holds every row of the table.
		exported(false)
		beforeVectorWrite()
		if err := ch.file.Commit(); err != nil {
			return fmt.Errorf("vectors: %w", err)
		}
		return ix.installedVectors()
	}
	var stored string
	if err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='embedder'`).Scan(&stored); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil // nothing embedded yet
		}
		return fmt.Errorf("vectors: %w", err)
	}
	var count int
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM vectors`).Scan(&count); err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	path := ix.vectorsPath()
	if !ch.any() {
		if f, err := vector.Open(path); err == nil {
			// Damaged floats (NaN, Inf) are rewritten from the table.
			ok := f.Len() == count && fileEmbedderID(f.Header()) == stored && f.NonFinite() == 0
			codes := f.CodesProblem()
			f.Close()
			if ok {
				// Codes missing (a file from before they existed) or
				// made from another version of the file are made anew
				// from the file; without them searches scan the floats.
				if codes != "" {
					_ = ix.rewriteCodes()
				}
				return nil
			}
		} else if count == 0 && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	if !ch.full && !ch.respaced && len(ch.added) <= max(patchMin, count/4) {
		// In place first: a refresh that picked up a pulled learning
		// then costs its own rows, not a rewrite of the file (100 MB at
		// 100,000 learnings). Not over damaged rows, which only a
		// rewrite repairs, nor when nothing changed (the file is then
		// damaged or out of step, or it would have been kept above).
		if ch.any() && finiteFile(path) {
			rows, err := ix.readVectors(ctx, stored, ch.added, 0)
			if err != nil {
				return err
			}
			if ok, err := ix.patchVectorsInPlace(ctx, rows, ch.gone); ok || err != nil {
				return err
			}
		}
		done, err := ix.patchVectors(ctx, path, stored, ch)
		if err != nil {
			return err
		}
		if done {
			exported(true)
			return nil
		}
	}
	exported(false)
	return ix.streamVectors(ctx, path, stored, max(e.Dim(), 1))
}

// streamVectors rewrites vectors.f32 from the vectors table, writing each
// row as it is read (made again from its learning when the table keeps
// none: tableVector): decoding every vector first was 100 MB of heap at
// 100,000 learnings, the largest left in a full reindex (docs/benchmarks.md).
// The first row sets the dimension (emptyDim when the table is empty);
// rows of another are skipped, as they are not of this space and the next
// full reindex re-embeds them. A failure midway leaves the old file.
func (ix *Index) streamVectors(ctx context.Context, path, stored string, emptyDim int) error {
	rows, err := ix.db.QueryContext(ctx, vectorRowsQuery+` ORDER BY v.n`)
	if err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	defer rows.Close()
	name, version := splitEmbedderID(stored)
	var w *vector.Writer
	defer func() {
		if w != nil {
			w.Abort()
		}
	}()
	var buf []float32
	dim := 0
	for rows.Next() {
		var n int64
		var b sql.RawBytes
		var p, title, insight sql.NullString
		if err := rows.Scan(&n, &b, &p, &title, &insight); err != nil {
			return fmt.Errorf("vectors: %w", err)
		}
		v, ok, err := ix.tableVector(ctx, stored, b, p, title, insight, buf)
		if err != nil {
			return err
		}
		if !ok {
			continue // not of this space; the next full reindex rewrites it
		}
		if w == nil {
			dim = len(v)
			if w, err = vector.Create(path, vector.Header{Dim: dim, Embedder: name, EmbedderVersion: version}); err != nil {
				return fmt.Errorf("vectors: %w", err)
			}
		}
		if len(b) > 0 {
			buf = v
		}
		if len(v) != dim {
			continue // not of this space; the next full reindex rewrites it
		}
		if err := w.Add(uint64(n), v); err != nil {
			return fmt.Errorf("vectors: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	if w == nil {
		if w, err = vector.Create(path, vector.Header{Dim: emptyDim, Embedder: name, EmbedderVersion: version}); err != nil {
			return fmt.Errorf("vectors: %w", err)
		}
	}
	beforeVectorWrite()
	if err := w.Commit(); err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	return ix.installedVectors()
}

// exported is told how each export was written (tests watch it).
var exported = func(patched bool) {}

// patchMin is the number of new vectors up to which an update always
// patches the previous file; above it, up to a quarter of the table.
const patchMin = 256

// patchVectors writes vectors.f32 from the previous file: its rows minus
// those the update removed, plus the vectors it added, read from the table.
// Reading every vector back from SQLite was most of an incremental
// reindex's export (docs/benchmarks.md). Row numbers are
// never reused (docs is AUTOINCREMENT, and a rebuild removes the file), so
// a row number names one learning's text under one embedder: when the
// patched rows have exactly the table's row numbers, they are the table's
// vectors. Otherwise (the last export was lost to a crash, or raced with
// another process's) it reports false and the caller rewrites the file.
func (ix *Index) patchVectors(ctx context.Context, path, stored string, ch vectorChanges) (bool, error) {
	old, err := vector.Open(path)
	if err != nil {
		return false, nil
	}
	// The rows below point into old's mapping until the new file is written.
	defer old.Close()
	if fileEmbedderID(old.Header()) != stored || old.NonFinite() > 0 {
		return false, nil
	}
	dim := old.Dim()
	drop := make(map[uint64]bool, len(ch.gone)+len(ch.added))
	for _, n := range ch.gone {
		drop[uint64(n)] = true
	}
	for _, n := range ch.added {
		drop[uint64(n)] = true
	}
	out := make([]vector.Row, 0, old.Len()+len(ch.added))
	for i := range old.Len() {
		// A zero vector is a tombstone patchVectorsInPlace left: its row
		// is gone from the table, and from the new file.
		if k := old.Key(i); !drop[k] && !zero(old.Vector(i)) {
			out = append(out, vector.Row{Key: k, Vec: old.Vector(i)})
		}
	}
	added, err := ix.readVectors(ctx, stored, ch.added, dim)
	if err != nil {
		return false, err
	}
	out = append(out, added...)
	slices.SortFunc(out, func(a, b vector.Row) int { return cmp.Compare(a.Key, b.Key) })
	same, err := sameKeys(ctx, ix.db, out)
	if err != nil || !same {
		return false, err
	}
	return true, ix.writeVectors(path, stored, dim, out)
}

// finiteFile reports whether the vector file at path opens and holds no
// NaN or infinite value (one pass over it, its pages handed back).
func finiteFile(path string) bool {
	f, err := vector.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.NonFinite() == 0
}

// readVectors reads the rows ns of the vectors table (tableVector), sorted
// by row number; with dim > 0, only vectors of that length.
func (ix *Index) readVectors(ctx context.Context, stored string, ns []int64, dim int) ([]vector.Row, error) {
	var out []vector.Row
	for lo := 0; lo < len(ns); lo += maxParams {
		part := ns[lo:min(lo+maxParams, len(ns))]
		args := make([]any, len(part))
		for i, n := range part {
			args[i] = n
		}
		rows, err := ix.db.QueryContext(ctx, vectorRowsQuery+` WHERE v.n IN (?`+strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("vectors: %w", err)
		}
		for rows.Next() {
			var n int64
			var b []byte
			var p, title, insight sql.NullString
			if err := rows.Scan(&n, &b, &p, &title, &insight); err != nil {
				rows.Close()
				return nil, fmt.Errorf("vectors: %w", err)
			}
			v, ok, err := ix.tableVector(ctx, stored, b, p, title, insight, nil)
			if err != nil {
				rows.Close()
				return nil, err
			}
			if ok && (dim <= 0 || len(v) == dim) {
				out = append(out, vector.Row{Key: uint64(n), Vec: v})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("vectors: %w", err)
		}
	}
	slices.SortFunc(out, func(a, b vector.Row) int { return cmp.Compare(a.Key, b.Key) })
	return out, nil
}

// zero reports whether v is all zeros (a tombstone).
func zero(v []float32) bool {
	return !slices.ContainsFunc(v, func(x float32) bool { return x != 0 })
}

// maxParams bounds the parameters of one statement, well under SQLite's
// limit.
const maxParams = 500

// sameKeys reports whether rows, sorted by key, hold exactly the vectors
// table's row numbers.
func sameKeys(ctx context.Context, db *sql.DB, rows []vector.Row) (bool, error) {
	res, err := db.QueryContext(ctx, `SELECT n FROM vectors ORDER BY n`)
	if err != nil {
		return false, fmt.Errorf("vectors: %w", err)
	}
	defer res.Close()
	i := 0
	for res.Next() {
		var n int64
		if err := res.Scan(&n); err != nil {
			return false, fmt.Errorf("vectors: %w", err)
		}
		if i >= len(rows) || rows[i].Key != uint64(n) {
			return false, nil
		}
		i++
	}
	if err := res.Err(); err != nil {
		return false, fmt.Errorf("vectors: %w", err)
	}
	return i == len(rows), nil
}

// beforeVectorWrite runs when an export has read what it will write (tests
// stall it there to race two exports).
var beforeVectorWrite = func() {}

// writeVectors replaces vectors.f32 and drops this Index's mapping of the
// old one.
func (ix *Index) writeVectors(path, stored string, dim int, rows []vector.Row) error {
	beforeVectorWrite()
	name, version := splitEmbedderID(stored)
	if err := vector.Write(path, vector.Header{Dim: dim, Embedder: name, EmbedderVersion: version}, rows); err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	return ix.installedVectors()
}

// installedVectors drops this Index's mapping of the vectors.f32 a new one
// replaced, and the tombstone count of the old.
func (ix *Index) installedVectors() error {
	ix.closeVectors()
	// The new file has no tombstones (patchVectorsInPlace counts them).
	if _, err := ix.db.Exec(`DELETE FROM meta WHERE key='vector_tombstones'`); err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	return nil
}

// splitEmbedderID turns "name/version/dim" into the file header's name and
// version ("version/dim", so the file alone names the whole space).
func splitEmbedderID(id string) (name, version string) {
	name, version, _ = strings.Cut(id, "/")
	return name, version
}

func fileEmbedderID(h vector.Header) string {
	return h.Embedder + "/" + h.EmbedderVersion
}

// vectorFile maps vectors.f32 once per Index, and only when it belongs to
// the configured embedder: vectors from another space would rank noise.
func (ix *Index) vectorFile() *vector.File {
	ix.vecMu.Lock()
	defer ix.vecMu.Unlock()
	if ix.vecLoaded {
		return ix.vecFile
	}
	ix.vecLoaded = true
	e := ix.opts.embedder
	if e == nil {
		return nil
	}
	f, err := vector.Open(ix.vectorsPath())
	if err != nil {
		return nil
	}
	h := f.Header()
	if h.Embedder != e.Name() || !strings.HasPrefix(h.EmbedderVersion, e.Version()+"/") || (e.Dim() > 0 && h.Dim != e.Dim()) {
		f.Close()
		return nil
	}
	ix.vecFile = f
	return f
}

func (ix *Index) closeVectors() {
	ix.vecMu.Lock()
	defer ix.vecMu.Unlock()
	if ix.vecFile != nil {
		ix.vecFile.Close()
	}
	ix.vecFile, ix.vecLoaded = nil, false
}

// vectorRerank ranks the learnings ns by the cosine of their vector with
// the query's, looking each up in vectors.f32 instead of scanning it.
func (ix *Index) vectorRerank(ctx context.Context, text string, ns []int64) ([]hit, error) {
	q, f, err := ix.queryVector(ctx, text)
	if q == nil || err != nil {
		return nil, err
	}
	keys := make([]uint64, len(ns))
	for i, n := range ns {
		keys[i] = uint64(n)
	}
	return toHits(f.Score(q, keys)), nil
}

// queryVector embeds the query for the vector file in use; nil when the
// vector signal is off for this index.
func (ix *Index) queryVector(ctx context.Context, text string) ([]float32, *vector.File, error) {
	if ix.opts.embedder == nil || ix.opts.noQueryEmbedding {
		return nil, nil, nil
	}
	f := ix.vectorFile()
	if f == nil || f.Len() == 0 {
		return nil, nil, nil
	}
	vecs, err := ix.opts.embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, nil, fmt.Errorf("search: embed query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, nil, nil
	}
	return vecs[0], f, nil
}

// toHits keeps the vector hits above minCosine, in order.
func toHits(found []vector.Hit) []hit {
	out := make([]hit, 0, len(found))
	for _, h := range found {
		if float64(h.Score) < minCosine {
			break
		}
		out = append(out, hit{n: int64(h.Key), score: float64(h.Score)})
	}
	return out
}

// vectorHits ranks learnings by the cosine of their vector with the
// query's. It returns nothing (and no error) when there is no embedder, no
// vector file for it, or the query may not be embedded here.
func (ix *Index) vectorHits(ctx context.Context, text string, limit int) ([]hit, error) {
	q, f, err := ix.queryVector(ctx, text)
	if q == nil || err != nil {
		return nil, err
	}
	// Rows Patch removed are zero vectors: they score 0, below minCosine.
	return toHits(f.Search(q, limit, nil)), nil
}

// VectorFileProblem describes what is wrong with vectors.f32, or returns ""
// when it matches the vectors table (or there are none): missing, not a
// regular file, damaged, of another embedder, out of step with the table,
// or holding NaN/Inf values. Each is repaired by 'reflect reindex', which
// rewrites the file from the table (a recomputable embedder's vectors made
// again from the documents); until then searches go on without the
// vector signal or with the rows as they are.
func (ix *Index) VectorFileProblem(ctx context.Context) (string, error) {
	if ix.opts.embedder == nil {
		return "", nil
	}
	var stored string
	if err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='embedder'`).Scan(&stored); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		return "", err
	}
	var count int
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM vectors`).Scan(&count); err != nil {
		return "", err
	}
	path := ix.vectorsPath()
	f, err := vector.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && count == 0:
		return "", nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s is missing (%d vectors in the catalog)", path, count), nil
	case err != nil:
		return err.Error(), nil
	}
	defer f.Close()
	if id := fileEmbedderID(f.Header()); id != stored {
		return fmt.Sprintf("%s holds vectors of %s, the catalog of %s", path, id, stored), nil
	}
	if f.Len() != count {
		// Rows of removed learnings zeroed in place (patchVectorsInPlace)
		// are not a problem: the next rewrite drops them.
		if dead := f.Tombstones(); f.Len()-dead != count {
			return fmt.Sprintf("%s holds %d vectors (%d of removed learnings), the catalog %d", path, f.Len(), dead, count), nil
		}
	}
	if n := f.NonFinite(); n > 0 {
		return fmt.Sprintf("%s: %d vector(s) hold NaN or infinite values", path, n), nil
	}
	return "", nil
}

// VectorCount returns how many learnings have a vector in the catalog.
func (ix *Index) VectorCount(ctx context.Context) (int, error) {
	var n int
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM vectors`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count vectors: %w", err)
	}
	return n, nil
}

// retiredGraph is the HNSW graph earlier versions saved beside
// vectors.f32 (up to schema 12) and nothing reads any more: built in
// memory by each reindex and loaded whole by each process that searched,
// it cost more than the exact scan it was meant to beat (ARCHITECTURE §5,
// docs/benchmarks.md "Scale").
const retiredGraph = "hnsw.graph"

// dropRetired removes the retired graph file and the catalog's record of
// it, so that an upgraded index holds nothing dead.
func (ix *Index) dropRetired(ctx context.Context) error {
	path := filepath.Join(filepath.Dir(ix.path), retiredGraph)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	if _, err := ix.db.ExecContext(ctx, `DELETE FROM meta WHERE key='ann'`); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	return nil
}
