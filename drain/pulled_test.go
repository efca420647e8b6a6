package drain

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// Two machines learned the same lesson and each wrote it under its own id;
// a sync brought one to the other. The next drain folds the pair into the
// learning created first, whichever of the two the sync brought in (both
// machines must make the same choice), keeping both bodies, the union of
// the tags, and the other's entities.
func TestDrainFoldsPulledNearDuplicates(t *testing.T) {
	t.Parallel()
	for _, pulled := range []string{"later", "earlier"} {
		t.Run("pulled "+pulled, func(t *testing.T) {
			e := newDrainEnv(t)
			o := withConfig(e.config(t), Options{Writer: &fixedWriter{}})
			ix, err := o.OpenIndex(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			put := func(id string, created time.Time, tag, body, entity string) {
				t.Helper()
				l := &store.Learning{ID: id, Title: "Vite dev server ignores .env.local until it restarts",
					KeyInsight: "Restart the vite dev server after editing .env.local: env files are read at start-up.",
					Type:       "learning", Confidence: "high", Scope: "global", Tags: []string{"vite", tag},
					Created: created, Updated: created, Body: body}
				sc := &store.Sidecar{DocumentID: id, Entities: []store.Entity{{Name: entity, Type: "tool"}}}
				if _, err := knowledge.New(ix).Put(context.Background(), l, sc, created); err != nil {
					t.Fatal(err)
				}
			}
			early := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
			put("lrn-vite-env-local-restart-aaaaaa", early, "env", "## Problem\nEdited .env.local, nothing changed.\n", "vite")
			put("lrn-vite-env-local-restart-bbbbbb", early.AddDate(0, 0, 20), "dotenv", "## Solution\nRestart the dev server.\n", "dotenv")
			ix.Close()

			id := map[string]string{"earlier": "lrn-vite-env-local-restart-aaaaaa", "later": "lrn-vite-env-local-restart-bbbbbb"}[pulled]
			o.Pulled = []string{id, "lrn-forgotten-since-000000"}
			rep := e.run(t, o)
			want := []knowledge.Folded{{Kept: "lrn-vite-env-local-restart-aaaaaa", Gone: "lrn-vite-env-local-restart-bbbbbb"}}
			if len(rep.Folded) != 1 || rep.Folded[0].Kept != want[0].Kept || rep.Folded[0].Gone != want[0].Gone {
				t.Fatalf("folded %+v, want %+v", rep.Folded, want)
			}
			if docs := e.documents(t); !reflect.DeepEqual(docs, []string{"lrn-vite-env-local-restart-aaaaaa"}) {
				t.Fatalf("documents %q", docs)
			}
			kept := e.read(t, "lrn-vite-env-local-restart-aaaaaa")
			for _, tag := range []string{"vite", "env", "dotenv"} {
				if !slices.Contains(kept.Tags, tag) {
					t.Errorf("tags %q lack %q", kept.Tags, tag)
				}
			}
			for _, part := range []string{"Edited .env.local", "## Also learned as lrn-vite-env-local-restart-bbbbbb", "Restart the dev server."} {
				if !strings.Contains(kept.Body, part) {
					t.Errorf("body lacks %q:\n%s", part, kept.Body)
				}
			}
			if !kept.Created.Equal(early) {
				t.Errorf("created %v, want the earlier %v", kept.Created, early)
			}
			sc, err := store.Open(e.kb + "/documents").ReadSidecar(kept.ID)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, en := range sc.Entities {
				names = append(names, en.Name)
			}
			if !slices.Contains(names, "vite") || !slices.Contains(names, "dotenv") {
				t.Errorf("entities %q, want vite and dotenv", names)
			}
			if got := e.search(t, "vite env.local restart"); len(got) != 1 || got[0].ID != kept.ID {
				t.Errorf("search after the fold: %+v", got)
			}

			// Folded once: the next drain finds nothing left to fold.
			if again := e.run(t, o); len(again.Folded) != 0 {
				t.Errorf("second drain folded %+v", again.Folded)
			}
		})
	}
}

// A personal learning is never folded into one that syncs, even when a
// pulled learning nearly repeats it: its text would leave the machine.
func TestDrainDoesNotFoldPersonalLearnings(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	o := withConfig(e.config(t), Options{Writer: &fixedWriter{}})
	ix, err := o.OpenIndex(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	early := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i, scope := range []string{"personal", "global"} {
		l := &store.Learning{ID: []string{"lrn-vite-env-local-restart-aaaaaa", "lrn-vite-env-local-restart-bbbbbb"}[i],
			Title:      "Vite dev server ignores .env.local until it restarts",
			KeyInsight: "Restart the vite dev server after editing .env.local: env files are read at start-up.",
			Type:       "learning", Confidence: "high", Scope: scope, Created: early.AddDate(0, 0, i), Updated: early.AddDate(0, 0, i),
			Body: "## Problem\nmy own notes " + scope + "\n"}
		if _, err := knowledge.New(ix).Put(context.Background(), l, nil, l.Created); err != nil {
			t.Fatal(err)
		}
	}
	ix.Close()
	o.Pulled = []string{"lrn-vite-env-local-restart-bbbbbb"}
	if rep := e.run(t, o); len(rep.Folded) != 0 {
		t.Fatalf("folded %+v", rep.Folded)
	}
	if docs := e.documents(t); len(docs) != 2 {
		t.Fatalf("documents %q, want both", docs)
	}
	if body := e.read(t, "lrn-vite-env-local-restart-bbbbbb").Body; strings.Contains(body, "personal") {
		t.Errorf("the shared learning took the personal one's text:\n%s", body)
	}
}

// A pulled "learning" that is a link (documents/<id>.md -> a file outside
// that parses as a learning, as a hostile push could make it) is never
// read, so never folded into a real learning that syncs.
func TestDrainDoesNotFoldALinkedLearning(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	o := withConfig(e.config(t), Options{Writer: &fixedWriter{}})
	ix, err := o.OpenIndex(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	early := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	const title = "Vite dev server ignores .env.local until it restarts"
	const insight = "Restart the vite dev server after editing .env.local: env files are read at start-up."
	l := &store.Learning{ID: "lrn-vite-env-local-restart-aaaaaa", Title: title, KeyInsight: insight,
		Type: "learning", Confidence: "high", Scope: "global", Created: early, Updated: early, Body: "## Problem\nmine\n"}
	if _, err := knowledge.New(ix).Put(context.Background(), l, nil, early); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	outside := filepath.Join(e.kb, "..", "id_rsa")
	target := "---\nid: lrn-vite-env-local-restart-bbbbbb\ntitle: " + strconv.Quote(title) + "\ntype: learning\nconfidence: high\nscope: global\nkey_insight: " + strconv.Quote(insight) +
		"\ncreated: 2026-11-21T09:00:00Z\n---\nSECRETKEYMATERIAL\n"
	if _, err := store.Parse([]byte(target)); err != nil {
		t.Fatalf("the linked file must parse as a learning for the test to mean anything: %v", err)
	}
	if err := os.WriteFile(outside, []byte(target), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.kb, "documents", "lrn-vite-env-local-restart-bbbbbb.md")); err != nil {
		t.Fatal(err)
	}
	o.Pulled = []string{"lrn-vite-env-local-restart-bbbbbb"}
	if rep := e.run(t, o); len(rep.Folded) != 0 {
		t.Errorf("folded %+v", rep.Folded)
	}
	if body := e.read(t, "lrn-vite-env-local-restart-aaaaaa").Body; strings.Contains(body, "SECRETKEYMATERIAL") {
		t.Errorf("the linked file's text went into a learning that syncs:\n%s", body)
	}
}
