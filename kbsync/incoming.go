package kbsync

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reflectkb/reflect/store"
)

// Refusal is one path of the remote's branch that sync would not let into
// the work tree: what arrives from a remote is untrusted, and git checks
// out symlinks, submodules and any file it is given.
type Refusal struct {
	// Path is the path, quoted when it holds control characters (it comes
	// from the remote and is printed to a terminal).
	Path string `json:"path"`
	raw  string
	// Mode is git's mode of the entry (120000 a symlink, 160000 a submodule).
	Mode string `json:"mode"`
	// Commit is the remote commit that last changed the path.
	Commit string `json:"commit,omitempty"`
	Reason string `json:"reason"`
}

// Why an incoming path is refused.
const (
	RefusedSymlink   = "a symlink"
	RefusedSubmodule = "a submodule"
	RefusedDocuments = "it replaces the documents/ directory"
	RefusedOutside   = "outside documents/*.md, documents/*.entities.yaml, .gitignore and .gitattributes"
	RefusedName      = "not a learning file name"
	RefusedMode      = "not a regular file"
	RefusedSize      = "larger than a learning may be"
)

// RefusedError is ErrRefused with what was refused. Whole says the merge
// was refused altogether (nothing of the remote was merged); otherwise the
// rest of the remote's changes were merged without the refused paths.
type RefusedError struct {
	Refused []Refusal
	Whole   bool
}

// String is "PATH: REASON (commit C)".
func (r Refusal) String() string {
	if r.Commit == "" {
		return r.Path + ": " + r.Reason
	}
	return fmt.Sprintf("%s: %s (commit %s)", r.Path, r.Reason, r.Commit)
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString("refused ")
	for i, r := range e.Refused {
		if i == maxRefusalsNamed {
			fmt.Fprintf(&b, "; and %d more", len(e.Refused)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r.String())
	}
	if e.Whole {
		b.WriteString("; nothing from the remote was merged, local work is intact")
	} else {
		b.WriteString("; the rest of the remote's changes were merged")
	}
	return b.String()
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// maxRefusalsNamed bounds the paths an error names and the commits looked
// up for them (one git log each): a hostile push may hold thousands.
const maxRefusalsNamed = 20

// inspect lists the entries of ref that differ from every merge base with
// HEAD (all of ref when there is none) and that sync refuses: symlinks and
// submodules anywhere, anything in place of documents/, any path that is
// not a learning, a sidecar or a file sync owns, and blobs larger than a
// learning may be. Deletions are not refused: they bring nothing in.
func inspect(ctx context.Context, g *gitCmd, ref string, bases []string) ([]Refusal, error) {
	froms := bases
	if len(froms) == 0 {
		empty, err := g.runInput(ctx, 0, "", "hash-object", "-t", "tree", "--stdin")
		if err != nil {
			return nil, err
		}
		froms = []string{strings.TrimSpace(empty)}
	}
	seen := map[string]bool{}
	var out []Refusal
	sizes := map[string][]int{} // blob → indexes into entries to size-check
	type entry struct{ path, mode, blob string }
	var entries []entry
	for _, from := range froms {
		// Plumbing: no user setting (diff.ignoreSubmodules, diff.renames)
		// can hide an entry from it.
		raw, err := g.run(ctx, 0, "diff-tree", "-r", "-z", "--no-renames", "--no-abbrev", "--ignore-submodules=none", from, ref)
		if err != nil {
			return nil, err
		}
		recs := strings.Split(raw, "\x00")
		for i := 0; i+1 < len(recs); i += 2 {
			// ":srcmode dstmode srcsha dstsha status" then the path.
			f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
			p := recs[i+1]
			if len(f) < 5 || seen[p] {
				continue
			}
			seen[p] = true
			mode, blob := f[1], f[3]
			if f[4] == "D" || mode == "000000" {
				continue
			}
			if reason := refuse(p, mode); reason != "" {
				out = append(out, Refusal{Path: shownPath(p), raw: p, Mode: mode, Reason: reason})
				continue
			}
			sizes[blob] = append(sizes[blob], len(entries))
			entries = append(entries, entry{p, mode, blob})
		}
	}
	if len(entries) > 0 {
		var in strings.Builder
		for blob := range sizes {
			in.WriteString(blob + "\n")
		}
		res, err := g.runInput(ctx, 0, in.String(), "cat-file", "--batch-check=%(objectname) %(objectsize)")
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(res, "\n") {
			blob, size, ok := strings.Cut(line, " ")
			if n, err := strconv.ParseInt(size, 10, 64); ok && err == nil && n > store.MaxDocumentSize {
				for _, i := range sizes[blob] {
					out = append(out, Refusal{Path: shownPath(entries[i].path), raw: entries[i].path, Mode: entries[i].mode, Reason: RefusedSize})
				}
			}
		}
	}
	exclude := make([]string, 0, len(bases)+1)
	exclude = append(exclude, ref)
	for _, b := range bases {
		exclude = append(exclude, "^"+b)
	}
	for i := range out {
		if i == maxRefusalsNamed {
			break
		}
		c, err := g.run(ctx, 0, append(append([]string{"--literal-pathspecs", "log", "-1", "--format=%h"}, exclude...), "--", out[i].raw)...)
		if err == nil {
			out[i].Commit = strings.TrimSpace(c)
		}
	}
	return out, nil
}

// shownPath is p fit for a terminal and a log: quoted when it holds a
// control character or is not UTF-8, and cut to a sane length.
func shownPath(p string) string {
	if len(p) > 300 {
		p = p[:300] + "…"
	}
	if !utf8.ValidString(p) || strings.IndexFunc(p, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

// refuse says why an incoming entry may not be checked out, or "".
func refuse(p, mode string) string {
	switch {
	case mode == "120000":
		if p == "documents" {
			return RefusedDocuments
		}
		return RefusedSymlink
	case mode == "160000":
		if p == "documents" {
			return RefusedDocuments
		}
		return RefusedSubmodule
	case p == "documents":
		return RefusedDocuments
	case mode != "100644" && mode != "100755":
		return RefusedMode
	case ownedFiles[p]:
		return ""
	}
	dir, name := path.Split(p)
	if dir != "documents/" {
		return RefusedOutside
	}
	id, ok := strings.CutSuffix(name, sidecarExt)
	if !ok {
		if id, ok = strings.CutSuffix(name, ".md"); !ok {
			return RefusedOutside
		}
	}
	if !store.ValidID(id) {
		return RefusedName
	}
	return ""
}

// wholeRefusal reports whether refused paths cannot be left out of a
// merge safely: without its replacement of documents/, the remote's
// commit would read as deleting every learning.
func wholeRefusal(refused []Refusal) bool {
	for _, r := range refused {
		if r.raw == "documents" || r.Reason == RefusedDocuments {
			return true
		}
	}
	return false
}

// sanitise returns a commit whose parent is ref and whose tree is ref's
// with each refused path put back as the merge base had it (or left out
// when the base had none): merging it brings everything else the remote
// changed, and pushing it removes the refused paths from the remote's tip.
// It is built in a private index, so nothing touches the work tree.
func sanitise(ctx context.Context, g *gitCmd, ref string, bases []string, refused []Refusal, host string) (string, error) {
	gitDir, err := g.run(ctx, 0, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", err
	}
	idx := filepath.Join(strings.TrimSpace(gitDir), "reflect-incoming.index")
	_ = os.Remove(idx)
	defer os.Remove(idx)
	gi := &gitCmd{dir: g.dir, env: append(append([]string(nil), g.env...), "GIT_INDEX_FILE="+idx)}
	if _, err := gi.run(ctx, 0, "read-tree", ref); err != nil {
		return "", err
	}
	var restore strings.Builder
	var remove []string
	for _, r := range refused {
		back := ""
		if len(bases) > 0 {
			// ls-tree of one path: "<mode> <type> <object>\t<path>"
			out, _ := g.run(ctx, 0, "--literal-pathspecs", "ls-tree", "-z", bases[0], "--", r.raw)
			meta, p, ok := strings.Cut(strings.TrimSuffix(out, "\x00"), "\t")
			if f := strings.Fields(meta); ok && p == r.raw && len(f) == 3 && f[1] == "blob" && refuse(p, f[0]) == "" {
				back = f[0] + " " + f[2] + "\t" + p + "\x00"
			}
		}
		if back == "" {
			remove = append(remove, r.raw)
		} else {
			restore.WriteString(back)
		}
	}
	for len(remove) > 0 {
		n := min(len(remove), 500)
		if _, err := gi.run(ctx, 0, append([]string{"update-index", "--force-remove", "--"}, remove[:n]...)...); err != nil {
			return "", err
		}
		remove = remove[n:]
	}
	if restore.Len() > 0 {
		if _, err := gi.runInput(ctx, 0, restore.String(), "update-index", "-z", "--index-info"); err != nil {
			return "", err
		}
	}
	tree, err := gi.run(ctx, 0, "write-tree")
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("reflect sync: refused %d path(s) of origin on %s\n\n", len(refused), host)
	for i, r := range refused {
		if i == maxRefusalsNamed {
			msg += fmt.Sprintf("and %d more\n", len(refused)-i)
			break
		}
		msg += fmt.Sprintf("%s: %s\n", r.Path, r.Reason)
	}
	commit, err := g.run(ctx, 0, "commit-tree", strings.TrimSpace(tree), "-p", ref, "-m", msg)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(commit), nil
}
