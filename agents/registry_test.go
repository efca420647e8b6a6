package agents_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/backfill"
	"github.com/reflectkb/reflect/doctor"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/importer"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/transcript"
)

// layerTables are the names in each layer's agent table, as the layer
// itself lists them.
func layerTables() map[string][]string {
	var harnesses []string
	for _, h := range queue.Harnesses {
		harnesses = append(harnesses, string(h))
	}
	return map[string][]string{
		"agents (installers)": agents.Names,
		"queue.Harnesses":     harnesses,
		"hooks":               hooks.Agents,
		"transcript":          transcript.Formats(),
		"backfill":            backfill.Agents,
		"importer":            importer.NativeAgents(),
	}
}

// The registry is where adding an agent starts: every layer's table must
// have an entry for each of its agents, under the same name and in the
// same order, and none for an agent it does not list.
func TestRegistryIsKnownToEveryLayer(t *testing.T) {
	t.Parallel()
	var names, writers, checks []string
	for _, a := range agents.Registry {
		names = append(names, a.Name)
		if a.Writer != "" {
			writers = append(writers, a.Name)
		}
		if a.Doctor != "" {
			checks = append(checks, a.Name)
		}
		if a.Display == "" {
			t.Errorf("%s: no display name", a.Name)
		}
	}
	for layer, got := range layerTables() {
		if !slices.Equal(names, got) {
			t.Errorf("registry %q, %s %q: an agent without an entry there, one the registry lacks, or out of order", names, layer, got)
		}
	}
	// Optional layers: an entry exactly for the agents whose registry
	// entry names a file there.
	if got := writer.AgentWriters(); !slices.Equal(writers, got) {
		t.Errorf("registry agents with a Writer %q, drain/writer's agentWriters %q", writers, got)
	}
	if got := doctor.HookCheckAgents(); !slices.Equal(checks, got) {
		t.Errorf("registry agents with a Doctor file %q, doctor's hookChecks %q", checks, got)
	}
}

// The tables are used, not only declared: each agent's transcript is
// condensed and queued under its name.
func TestRegistryAgentsCondenseAndQueue(t *testing.T) {
	t.Parallel()
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
	}
}

// entryOf matches the name or agent field of a table entry for name.
func entryOf(name string) *regexp.Regexp {
	return regexp.MustCompile(`\b(name|agent):\s*"` + regexp.QuoteMeta(name) + `"`)
}

// Every file the registry names exists, and the files of the layers'
// tables hold the agent's entry, so the registry leads to it.
func TestRegistryPartsExist(t *testing.T) {
	t.Parallel()
	read := func(p string) (string, error) {
		b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(p)))
		return string(b), err
	}
	for _, a := range agents.Registry {
		entries := []string{a.Installer, a.Hooks, a.Transcript, a.Backfill, a.Importer}
		for _, p := range []string{a.Writer, a.Doctor} {
			if p != "" {
				entries = append(entries, p)
			}
		}
		for _, p := range entries {
			src, err := read(p)
			if err != nil {
				t.Errorf("%s: %v", a.Name, err)
				continue
			}
			if !entryOf(a.Name).MatchString(src) {
				t.Errorf("%s: %s declares no table entry for it (name: %q or agent: %q)", a.Name, p, a.Name, a.Name)
			}
		}
		file, test, _ := strings.Cut(a.E2E, ":")
		if a.Model == "" {
			t.Errorf("%s: no fake model named", a.Name)
		} else if _, err := read(a.Model); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		}
		src, err := read(file)
		if err != nil {
			t.Errorf("%s: %v", a.Name, err)
		} else if test == "" || !strings.Contains(src, "func "+test+"(t *testing.T)") {
			t.Errorf("%s: %s has no test %q", a.Name, file, test)
		}
	}
}
