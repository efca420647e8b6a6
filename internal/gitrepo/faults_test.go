package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/testfs"
)

// A FIFO at .git/HEAD or .git/config hung every hook started in that
// repository, and a 2 GB HEAD was read whole. Now neither is read, Inspect
// returns within git's DefaultTimeout (git itself never reads them either), and
// the project is still named from the directory.
func TestInspectRefusesHostileGitFiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"fifo", func(t *testing.T, path string) {
			if err := testfs.Mkfifo(path); err != nil {
				t.Skip("mkfifo:", err)
			}
		}},
		{"huge", func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(2 << 30); err != nil { // sparse: costs no disk
				t.Fatal(err)
			}
		}},
	} {
		for _, file := range []string{"HEAD", "config"} {
			t.Run(tc.name+"-"+file, func(t *testing.T) {
				t.Setenv("PATH", t.TempDir()) // no git: only the file readers run
				root := filepath.Join(t.TempDir(), "myproj")
				gitDir := filepath.Join(root, ".git")
				if err := os.MkdirAll(gitDir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(gitDir, "config"), []byte("[core]\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(gitDir, file)
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				tc.damage(t, path)
				done := make(chan Repo, 1)
				go func() { done <- Inspect(context.Background(), root, true, 0) }()
				select {
				case r := <-done:
					if r.Project != "myproj" {
						t.Errorf("project %q, want myproj", r.Project)
					}
					if file == "config" && r.Branch != "main" {
						t.Errorf("branch %q, want main (HEAD is fine)", r.Branch)
					}
				case <-time.After(time.Minute):
					t.Fatal("Inspect hung on a hostile git file")
				}
			})
		}
	}
}

// A working directory longer than PATH_MAX names no repository.
func TestRootIgnoresHugeCwd(t *testing.T) {
	if got := Root("/" + strings.Repeat("a/", 50_000)); got != "" {
		t.Errorf("Root(100 KB path) = %q", got)
	}
}
