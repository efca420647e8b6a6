package agents_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/transcript"
)

// The registry is where adding an agent starts: every layer must know each
// of its agents, under the same name, and every part it names must exist.
func TestRegistryIsKnownToEveryLayer(t *testing.T) {
	t.Parallel()
	var names []string
	for _, a := range agents.Registry {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, agents.Names) {
		t.Errorf("registry %q, installers %q: an agent without an installer, or out of order", names, agents.Names)
	}
	if !slices.Equal(names, hooks.Agents) {
		t.Errorf("registry %q, hooks answer %q", names, hooks.Agents)
	}

	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents.Registry {
		if _, err := transcript.Condense(empty, a.Name, transcript.Limits{}); err != nil {
			t.Errorf("%s: transcript.Condense: %v", a.Name, err)
		}
		_, _, err := q.Enqueue(queue.Record{TranscriptPath: empty, SessionID: "s-" + a.Name,
			Trigger: queue.TriggerStop, Harness: queue.Harness(a.Name), Cwd: dir})
		if err != nil && strings.Contains(err.Error(), "harness") {
			t.Errorf("%s: the queue refuses the harness: %v", a.Name, err)
		}
		if a.Display == "" {
			t.Errorf("%s: no display name", a.Name)
		}
	}
}

func TestRegistryPartsExist(t *testing.T) {
	t.Parallel()
	for _, a := range agents.Registry {
		file, test, _ := strings.Cut(a.E2E, ":")
		for _, p := range append([]string{a.Installer, a.Transcript, a.Writer, file, a.Model}, a.Hooks...) {
			if p == "" {
				if p != a.Writer {
					t.Errorf("%s: a part is missing: %+v", a.Name, a)
				}
				continue
			}
			if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(p))); err != nil {
				t.Errorf("%s: %v", a.Name, err)
			}
		}
		src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(file)))
		if err == nil && (test == "" || !strings.Contains(string(src), "func "+test+"(t *testing.T)")) {
			t.Errorf("%s: %s has no test %q", a.Name, file, test)
		}
	}
}
