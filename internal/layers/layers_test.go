package layers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModuleKeepsItsLayers is the check CI runs: every project import in
// the module is allowed by ARCHITECTURE.md §2.
func TestModuleKeepsItsLayers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, err := ParseRules(f)
	if err != nil {
		t.Fatalf("ARCHITECTURE.md: %v", err)
	}
	module, err := ModulePath(root)
	if err != nil {
		t.Fatal(err)
	}
	imps, err := ScanModule(root, module)
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{"cmd/reflect", "index", "store"} {
		if _, ok := imps[must]; !ok {
			t.Fatalf("scan found no package %s: the walk is broken", must)
		}
	}
	for _, v := range Check(rules, imps) {
		t.Error(v)
	}
}

const table = `intro
<!-- layers:begin -->
| package | owns | may import |
|---|---|---|
| ` + "`cmd/x`" + ` | commands | *, !heavy |
| ` + "`hooks`" + ` | hooks | store, internal/* |
| ` + "`store`" + ` | docs | internal/* |
| ` + "`internal/*`" + ` | helpers | internal/* |
<!-- layers:end -->
`

func TestCheckFindsUpwardImportsAndMissingRows(t *testing.T) {
	rules, err := ParseRules(strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	imps := Imports{
		"cmd/x":           {"hooks": "cmd/x/main.go", "store": "cmd/x/main.go", "heavy": "cmd/x/mcp.go"},
		"hooks":           {"store": "hooks/a.go", "internal/redact": "hooks/a.go"},
		"store":           {"hooks": "store/s.go", "internal/fsutil": "store/s.go"},
		"internal/fsutil": {"store": "internal/fsutil/f.go"},
		"mcp":             {"store": "mcp/m.go"},
	}
	got := Check(rules, imps)
	var lines []string
	for _, v := range got {
		lines = append(lines, v.String())
	}
	want := []string{
		"cmd/x/mcp.go: cmd/x imports heavy, which its row in ARCHITECTURE.md §2 does not allow",
		"internal/fsutil/f.go: internal/fsutil imports store, which its row in ARCHITECTURE.md §2 does not allow",
		"mcp/: package mcp has no row in ARCHITECTURE.md §2; add one",
		"store/s.go: store imports hooks, which its row in ARCHITECTURE.md §2 does not allow",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Check:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseRulesRejectsAMissingTable(t *testing.T) {
	if _, err := ParseRules(strings.NewReader("no table here")); err == nil {
		t.Error("ParseRules accepted a file with no layers table")
	}
}
