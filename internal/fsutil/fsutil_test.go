package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSafeName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01", "8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01"},
		{"../../etc/passwd", "etc_passwd"},
		{"a/b\\c", "a_b_c"},
		{"..", "unknown"},
		{"", "unknown"},
		{".hidden", "hidden"},
		{"a..b", "a._b"},
		{"sess ion\x00", "sess_ion_"},
		{strings.Repeat("x", 500), strings.Repeat("x", 100)},
	}
	for _, tt := range tests {
		got := SafeName(tt.in)
		if got != tt.want {
			t.Errorf("SafeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.ContainsAny(got, `/\`) || strings.Contains(got, "..") || filepath.Base(got) != got {
			t.Errorf("SafeName(%q) = %q escapes its directory", tt.in, got)
		}
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f.json")
	for _, content := range []string{"one", "two"} {
		if err := WriteAtomic(path, []byte(content), FilePerm); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read back %q, %v; want %q", got, err, content)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != FilePerm {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), FilePerm)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	di, _ := os.Stat(filepath.Dir(path))
	if di.Mode().Perm() != DirPerm {
		t.Errorf("dir mode %v, want %v", di.Mode().Perm(), DirPerm)
	}
}

// A reader never sees a partial WriteLocked, even while writers race.
func TestWriteLockedReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "last.json")
	a := []byte(`{"v":"` + string(make([]byte, 0)) + `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}` + "\n")
	b := []byte(`{"v":"b"}` + "\n")
	if err := WriteLocked(path, a, FilePerm); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 2000; i++ {
			data := a
			if i%2 == 1 {
				data = b
			}
			if err := WriteLocked(path, data, FilePerm); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			fi, _ := os.Stat(path)
			if fi.Mode().Perm() != FilePerm {
				t.Errorf("mode %v", fi.Mode().Perm())
			}
			return
		default:
		}
		got, err := ReadLocked(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(a) && string(got) != string(b) {
			t.Fatalf("partial read %q", got)
		}
	}
}

// TempOf recognises every name os.CreateTemp makes from TempPattern, and
// names the file it is for; other names are not temporary files.
func TestTempOfTempPattern(t *testing.T) {
	dir := t.TempDir()
	for _, base := range []string{"lrn-a.md", "lrn-a.entities.json", "vectors.f32", "x.tmp-y"} {
		f, err := os.CreateTemp(dir, TempPattern(filepath.Join(dir, base)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if of, ok := TempOf(filepath.Base(f.Name())); !ok || of != base {
			t.Errorf("TempOf(%q) = %q, %v; want %q", filepath.Base(f.Name()), of, ok, base)
		}
	}
	for _, name := range []string{"lrn-a.md", ".lrn-a.md", "lrn-a.md.tmp-1", ".tmp-1", ""} {
		if of, ok := TempOf(name); ok {
			t.Errorf("TempOf(%q) = %q, true; want not a temporary file", name, of)
		}
	}
}
