package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/store"
)

// writtenLearnings are learnings as an import makes them, with what a
// round trip through a file could lose: several body lines, tags,
// symptoms, cites, a source, non-ASCII text, YAML-special characters and
// a secret the writer redacts.
func writtenLearnings(n, from int) []*store.Learning {
	var out []*store.Learning
	for i := from; i < from+n; i++ {
		title := fmt.Sprintf("Rule %d: call handler%d through the client of module%d", i, i, i%7)
		insight := fmt.Sprintf("Never call handler%d directly: retry %d times, then fail — see `svc/h%d.go`: \"quoted\" #%d", i, i%5, i, i)
		l := &store.Learning{
			ID: store.NewID(title, insight), Title: title, KeyInsight: insight, Type: "rule",
			Confidence: "high", Scope: "project", Project: "shop", Created: t0,
			Tags:     []string{"import", fmt.Sprintf("module%d", i%7)},
			Symptoms: []string{fmt.Sprintf("ERR_HANDLER_%d: timeout after 30s", i)},
			Cites:    []store.Cite{{Path: fmt.Sprintf("svc/h%d.go", i)}},
			Source:   &store.Source{File: "AGENTS.md", Line: i + 3},
			Body:     insight + "\n\n- one: `postgres` pool\n- two: tokens like ghp_" + strings.Repeat("a", 36) + "\n",
		}
		out = append(out, l)
	}
	return out
}

// writeHanding writes ls and their sidecars in one batch between
// BeginChange and Commit, as knowledge's Import does, handing the index
// what it wrote; tamper, when set, runs between the writes and Commit.
func writeHanding(t *testing.T, ix *Index, ls []*store.Learning, tamper func()) {
	t.Helper()
	writeHandingWith(t, ix, ls, tamper, true)
}

// writeHandingWith is writeHanding, with sidecars or without (as an
// import writes a new rule).
func writeHandingWith(t *testing.T, ix *Index, ls []*store.Learning, tamper func(), sidecars bool) {
	t.Helper()
	ids := make([]string, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	ch := ix.BeginChange(ids...)
	defer ch.Close()
	b := ix.store.Batch()
	for _, l := range ls {
		l.Updated = l.Created
		w := &Written{Learning: l}
		var err error
		if w.Data, err = b.Write(l); err != nil {
			t.Fatal(err)
		}
		if sidecars {
			w.Sidecar = &store.Sidecar{DocumentID: l.ID, Entities: store.ExtractEntities(l)}
			if w.SidecarData, err = b.WriteSidecar(w.Sidecar); err != nil {
				t.Fatal(err)
			}
		}
		ch.Wrote(l.ID, w)
	}
	if _, err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if tamper != nil {
		tamper()
	}
	if err := ch.Commit(context.Background(), ids...); err != nil {
		t.Fatal(err)
	}
}

// Handed what was written, the index builds the catalog an update that
// reads every file builds (a second index of the same documents/): every
// table, rows and numbers, the graph, the postings, the vectors and what
// searches find; on an empty index (the first update) and on an indexed
// one (a targeted update).
func TestWrittenIndexesAsReadingTheFilesDoes(t *testing.T) {
	a := newKB(t)
	b := kb{root: a.root, docs: a.docs, idx: filepath.Join(t.TempDir(), "index")}
	emb := WithEmbedder(hashEmbedder(t, 32))
	ia, ib := openWith(t, a, emb), openWith(t, b, emb)
	for round, ls := range [][]*store.Learning{writtenLearnings(40, 0), writtenLearnings(25, 40)} {
		writeHanding(t, ia, ls, nil)
		update(t, ib, UpdateOptions{})
		if got, want := dumpCatalog(t, ia), dumpCatalog(t, ib); !reflect.DeepEqual(got, want) {
			for name := range want {
				if !reflect.DeepEqual(got[name], want[name]) {
					t.Errorf("round %d: table %s differs:\n got %v\nwant %v", round, name, got[name], want[name])
				}
			}
		}
		if got, want := stateOf(t, ia), stateOf(t, ib); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: index differs from reading the files:\n got %+v\nwant %+v", round, got, want)
		}
	}
}

// An imported rule written without a sidecar is indexed as it was with
// the sidecar an import wrote for it (the entities store.ExtractEntities
// finds): every table, the graph, the postings, vectors and searches,
// whether the index is handed what was written or reads the files; on an
// empty index and on an indexed one. A rule with no source file, and a
// learning of another type, without a sidecar, still get graph.Extract's.
func TestImportedRuleWithoutSidecarIndexesAsWithIt(t *testing.T) {
	emb := WithEmbedder(hashEmbedder(t, 32))
	with, without := newKB(t), newKB(t)
	read := kb{root: without.root, docs: without.docs, idx: filepath.Join(t.TempDir(), "index")}
	iw, io, ir := openWith(t, with, emb), openWith(t, without, emb), openWith(t, read, emb)
	for round, ls := range [][]*store.Learning{writtenLearnings(40, 0), writtenLearnings(25, 40)} {
		writeHandingWith(t, iw, ls, nil, true)
		writeHandingWith(t, io, writtenLearnings(len(ls), 40*round), nil, false)
		update(t, ir, UpdateOptions{})
		if _, err := os.Stat(io.store.SidecarPath(ls[0].ID)); err == nil {
			t.Fatal("a sidecar was written")
		}
		want := dumpCatalog(t, iw)
		for name, ix := range map[string]*Index{"handed over": io, "read": ir} {
			got := dumpCatalog(t, ix)
			for table := range want {
				g := strings.ReplaceAll(strings.Join(got[table], "\n"), without.docs, with.docs)
				if w := strings.Join(want[table], "\n"); g != w {
					t.Errorf("round %d, %s: table %s differs:\n got %v\nwant %v", round, name, table, g, w)
				}
			}
			if g, w := stateOf(t, ix), stateOf(t, iw); !reflect.DeepEqual(g, w) {
				t.Errorf("round %d, %s: index differs from the one with sidecars:\n got %+v\nwant %+v", round, name, g, w)
			}
		}
	}
	var mentions int
	if err := iw.db.QueryRow(`SELECT count(*) FROM mentions`).Scan(&mentions); err != nil || mentions == 0 {
		t.Fatalf("%d mentions, %v: the rules have no entities, the comparison says nothing", mentions, err)
	}
	// Not imported rules: graph.Extract's entities, not ExtractEntities'.
	for _, change := range []func(*store.Learning){
		func(l *store.Learning) { l.Source = nil },
		func(l *store.Learning) { l.Type = "learning" },
	} {
		l := writtenLearnings(1, 100)[0]
		change(l)
		k := newKB(t)
		ix := openWith(t, k, emb)
		writeHandingWith(t, ix, []*store.Learning{l}, nil, false)
		l.Redact()
		var want, extracted []string
		for _, e := range graph.Extract(l).Entities {
			want = append(want, e.Name)
		}
		for _, e := range store.ExtractEntities(l) {
			extracted = append(extracted, e.Name)
		}
		slices.Sort(want)
		slices.Sort(extracted)
		if slices.Equal(want, extracted) {
			t.Fatalf("both extractors find %v: the check says nothing", want)
		}
		rows, err := ix.db.Query(`SELECT name FROM entities ORDER BY name`)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			got = append(got, n)
		}
		rows.Close()
		if !slices.Equal(got, want) {
			t.Errorf("type %s, source %+v: entities %v; want graph.Extract's %v", l.Type, l.Source, got, want)
		}
	}
}

// A file that no longer holds the bytes its writer handed over (edited
// between the write and the index's read) is indexed from the file, and
// so is a sidecar changed the same way.
func TestWrittenIsIgnoredForAFileChangedSince(t *testing.T) {
	for _, first := range []bool{true, false} {
		k := newKB(t)
		if !first {
			k.write(t, simple("lrn-seed", "seed words"))
		}
		ix := k.open(t)
		if !first {
			update(t, ix, UpdateOptions{})
		}
		ls := writtenLearnings(2, 0)
		writeHanding(t, ix, ls, func() {
			edited := strings.Replace(readFile(t, ix.store.Path(ls[0].ID)), ls[0].Title, "Edited by hand meanwhile", 1)
			writeRaw(t, ix.store.Path(ls[0].ID), edited)
			writeRaw(t, ix.store.SidecarPath(ls[1].ID), "document_id: "+ls[1].ID+"\nentities:\n  - name: handedit\n    type: tool\nrelationships: []\n")
		})
		var title string
		if err := ix.db.QueryRow(`SELECT title FROM docs WHERE id=?`, ls[0].ID).Scan(&title); err != nil || title != "Edited by hand meanwhile" {
			t.Errorf("first=%v: indexed title %q, %v; want the file's", first, title, err)
		}
		var n int
		if err := ix.db.QueryRow(`SELECT count(*) FROM entities WHERE name='handedit'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("first=%v: %d entities named by the edited sidecar, %v; want 1", first, n, err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
