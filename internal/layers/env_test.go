package layers

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// envRead is a call that reads the process environment for a setting.
// (os.Environ, which hands the environment on to a child, is not one.)
var envRead = regexp.MustCompile(`\bos\.(Getenv|LookupEnv)\(`)

// TestEnvironmentIsReadOnlyByConfig keeps ARCHITECTURE §2's rule that
// configuration reaches code one way: only internal/config reads the
// environment, through the lookup its caller passes. The e2e suite, which
// drives real clients from the test process, is exempt.
func TestEnvironmentIsReadOnlyByConfig(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" ||
				rel == "e2e" || rel == filepath.Join("internal", "config")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanned++
		for i, line := range strings.Split(string(data), "\n") {
			if code, _, _ := strings.Cut(line, "//"); envRead.MatchString(code) {
				t.Errorf("%s:%d reads the environment: take the setting from internal/config (or, in cmd/reflect, Factory.Getenv)", rel, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 50 {
		t.Fatalf("scanned only %d files: the walk is broken", scanned)
	}
}
