package redact

import (
	"os"
	"path/filepath"
	"testing"
)

func TestScratchFixtures(t *testing.T) {
	files, _ := filepath.Glob("/work/shared/fixtures/*/*")
	extra, _ := filepath.Glob("/work/main/**/*.go")
	files = append(files, extra...)
	more, _ := filepath.Glob("/work/main/*/*/*.go")
	files = append(files, more...)
	files = append(files, "/work/shared/DESIGN.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		in := string(b)
		out := String(in)
		if in != out {
			t.Logf("%s changed", f)
			// print diff lines
			il, ol := splitLines(in), splitLines(out)
			for i := range il {
				if i < len(ol) && il[i] != ol[i] {
					t.Logf("  - %q\n  + %q", il[i], ol[i])
				}
			}
		}
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
