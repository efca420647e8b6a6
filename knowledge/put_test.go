package knowledge

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

func TestPutAndForget(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	k := d.open(t)
	l := cookieLearning()
	id := l.ID

	var created time.Time
	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"put new", func(t *testing.T) {
			res, err := k.Put(ctx, l, nil, t0.Add(time.Minute))
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			if res.Action != "added" || res.ID != id || res.Path != d.docPath(id) || res.Sidecar != k.Store().SidecarPath(id) {
				t.Errorf("result %+v", res)
			}
			if _, err := os.Stat(res.Path); err != nil {
				t.Errorf("document not written: %v", err)
			}
			sc, err := k.Store().ReadSidecar(id)
			if err != nil {
				t.Fatalf("sidecar: %v", err)
			}
			if sc.DocumentID != id || len(sc.Entities) == 0 || res.Entities != len(sc.Entities) {
				t.Errorf("sidecar %+v, result says %d entities", sc, res.Entities)
			}
			names := map[string]string{}
			for _, e := range sc.Entities {
				if e.Extracted != "heuristic" {
					t.Errorf("entity %+v not marked heuristic", e)
				}
				names[e.Name] = e.Type
			}
			if names["callback/cookie.go"] != "file" || names["ERR_BLOCKED_BY_CLIENT"] != "error" {
				t.Errorf("entities %v lack the file and the error code", names)
			}
			got, err := k.Store().Read(id)
			if err != nil {
				t.Fatal(err)
			}
			created = got.Created
			if !got.Created.Equal(t0) || !got.Updated.Equal(t0) {
				t.Errorf("created %v updated %v, want both %v", got.Created, got.Updated, t0)
			}
			if r := search(t, k, index.Query{Text: "SameSite state cookie"}); len(r) != 1 || r[0].ID != id {
				t.Errorf("search = %v", ids(r))
			}
			if r := search(t, k, index.Query{Text: "callback/cookie.go"}); len(r) != 1 || r[0].ID != id {
				t.Errorf("identifier search = %v", ids(r))
			}
		}},
		{"document edited by hand: unknown field added", func(t *testing.T) {
			got, err := k.Store().Read(id)
			if err != nil {
				t.Fatal(err)
			}
			addFrontmatter(t, got.Path, "reviewed_by: alice\nticket: {system: jira, key: AUTH-7}\n")
			st, err := k.Index().Update(ctx, index.UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if st.Updated != 1 {
				t.Errorf("stats %+v", st)
			}
		}},
		{"put same id again", func(t *testing.T) {
			l2 := cookieLearning()
			l2.Created = t0.Add(48 * time.Hour) // a writer does not know the original time
			l2.Confidence = "medium"
			l2.Body = "## Problem\nThe state cookie vanished after the IdP redirect; rewritten with zanzibar.\n"
			now := t0.Add(24*time.Hour + 500*time.Millisecond)
			res, err := k.Put(ctx, l2, nil, now)
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			if res.Action != "updated" || res.ID != id {
				t.Errorf("result %+v", res)
			}
			got, err := k.Store().Read(id)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Created.Equal(created) {
				t.Errorf("created %v, want the original %v", got.Created, created)
			}
			if want := now.Truncate(time.Second); !got.Updated.Equal(want) {
				t.Errorf("updated %v, want %v", got.Updated, want)
			}
			if got.Confidence != "medium" {
				t.Errorf("confidence %q", got.Confidence)
			}
			var who string
			if ok, err := got.Extra("reviewed_by", &who); !ok || err != nil || who != "alice" {
				t.Errorf("unknown field reviewed_by lost: %v %v %q", ok, err, who)
			}
			var ticket map[string]string
			if ok, err := got.Extra("ticket", &ticket); !ok || err != nil || !reflect.DeepEqual(ticket, map[string]string{"system": "jira", "key": "AUTH-7"}) {
				t.Errorf("unknown field ticket lost: %v %v %v", ok, err, ticket)
			}
			if r := search(t, k, index.Query{Text: "zanzibar"}); len(r) != 1 || r[0].ID != id || r[0].Confidence != "medium" {
				t.Errorf("new content not indexed: %+v", r)
			}
			if r := search(t, k, index.Query{Text: "ERR_BLOCKED_BY_CLIENT"}); len(r) != 0 {
				t.Errorf("old content still indexed: %v", ids(r))
			}
			if c := counts(t, k); c.Learnings != 1 {
				t.Errorf("Count = %d, want 1", c.Learnings)
			}
		}},
		{"put with an explicit sidecar", func(t *testing.T) {
			l3 := cookieLearning()
			sc := &store.Sidecar{Entities: []store.Entity{{Name: "SameSite", Type: "concept"}}}
			res, err := k.Put(ctx, l3, sc, t0.Add(72*time.Hour))
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			got, err := k.Store().ReadSidecar(id)
			if err != nil {
				t.Fatal(err)
			}
			if res.Entities != 1 || len(got.Entities) != 1 || got.Entities[0].Name != "SameSite" || got.Entities[0].Extracted != "" || got.DocumentID != id {
				t.Errorf("sidecar %+v, result %+v", got, res)
			}
		}},
		{"forget", func(t *testing.T) {
			if err := k.Forget(ctx, id); err != nil {
				t.Fatalf("Forget: %v", err)
			}
			if _, err := os.Stat(d.docPath(id)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("document still on disk: %v", err)
			}
			if _, err := os.Stat(k.Store().SidecarPath(id)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("sidecar still on disk: %v", err)
			}
			for _, q := range []string{"SameSite state cookie", "zanzibar", "callback/cookie.go"} {
				if r := search(t, k, index.Query{Text: q}); len(r) != 0 {
					t.Errorf("forgotten learning still found by %q: %v", q, ids(r))
				}
			}
			if c := counts(t, k); c.Learnings != 0 {
				t.Errorf("Count = %d, want 0", c.Learnings)
			}
		}},
		{"forget unknown", func(t *testing.T) {
			for _, bad := range []string{id, "lrn-never-existed", "../etc/passwd", "", ".hidden"} {
				if err := k.Forget(ctx, bad); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("Forget(%q) = %v, want ErrNotFound", bad, err)
				}
			}
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			break
		}
	}
}

func TestPutReplacesMalformedDocument(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	l := cookieLearning()
	writeRaw(t, d.docPath(l.ID), "---\nid: "+l.ID+"\ntitle: [broken\n---\n")
	k := d.open(t)
	if probs, _ := k.Index().Problems(ctx); len(probs) != 1 {
		t.Fatalf("Problems = %v", probs)
	}
	now := t0.Add(time.Hour)
	if _, err := k.Put(ctx, l, nil, now); err != nil {
		t.Fatalf("Put over a malformed document: %v", err)
	}
	if probs, _ := k.Index().Problems(ctx); len(probs) != 0 {
		t.Errorf("Problems after Put = %v", probs)
	}
	if r := search(t, k, index.Query{Text: "SameSite"}); len(r) != 1 {
		t.Errorf("search = %v", ids(r))
	}
}

func TestPutInvalidLearning(t *testing.T) {
	ctx := context.Background()
	k := newDirs(t).open(t)
	for _, l := range []*store.Learning{
		{ID: "lrn-no-title", Confidence: "high", Created: t0},
		{ID: "../escape", Title: "x", Confidence: "high", Created: t0},
		{ID: "lrn-bad-conf", Title: "x", Confidence: "sure", Created: t0},
	} {
		if _, err := k.Put(ctx, l, nil, t0); err == nil {
			t.Errorf("Put(%+v) accepted an invalid learning", l)
		}
	}
	if scan, _ := k.Store().Scan(); len(scan) != 0 {
		t.Errorf("invalid learnings were written: %v", scan)
	}
}
