package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/index/vector"
)

// The hash embedder's vectors are recomputable: the vectors table keeps a
// row per learning (an empty blob) and vectors.f32 the only copy of the
// floats, which an export or a crash repair makes again from the
// learnings' markdown (tableVector), and a rebuild writes as it embeds
// (newVectorFile).

// recomputable reports whether e's vectors can be made again from the
// documents at any time instead of being kept in the vectors table: the
// hash embedder is deterministic, local and cheap, and its copy in the
// table was the largest part of the catalog on a KB of short learnings.
// A model's vectors are kept: making them again is a network call, or
// minutes of a local model, that nobody asked for at that moment.
func recomputable(e embed.Embedder) bool {
	return e != nil && e.Name() == embed.ProviderHash
}

// dropRecomputableVectors copies the vectors table of a catalog whose
// vectors the hash embedder made (recomputable) without their floats,
// which schema 17 and before kept. A copy, not an UPDATE in place: that
// left every page of the table in use, each holding a few rows of a few
// bytes, where the copy hands them back to the catalog's free list.
var dropRecomputableVectors = []string{
	`DROP TABLE IF EXISTS vectors_new`,
	strings.Replace(vectorsSchema, "IF NOT EXISTS vectors(", "vectors_new(", 1),
	`INSERT INTO vectors_new(n, v) SELECT n, x'' FROM vectors`,
	`DROP TABLE vectors`,
	`ALTER TABLE vectors_new RENAME TO vectors`,
}

// storedRecomputable reports whether the catalog's vectors were made by a
// recomputable embedder (the one named in meta.embedder).
func storedRecomputable(ctx context.Context, db *sql.DB) (bool, error) {
	var stored string
	err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'embedder'`).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	name, _, _ := strings.Cut(stored, "/")
	return name == embed.ProviderHash, err
}

// storedVector is what the vectors table keeps of v: nothing but the row
// for a recomputable embedder (tableVector makes it again), its floats
// otherwise.
func (ix *Index) storedVector(v []float32) []byte {
	if recomputable(ix.opts.embedder) {
		return []byte{}
	}
	return encodeVector(v)
}

// newVectorFile starts a new vectors.f32 for embedMissing to write as it
// embeds, when e is recomputable and the vectors table is empty, so that
// every row it will hold is one embedMissing adds, in increasing row order;
// otherwise it returns nil.
func (ix *Index) newVectorFile(ctx context.Context, tx *sql.Tx, e embed.Embedder) (*vector.Writer, error) {
	if !recomputable(e) {
		return nil, nil
	}
	var rows int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM vectors LIMIT 1)`).Scan(&rows); err != nil || rows > 0 {
		return nil, err
	}
	name, version := splitEmbedderID(embedderID(e))
	w, err := vector.Create(ix.vectorsPath(), vector.Header{Dim: e.Dim(), Embedder: name, EmbedderVersion: version})
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	return w, nil
}

// vectorRowsQuery selects the vectors table's rows with what making an empty
// one's vector again needs: its learning's file, title and key insight.
const vectorRowsQuery = `SELECT v.n, v.v, d.path, d.title, d.key_insight FROM vectors v LEFT JOIN docs d ON d.n = v.n`

// tableVector is the vector a row of the vectors table stands for: its
// blob decoded (into buf when it is long enough), or for an empty blob,
// stored by a recomputable embedder, its learning embedded again. ok is
// false for an empty blob this index cannot make again (another embedder
// than the one that stored it, or no learning): like a blob of another
// length, not a vector of this space.
func (ix *Index) tableVector(ctx context.Context, stored string, b []byte, path, title, insight sql.NullString, buf []float32) (v []float32, ok bool, err error) {
	if len(b) > 0 {
		if cap(buf) < len(b)/4 {
			buf = make([]float32, len(b)/4)
		}
		buf = buf[:len(b)/4]
		decodeInto(buf, b)
		return buf, true, nil
	}
	e := ix.opts.embedder
	if !recomputable(e) || embedderID(e) != stored || !path.Valid {
		return nil, false, nil
	}
	vecs, err := e.Embed(ctx, []string{docText(path.String, title.String, insight.String)})
	if err != nil {
		return nil, false, fmt.Errorf("vectors: embed with %s: %w", e.Name(), err)
	}
	if len(vecs) != 1 {
		return nil, false, nil
	}
	return vecs[0], true, nil
}
