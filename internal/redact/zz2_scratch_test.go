package redact

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

func TestScratchCorpus(t *testing.T) {
	root := os.Getenv("RCORPUS")
	if root == "" {
		root = filepath.Join(runtime.GOROOT(), "src")
	}
	kinds := map[string]int{}
	var samples []string
	files, bytes := 0, 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		ext := filepath.Ext(p)
		if ext != ".go" && ext != ".md" && ext != ".txt" && ext != ".json" && ext != ".yaml" && ext != ".yml" && ext != ".sh" && ext != ".py" {
			return nil
		}
		if strings.Contains(p, "testdata") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) > 1<<20 {
			return nil
		}
		files++
		bytes += len(b)
		for _, line := range strings.Split(string(b), "\n") {
			out := String(line)
			if out == line {
				continue
			}
			for _, k := range strings.Split(out, "[REDACTED:")[1:] {
				kinds[k[:strings.IndexByte(k, ']')]]++
			}
			if strings.Contains(out, "[private]") {
				kinds["private"]++
			}
			samples = append(samples, strings.TrimSpace(line)+"\n      => "+strings.TrimSpace(out))
		}
		return nil
	})
	t.Logf("files %d, %d MB, changed lines %d, kinds %v", files, bytes>>20, len(samples), kinds)
	sort.Strings(samples)
	step := max(1, len(samples)/120)
	for i := 0; i < len(samples); i += step {
		s := samples[i]
		if len(s) > 400 {
			s = s[:400]
		}
		t.Log(s)
	}
}
