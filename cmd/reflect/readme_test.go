package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's root, seen from this package's directory
// (where go test runs).
const repoRoot = "../.."

// readmeSection returns the body of the README section headed "## title",
// up to the next "## " heading outside a code fence.
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in, fenced := false, false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "## ") {
			if in {
				break
			}
			in = strings.TrimSpace(strings.TrimPrefix(line, "## ")) == title
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		t.Fatalf("README.md has no %q section", "## "+title)
	}
	return strings.Join(out, "\n")
}

// shellBlocks returns the contents of the ```sh fences in text, in order.
func shellBlocks(text string) []string {
	re := regexp.MustCompile("(?ms)^```sh\n(.*?)^```")
	var blocks []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// TestReadmeQuickTour runs the README's Quick tour as written, top to
// bottom, from the repository root (where its example file is), as a new
// user would paste it: one bash script with errexit, in a fresh HOME with
// fresh state and learnings directories. Every command must succeed, so an
// id in show or forget that add did not produce, a file the repository does
// not ship or a flag that does not exist fails the test. The reflect on
// $PATH is this test binary (TestMain).
func TestReadmeQuickTour(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	t.Parallel() // its own HOME, state and learnings: independent of the scripts
	blocks := shellBlocks(readmeSection(t, "Quick tour"))
	script := strings.Join(blocks, "\n")
	// Guard against a tour that lost its commands and so cannot fail.
	if n := len(regexp.MustCompile(`(?m)^reflect `).FindAllString(script, -1)); n < 10 {
		t.Fatalf("the Quick tour has %d reflect commands, want at least 10:\n%s", n, script)
	}
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", "set -euxo pipefail\n"+script)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(),
		"HOME="+home,
		"REFLECT_STATE_DIR="+filepath.Join(tmp, "state"),
		"REFLECT_LEARNINGS_DIR="+filepath.Join(tmp, "kb"),
		"NO_COLOR=1",
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README's Quick tour failed: %v\n%s", err, out.String())
	}
	// The tour adds two learnings, shows and forgets one: what is left is
	// the example file's.
	docs, err := filepath.Glob(filepath.Join(tmp, "kb", "documents", "lrn-*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || !strings.Contains(filepath.Base(docs[0]), "static-library") {
		t.Errorf("after the tour documents/ holds %v, want only the example file's learning\n%s", docs, out.String())
	}
}

// TestRepoOwnsItsFiles: nothing in the repository may read files from
// outside it (the project's shared directory next to the clone): the demo,
// tests, scripts and docs must work from a fresh clone.
func TestRepoOwnsItsFiles(t *testing.T) {
	t.Parallel()
	needle := []byte("../" + "shared")
	var offenders []string
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			// Not the project's files: git's own, built binaries, and the
			// npm packages `make e2e` caches (.cache, git-ignored).
			case ".git", "bin", ".cache":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(data, needle) {
			rel, _ := filepath.Rel(repoRoot, path)
			offenders = append(offenders, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(offenders) > 0 {
		t.Errorf("these files refer to %s outside the repository: %v", needle, offenders)
	}
}

// TestDemo runs the script behind 'make demo' from the repository, with this test
// binary as reflect: it must work from a clone (its fixtures are in the
// repository), end with the Codex session recalling what the Claude session
// taught, and print no escape sequences when piped or when NO_COLOR is set.
func TestDemo(t *testing.T) {
	for _, tool := range []string{"bash", "git", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the demo needs %s", tool)
		}
	}
	t.Parallel()
	reflectBin, err := exec.LookPath("reflect")
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, name string, args []string, env ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = repoRoot
		// The demo makes its own temporary HOME and state; TMPDIR keeps
		// even those inside the test's directory.
		cmd.Env = append(os.Environ(), append([]string{"REFLECT=" + reflectBin, "TMPDIR=" + t.TempDir()}, env...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}

	out := run(t, "scripts/demo.sh", nil)
	if strings.Contains(out, "\x1b") {
		t.Errorf("piped demo output has escape sequences:\n%q", out)
	}
	// The last hook is the Codex prompt: it must inject what the drain
	// made of the Claude session.
	codex := out[strings.LastIndex(out, "Codex: user asks about the OAuth state cookie"):]
	if !strings.Contains(codex, "<reflect-learnings>") || !strings.Contains(codex, "lrn-") {
		t.Errorf("the Codex prompt recalled nothing:\n%s", out)
	}

	// On a terminal the step titles are bold, unless NO_COLOR is set.
	if _, err := exec.LookPath("script"); err != nil {
		t.Log("no script(1) for a terminal: the NO_COLOR check is skipped")
		return
	}
	tty := []string{"-qec", "scripts/demo.sh", "/dev/null"}
	if out := run(t, "script", tty); !strings.Contains(out, "\x1b[1m") {
		t.Errorf("demo on a terminal has no bold step titles:\n%q", out)
	}
	if out := run(t, "script", tty, "NO_COLOR=1"); strings.Contains(out, "\x1b") {
		t.Errorf("demo with NO_COLOR=1 on a terminal has escape sequences:\n%q", out)
	}
}
