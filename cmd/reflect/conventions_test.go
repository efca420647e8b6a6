package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasExamples walks the command tree: every command a user
// can run shows at least one example in its help.
func TestEveryCommandHasExamples(t *testing.T) {
	t.Parallel()
	root := NewRootCmd(&Factory{IO: &Streams{}})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
				continue
			}
			if strings.TrimSpace(sub.Example) == "" {
				t.Errorf("%s has no Example", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(root)
}

// TestEveryCommandIsGrouped: the root's help lists no command outside the
// everyday, set-up and plumbing groups.
func TestEveryCommandIsGrouped(t *testing.T) {
	t.Parallel()
	root := NewRootCmd(&Factory{IO: &Streams{}})
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.GroupID == "" && c.Name() != "help" {
			t.Errorf("%s has no group", c.Name())
		}
	}
}

// TestEnvironmentTopicListsEveryVariable reads the source for the REFLECT_*
// variables reflect itself reads and checks that 'reflect help
// environment' lists each.
func TestEnvironmentTopicListsEveryVariable(t *testing.T) {
	t.Parallel()
	topic := environmentTopic().Long
	re := regexp.MustCompile(`"(REFLECT_[A-Z_]+)`)
	seen := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			seen[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 10 {
		t.Fatalf("found only %d variables in the source: %v", len(seen), seen)
	}
	for v := range seen {
		if !strings.Contains(topic, v) {
			t.Errorf("'reflect help environment' does not list %s", v)
		}
	}
}
