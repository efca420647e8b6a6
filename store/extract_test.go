package store

import (
	"fmt"
	"strings"
	"testing"
)

func TestExtractEntities(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		l    Learning
		want map[string]string // name -> type; exactly these
	}{
		{
			name: "paths, error codes, identifiers",
			l: Learning{
				Title:      "Dial fails with ECONNREFUSED in callback/cookie.go",
				KeyInsight: "The `parseToken` helper returns a TypeError when `SameSite` is unset.",
				Body: "## Problem\nSee callback/cookie.go and (internal/auth/session.go). Run `go test -race ./...`.\n" +
					"Again: `callback/cookie.go`, `ECONNREFUSED`, ECONNREFUSED, `parseToken`.\n" +
					"Also main.go and HTTP502.\n",
			},
			want: map[string]string{
				"callback/cookie.go":       "file",
				"internal/auth/session.go": "file",
				"main.go":                  "file",
				"ECONNREFUSED":             "error",
				"TypeError":                "error",
				"HTTP502":                  "error",
				"parseToken":               "function",
				"SameSite":                 "function",
				"go test -race ./...":      "tool",
			},
		},
		{
			name: "short spans do not pair up the wrong backticks",
			l:    Learning{Body: "Set `x` or `y`, then call `retryDial` and not `a` nor `b`.\n"},
			want: map[string]string{"retryDial": "function"},
		},
		{
			name: "an overlong span is skipped without shifting the others",
			l:    Learning{Body: "`" + strings.Repeat("z", 90) + "` then `fetchAll` and `sync.Once`\n"},
			want: map[string]string{"fetchAll": "function", "sync.Once": "function"},
		},
		{
			name: "duplicates differing in case are one entity",
			l:    Learning{Body: "`Config.go` and config.go and CONFIG.GO\n"},
			want: map[string]string{"config.go": "file"},
		},
		{
			name: "plain prose",
			l:    Learning{Title: "Be careful", Body: "Nothing to see here, e.g. in the docs.\n"},
			want: map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExtractEntities(&tt.l)
			seen := map[string]bool{}
			for _, e := range got {
				key := strings.ToLower(e.Name)
				if seen[key] {
					t.Errorf("duplicate entity %q", e.Name)
				}
				seen[key] = true
				if e.Extracted != "heuristic" {
					t.Errorf("%q: Extracted = %q, want heuristic", e.Name, e.Extracted)
				}
				if !oneOf(e.Type, EntityTypes) {
					t.Errorf("%q: type %q is not an entity type", e.Name, e.Type)
				}
				want, ok := tt.want[e.Name]
				if !ok {
					t.Errorf("unexpected entity %q (%s)", e.Name, e.Type)
				} else if e.Type != want {
					t.Errorf("%q: type %q, want %q", e.Name, e.Type, want)
				}
			}
			for name := range tt.want {
				if !seen[strings.ToLower(name)] {
					t.Errorf("missing entity %q; got %+v", name, got)
				}
			}
		})
	}
}

// Heuristic entities must be usable as a sidecar as they are.
func TestExtractEntitiesMakeAValidSidecar(t *testing.T) {
	t.Parallel()
	l, err := Parse(readTestdata(t, "design-example.md"))
	if err != nil {
		t.Fatal(err)
	}
	l.Body += "ECONNREFUSED from `net.Dial` in callback/cookie.go\n"
	ents := ExtractEntities(l)
	if len(ents) == 0 {
		t.Fatal("no entities")
	}
	sc := &Sidecar{DocumentID: l.ID, Entities: ents}
	if err := sc.Validate(); err != nil {
		t.Errorf("sidecar from heuristic entities: %v", err)
	}
}

func TestExtractEntitiesIsBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "pkg%d/file%d.go\n", i, i)
	}
	if got := ExtractEntities(&Learning{Body: b.String()}); len(got) != 20 {
		t.Errorf("%d entities from 50 paths, want the cap of 20", len(got))
	}
}
