package index

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
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
// weight/(rrfK+rank), a missing rank adds nothing, the best fused come
// first (ties by row number) and only keep of them are returned.
func TestFuse(t *testing.T) {
	cands := map[int64]*Why{
		1: {LexicalRank: 2},
		2: {LexicalRank: 1, VectorRank: 1},
		3: {TrigramRank: 1},
		4: {LexicalRank: 2}, // ties with 1
		5: {GraphRank: 9},
	}
	got := fuse(cands, 0.5, 4)
	if len(got) != 4 {
		t.Fatalf("fuse kept %d, want 4", len(got))
	}
	if got[0] != 2 {
		t.Errorf("best = %d, want 2 (found by two signals)", got[0])
	}
	for i := 1; i < len(got); i++ {
		a, b := cands[got[i-1]].Fused, cands[got[i]].Fused
		if a < b || (a == b && got[i-1] > got[i]) {
			t.Errorf("order %v: %d (%.5f) before %d (%.5f)", got, got[i-1], a, got[i], b)
		}
	}
	w := cands[2]
	if want := rrf(weightLexical, 1) + rrf(0.5, 1); w.Fused != want || w.Contributions.Vector != rrf(0.5, 1) || w.Contributions.Trigram != 0 {
		t.Errorf("row 2: fused %v, contributions %+v; want fused %v", w.Fused, w.Contributions, want)
	}
	if cands[1].Fused != cands[4].Fused {
		t.Errorf("equal ranks fused differently: %v vs %v", cands[1].Fused, cands[4].Fused)
	}
	if rrf(1, 0) != 0 {
		t.Errorf("a signal that did not find a learning contributed %v", rrf(1, 0))
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
			got, exp := prepareStep(listed.step(i), st, stems), prepareStep(want.step(i), st, stems)
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
