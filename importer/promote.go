package importer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/safetext"
	"github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/store"
)

// The markers of the section `reflect promote` manages in an instruction
// file. Everything outside them is the user's and is never changed.
const (
	BeginMarker = "<!-- reflect:begin — lines added by `reflect promote`; `reflect demote ID` removes one -->"
	EndMarker   = "<!-- reflect:end -->"
	beginPrefix = "<!-- reflect:begin"
	// sectionHeading opens the section, so agents read it as one.
	sectionHeading = "## Learned with reflect"
)

// maxPromoted bounds a promoted line: an instruction file is read in every
// session, so each line must be short.
const maxPromoted = 200

// ErrNoEnd is returned for a file whose managed section has lost its end
// marker: where the user's lines start again is unknown.
var ErrNoEnd = errors.New("the reflect section has a begin marker and no end marker (" + EndMarker + "); restore it by hand")

// PromotedLine is the line promote writes for l: the lesson in one short
// line, sourced with the learning's id so it can be found and demoted.
func PromotedLine(l *store.Learning) string {
	what := l.Title
	if l.KeyInsight != "" && !strings.EqualFold(strings.TrimRight(l.KeyInsight, "."), strings.TrimRight(l.Title, ".")) {
		what += ": " + l.KeyInsight
	}
	what = text.ClipWords(text.OneLine(safetext.Inline(what)), maxPromoted)
	return "- " + what + " " + idTag(l.ID)
}

func idTag(id string) string { return "(reflect " + id + ")" }

// Promote returns content with a line for each learning that has none yet
// in the managed section, which is added at the end when missing. added
// lists the ids given a line; a second promote of the same ids adds none.
func Promote(content string, ls []*store.Learning) (out string, added []string, err error) {
	lines, begin, end, err := managed(content)
	if err != nil {
		return content, nil, err
	}
	var fresh []string
	for _, l := range ls {
		if begin >= 0 && hasID(lines[begin:end], l.ID) || containsID(fresh, l.ID) {
			continue
		}
		fresh = append(fresh, PromotedLine(l))
		added = append(added, l.ID)
	}
	if len(fresh) == 0 {
		return content, nil, nil
	}
	if begin < 0 {
		var b strings.Builder
		b.WriteString(content)
		if content != "" && !strings.HasSuffix(content, "\n") {
			b.WriteString("\n")
		}
		if content != "" {
			b.WriteString("\n")
		}
		b.WriteString(BeginMarker + "\n" + sectionHeading + "\n\n")
		b.WriteString(strings.Join(fresh, "\n") + "\n")
		b.WriteString(EndMarker + "\n")
		return b.String(), added, nil
	}
	res := append(append(append([]string{}, lines[:end]...), fresh...), lines[end:]...)
	return strings.Join(res, "\n"), added, nil
}

// Demote returns content without the managed lines of ids, and the ids
// removed; a section left with no line is removed whole.
func Demote(content string, ids []string) (out string, removed []string, err error) {
	lines, begin, end, err := managed(content)
	if err != nil || begin < 0 {
		return content, nil, err
	}
	kept := append([]string{}, lines[:begin+1]...)
	entries := 0
	for _, ln := range lines[begin+1 : end] {
		if id := lineID(ln); id != "" && containsStr(ids, id) {
			removed = append(removed, id)
			continue
		}
		if lineID(ln) != "" {
			entries++
		}
		kept = append(kept, ln)
	}
	if len(removed) == 0 {
		return content, nil, nil
	}
	kept = append(kept, lines[end:]...)
	if entries == 0 {
		// Only the heading is left: take the section out, with the blank
		// line Promote put before it.
		from := begin
		if from > 0 && lines[from-1] == "" {
			from--
		}
		kept = append(append([]string{}, lines[:from]...), lines[end+1:]...)
	}
	return strings.Join(kept, "\n"), removed, nil
}

// managed splits content into lines and finds the managed section: the
// begin and end markers' line numbers, or -1, -1 when there is none.
func managed(content string) (lines []string, begin, end int, err error) {
	lines = strings.Split(content, "\n")
	begin, end = -1, -1
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		switch {
		case begin < 0 && strings.HasPrefix(t, beginPrefix):
			begin = i
		case begin >= 0 && t == EndMarker:
			return lines, begin, i, nil
		}
	}
	if begin >= 0 {
		return lines, -1, -1, ErrNoEnd
	}
	return lines, -1, -1, nil
}

// lineID is the id a managed line names, "" for another line.
func lineID(ln string) string {
	ln = strings.TrimSpace(ln)
	i := strings.LastIndex(ln, "(reflect ")
	if !strings.HasPrefix(ln, "- ") || i < 0 || !strings.HasSuffix(ln, ")") {
		return ""
	}
	return ln[i+len("(reflect ") : len(ln)-1]
}

func hasID(lines []string, id string) bool {
	for _, ln := range lines {
		if lineID(ln) == id {
			return true
		}
	}
	return false
}

func containsID(lines []string, id string) bool { return hasID(lines, id) }

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Target is an instruction file promote writes: the file itself when it
// is a symlink (CLAUDE.md pointing at AGENTS.md is common), which must be
// inside the repository.
type Target struct {
	// Name is the file as named, relative to Root.
	Name string
	// Path is the file written, symlinks resolved.
	Path string
	Root string
	// Content is the file's text, "" when it does not exist yet.
	Content string
	exists  bool
	mode    os.FileMode
}

// OpenTarget reads the instruction file name (relative to the repository
// root, or absolute inside it) through the bounded reader.
func OpenTarget(root, name string) (*Target, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, name)
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is outside the repository %s", name, root)
	}
	t := &Target{Name: filepath.ToSlash(rel), Path: path, Root: root, mode: 0o644}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		realRoot, _ := filepath.EvalSymlinks(root)
		if r, err := filepath.Rel(realRoot, real); err != nil || strings.HasPrefix(r, "..") {
			return nil, fmt.Errorf("%s links outside the repository; refusing to write through it", name)
		}
		t.Path = real
	}
	data, err := fsutil.ReadRegular(t.Path, MaxSourceSize)
	switch {
	case err == nil:
		t.Content, t.exists = string(data), true
		if fi, err := os.Stat(t.Path); err == nil {
			t.mode = fi.Mode().Perm()
		}
	case errors.Is(err, os.ErrNotExist):
	default:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// Write replaces the file's content atomically, keeping its mode.
func (t *Target) Write(content string) error {
	return fsutil.WriteAtomic(t.Path, []byte(content), t.mode)
}

// CheckoutBranch creates branch at HEAD in the repository and switches to
// it, with the system git (as sync does); the caller then writes the file
// and commits it alone (Commit).
func CheckoutBranch(ctx context.Context, root, branch string) error {
	if strings.HasPrefix(branch, "-") {
		return fmt.Errorf("branch %q may not start with '-'", branch)
	}
	return git(ctx, root, "checkout", "-q", "-b", branch)
}

// Commit commits the file at path (and nothing else) with message.
func Commit(ctx context.Context, root, path, message string) error {
	if err := git(ctx, root, "add", "--", path); err != nil {
		return err
	}
	return git(ctx, root, "commit", "-q", "-m", message, "--", path)
}

func git(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return nil
}
