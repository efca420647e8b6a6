package index

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/reflectkb/reflect/store"
)

// TestPlanUpdate checks the pure planner: a file is unchanged only when
// its size and mtime match its indexed row, still malformed only when they
// match its recorded problem, and examined otherwise; rows whose file is
// not listed are gone, in row order.
func TestPlanUpdate(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	file := func(id string, size int64, mtime time.Time) store.FileInfo {
		return store.FileInfo{ID: id, Path: "/docs/" + id + ".md", Size: size, ModTime: mtime}
	}
	files := []store.FileInfo{
		file("same", 10, t0),           // indexed, same stat
		file("resized", 11, t0),        // indexed, size differs
		file("touched", 10, t0.Add(1)), // indexed, mtime differs
		file("new", 10, t0),            // not indexed
		file("bad", 7, t0),             // recorded problem, same stat
		file("fixed", 8, t0),           // recorded problem, size differs
		file("badindexed", 7, t0),      // indexed with another stat, problem with this one
		file("samebothways", 10, t0),   // indexed and a problem, both matching
	}
	have := map[string]known{
		"same":         {n: 1, size: 10, mtime: t0.UnixNano(), hash: "h1"},
		"resized":      {n: 2, size: 10, mtime: t0.UnixNano()},
		"touched":      {n: 3, size: 10, mtime: t0.UnixNano()},
		"gone9":        {n: 9},
		"gone4":        {n: 4},
		"badindexed":   {n: 5, size: 99, mtime: t0.UnixNano()},
		"samebothways": {n: 6, size: 10, mtime: t0.UnixNano()},
	}
	bad := map[string]problem{
		"/docs/bad.md":          {size: 7, mtime: t0.UnixNano(), reason: "no front matter"},
		"/docs/fixed.md":        {size: 7, mtime: t0.UnixNano(), reason: "no front matter"},
		"/docs/badindexed.md":   {size: 7, mtime: t0.UnixNano(), reason: "no title"},
		"/docs/samebothways.md": {size: 10, mtime: t0.UnixNano(), reason: "old"},
	}
	p := planUpdate(files, have, bad)
	want := []struct {
		kind    stepKind
		indexed bool
		wasBad  bool
	}{
		{stepUnchanged, true, false},
		{stepExamine, true, false},
		{stepExamine, true, false},
		{stepExamine, false, false},
		{stepStillMalformed, false, true},
		{stepExamine, false, true},
		{stepStillMalformed, true, true},
		{stepUnchanged, true, true},
	}
	if len(p.files) != len(want) {
		t.Fatalf("plan has %d files, want %d", len(p.files), len(want))
	}
	for i, w := range want {
		s := p.files[i]
		if s.file.ID != files[i].ID || s.kind != w.kind || s.indexed != w.indexed || s.wasBad != w.wasBad {
			t.Errorf("%s: got kind %d indexed %v wasBad %v, want %d %v %v", files[i].ID, s.kind, s.indexed, s.wasBad, w.kind, w.indexed, w.wasBad)
		}
	}
	if got := p.files[0].row.hash; got != "h1" {
		t.Errorf("unchanged step carries row hash %q, want h1", got)
	}
	if got := p.files[4].prior.reason; got != "no front matter" {
		t.Errorf("still-malformed step carries reason %q", got)
	}
	if len(p.gone) != 2 || p.gone[0].n != 4 || p.gone[1].n != 9 {
		t.Errorf("gone = %+v, want rows 4 and 9 in order", p.gone)
	}
}

// TestJudgeContent checks the decisions taken once a file was read and,
// when needed, parsed.
func TestJudgeContent(t *testing.T) {
	indexed := fileStep{indexed: true, row: known{n: 1, hash: "abc"}}
	fresh := fileStep{}
	notExist := fmt.Errorf("stat: %w", fs.ErrNotExist)
	for _, c := range []struct {
		name    string
		s       fileStep
		err     error
		problem string
		hash    string
		want    stepKind
	}{
		{"deleted", indexed, notExist, "", "", stepGone},
		{"deleted, never indexed", fresh, notExist, "", "", stepGone},
		{"too large", indexed, nil, "file is too big", "", stepMalformed},
		{"same content", indexed, nil, "", "abc", stepTouch},
		{"new content", indexed, nil, "", "def", stepParse},
		{"not indexed", fresh, nil, "", "abc", stepParse},
	} {
		if got := judgeContent(c.s, c.err, c.problem, c.hash); got != c.want {
			t.Errorf("%s: judgeContent = %d, want %d", c.name, got, c.want)
		}
	}
	parseErr := &store.DocError{Path: "x.md", Reason: "no title"}
	for _, c := range []struct {
		name string
		s    fileStep
		err  error
		want stepKind
	}{
		{"parse error, indexed", indexed, parseErr, stepMalformed},
		{"parse error, new", fresh, parseErr, stepMalformed},
		{"changed", indexed, nil, stepUpdate},
		{"added", fresh, nil, stepAdd},
	} {
		if got := judgeParsed(c.s, c.err); got != c.want {
			t.Errorf("%s: judgeParsed = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestFuse checks the search's fusion stage on its own: each signal adds
// its weight times its score normalised into [0, 1] (BM25F and the graph's
// score over the best of the search, the cosine between minCosine and the
// best, the trigram's share of identifiers as it is), a signal that did
// not find a learning adds nothing, the best fused come first (ties by row
// number) and only keep of them are returned.
func TestFuse(t *testing.T) {
	cands := map[int64]*Why{
		1: {LexicalRank: 2, BM25: 4},
		2: {LexicalRank: 1, BM25: 8, VectorRank: 1, Cosine: 0.55},
		3: {TrigramRank: 1, Identifiers: 0.5},
		4: {LexicalRank: 3, BM25: 4}, // ties with 1
		5: {GraphRank: 9, GraphScore: 2},
		6: {VectorRank: 2, Cosine: 0.35},
	}
	w := fusionWeights{lexical: 1, trigram: 0.2, vector: 0.5, graph: 0.001}
	got := fuse(cands, w, 5)
	if len(got) != 5 {
		t.Fatalf("fuse kept %d, want 5", len(got))
	}
	if want := []int64{2, 1, 4, 6, 3}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	c := cands[2]
	if !near(c.Contributions.Lexical, 1) || !near(c.Contributions.Vector, 0.5) || c.Contributions.Trigram != 0 || !near(c.Fused, 1.5) {
		t.Errorf("row 2: contributions %+v, fused %v; want lexical 1 + vector 0.5", c.Contributions, c.Fused)
	}
	if !near(cands[1].Fused, 0.5) || cands[1].Fused != cands[4].Fused {
		t.Errorf("half the best BM25F fused to %v and %v, want 0.5 both", cands[1].Fused, cands[4].Fused)
	}
	if !near(cands[6].Contributions.Vector, 0.5*(0.35-minCosine)/(0.55-minCosine)) {
		t.Errorf("row 6: vector %v", cands[6].Contributions.Vector)
	}
	if !near(cands[3].Fused, 0.1) {
		t.Errorf("row 3: fused %v, want 0.2 × 0.5", cands[3].Fused)
	}
	if !near(cands[5].Fused, 0.001) {
		t.Errorf("row 5 (graph only): fused %v, want the graph's tie-break weight", cands[5].Fused)
	}
	for n, c := range cands {
		sum := c.Contributions.Lexical + c.Contributions.Trigram + c.Contributions.Vector + c.Contributions.Graph
		if !near(c.Fused, sum) {
			t.Errorf("row %d: fused %v != sum of contributions %v", n, c.Fused, sum)
		}
		for _, p := range [][2]float64{
			{c.Contributions.Lexical, c.Weights.Lexical * c.Normalised.Lexical},
			{c.Contributions.Trigram, c.Weights.Trigram * c.Normalised.Trigram},
			{c.Contributions.Vector, c.Weights.Vector * c.Normalised.Vector},
			{c.Contributions.Graph, c.Weights.Graph * c.Normalised.Graph},
		} {
			if !near(p[0], p[1]) {
				t.Errorf("row %d: contribution %v != weight × normalised %v", n, p[0], p[1])
			}
		}
	}
}

// TestFuseScoresNotRanks is issue 28's second failure class: under
// reciprocal-rank fusion a learning with BM25F 0.31 (lexical #8) and a
// graph hit outranked one with BM25F 8.68 (lexical #1), as ranks 1 and 8
// differ by a tenth. Fused by score, the graph breaks ties only.
func TestFuseScoresNotRanks(t *testing.T) {
	cands := map[int64]*Why{
		1: {LexicalRank: 1, BM25: 8.68, MatchedTerms: 4},
		2: {LexicalRank: 8, BM25: 0.31, MatchedTerms: 1, GraphRank: 1, GraphScore: 3},
		3: {LexicalRank: 2, BM25: 4.2, VectorRank: 1, Cosine: 0.4},
		4: {LexicalRank: 3, BM25: 4.2, GraphRank: 2, GraphScore: 1},
	}
	got := fuse(cands, fusionWeights{lexical: weightLexical, trigram: weightTrigram, vector: HashVectorWeight, graph: weightGraph}, 10)
	if want := []int64{1, 3, 4, 2}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v: the strong lexical match first, the graph and the hash vectors only breaking the tie at 4.2", got, want)
	}
}

// Update's plan (planListed: ids only, each step stat'ed by prepareStep,
// and for an index with rows, matchRows reading them in id order) makes
// of every file what planUpdate makes of the same listing, stat'ed up
// front, and the rows held by id: unchanged, touched, changed, still
// malformed, malformed, added, vanished after the listing, and gone.
func TestPlanListedMatchesPlanUpdate(t *testing.T) {
	ctx := context.Background()
	for _, withRows := range []bool{false, true} {
		k := newKB(t)
		earlier := time.Now().Add(-time.Hour) // not racily clean: stableMtime
		for _, id := range []string{"lrn-same", "lrn-touched", "lrn-changed", "lrn-gone", "lrn-vanished"} {
			k.write(t, simple(id, id+" words"))
			if err := os.Chtimes(k.docPath(id), earlier, earlier); err != nil {
				t.Fatal(err)
			}
		}
		ix := openWith(t, k)
		if !withRows {
			if _, err := ix.db.Exec(`DELETE FROM docs`); err != nil {
				t.Fatal(err)
			}
		}
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(k.docPath("lrn-touched"), later, later); err != nil {
			t.Fatal(err)
		}
		k.write(t, simple("lrn-changed", "changed words entirely"))
		k.write(t, simple("lrn-new", "new words"))
		if err := os.Remove(k.docPath("lrn-gone")); err != nil {
			t.Fatal(err)
		}
		writeRaw(t, k.docPath("lrn-bad"), "no front matter here\n")
		writeRaw(t, k.docPath("lrn-fixed"), "no front matter either\n")
		st := ix.store
		files, err := st.Scan()
		if err != nil {
			t.Fatal(err)
		}
		bad := map[string]problem{}
		for _, f := range files {
			switch f.ID {
			case "lrn-bad":
				bad[f.Path] = problem{size: f.Size, mtime: f.ModTime.UnixNano(), reason: "no front matter"}
			case "lrn-fixed":
				bad[f.Path] = problem{size: f.Size + 1, mtime: f.ModTime.UnixNano(), reason: "old"}
			}
		}
		tx, err := ix.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		have, err := loadKnown(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := st.IDs()
		if err != nil {
			t.Fatal(err)
		}
		listed := planListed(ids, bad, st)
		if withRows {
			if err := listed.matchRows(ctx, tx); err != nil {
				t.Fatal(err)
			}
		}
		tx.Rollback()
		want := planUpdate(files, have, bad)
		rowsOf := func(gone []known) (ns []int64) {
			for _, k := range gone {
				ns = append(ns, k.n)
			}
			return ns
		}
		if listed.len() != want.len() || fmt.Sprint(rowsOf(listed.gone)) != fmt.Sprint(rowsOf(want.gone)) {
			t.Fatalf("rows %v: planListed has %d steps, gone %v; planUpdate %d, gone %v", withRows, listed.len(), listed.gone, want.len(), want.gone)
		}
		if withRows && len(want.gone) != 1 {
			t.Fatalf("planUpdate found %d rows gone, want 1 (lrn-gone)", len(want.gone))
		}
		if err := os.Remove(k.docPath("lrn-vanished")); err != nil {
			t.Fatal(err)
		}
		stems := map[string]string{}
		kinds := map[string]stepKind{}
		for i := range listed.len() {
			got, exp := prepareStep(listed.step(i), st, stems, nil), prepareStep(want.step(i), st, stems, nil)
			if got.step.file.ID == "lrn-vanished" {
				// planUpdate's stat, taken before the removal, found it
				// unchanged (the next update removes it); planListed
				// stats it at its turn and finds it gone.
				kinds[got.step.file.ID] = got.step.kind
				continue
			}
			sameFile := got.step.file == exp.step.file
			if got.step.kind == stepGone { // no stat to take: only its name
				sameFile = got.step.file.ID == exp.step.file.ID && got.step.file.Path == exp.step.file.Path
			}
			if !sameFile || got.step.kind != exp.step.kind || got.step.indexed != exp.step.indexed || got.step.row != exp.step.row ||
				got.step.wasBad != exp.step.wasBad || got.hash != exp.hash {
				t.Errorf("rows %v, step %d: planListed %+v (hash %q), planUpdate %+v (hash %q)", withRows, i, got.step, got.hash, exp.step, exp.hash)
			}
			kinds[got.step.file.ID] = got.step.kind
		}
		wantKinds := map[string]stepKind{"lrn-same": stepUnchanged, "lrn-touched": stepTouch, "lrn-changed": stepUpdate,
			"lrn-new": stepAdd, "lrn-vanished": stepGone, "lrn-bad": stepStillMalformed, "lrn-fixed": stepMalformed}
		if !withRows {
			for _, id := range []string{"lrn-same", "lrn-touched", "lrn-changed"} {
				wantKinds[id] = stepAdd
			}
		}
		for id, w := range wantKinds {
			if kinds[id] != w {
				t.Errorf("rows %v, %s: step %d, want %d", withRows, id, kinds[id], w)
			}
		}
	}
}

// loadKnown is every docs row by id: what planUpdate compares with.
func loadKnown(ctx context.Context, tx *sql.Tx) (map[string]known, error) {
	rows, err := tx.QueryContext(ctx, `SELECT n, id, size, mtime, hash FROM docs`)
	if err != nil {
		return nil, fmt.Errorf("reindex: %w", err)
	}
	defer rows.Close()
	out := map[string]known{}
	for rows.Next() {
		var id string
		var k known
		if err := rows.Scan(&k.n, &id, &k.size, &k.mtime, &k.hash); err != nil {
			return nil, err
		}
		out[id] = k
	}
	return out, rows.Err()
}
