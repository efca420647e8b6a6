package importer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/store"
)

// Options say what to import.
type Options struct {
	// Cwd is the directory whose repository is the current project.
	Cwd string
	// Paths are files or directories named on the command line; none
	// means the sources Find lists.
	Paths []string
	Kinds []Kind
	// All imports every project's Claude Code memory and Codex's
	// memories besides the current project's files.
	All  bool
	Dirs Dirs
	Now  time.Time
}

// Source is one file import read (or could not).
type Source struct {
	File
	SHA256 string `json:"sha256,omitempty"`
	Rules  int    `json:"rules"`
	// Changed says the file differs from what the last import read.
	Changed bool `json:"changed,omitempty"`
	// Error says why the file was skipped.
	Error string `json:"error,omitempty"`
}

// Plan is what a set of sources holds: the learnings to import, in
// source order, and each source's outcome.
type Plan struct {
	Sources   []Source
	Learnings []*store.Learning
}

// ErrNoProject is Collect's error when there is nothing to look in: no
// repository around Cwd, no path and no --all.
var ErrNoProject = errors.New("not inside a git repository: name the files to import, or use --all for the agents' memories")

// Collect finds and reads the sources opts names and makes their rules
// learnings. A source that cannot be read is listed with its error and
// the others go on. st (the last import's hashes) says which changed.
func Collect(ctx context.Context, opts Options, st State) (Plan, error) {
	var (
		files []File
		plan  Plan
	)
	root := gitrepo.Root(opts.Cwd)
	if len(opts.Paths) > 0 {
		for _, p := range opts.Paths {
			fs, err := opts.expand(p)
			if err != nil {
				plan.Sources = append(plan.Sources, Source{File: File{Path: p, Name: p}, Error: err.Error()})
			}
			files = append(files, fs...)
		}
	} else {
		if root == "" && !opts.All && !slices.Contains(opts.Kinds, CodexMemories) {
			return plan, ErrNoProject
		}
		fs, problems := Find(root, opts.Kinds, opts.All, opts.Dirs)
		for _, err := range problems {
			plan.Sources = append(plan.Sources, Source{Error: err.Error()})
		}
		files = fs
	}
	projects := map[string]string{}
	projectOf := func(f File) string {
		r := f.Root
		if f.Kind == ClaudeMemory && root != "" && filepath.Base(filepath.Dir(filepath.Dir(f.Path))) == ClaudeSlug(root) {
			r = root
		}
		if r == "" {
			return ""
		}
		if p, ok := projects[r]; ok {
			return p
		}
		projects[r] = gitrepo.Project(ctx, r)
		return projects[r]
	}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Path] {
			continue
		}
		seen[f.Path] = true
		r, err := ReadFile(f)
		src := Source{File: f, SHA256: r.SHA256, Rules: len(r.Rules), Changed: st.Changed(r)}
		if err != nil {
			src.Error = err.Error()
			plan.Sources = append(plan.Sources, src)
			continue
		}
		plan.Sources = append(plan.Sources, src)
		project := projectOf(f)
		for _, rule := range r.Rules {
			plan.Learnings = append(plan.Learnings, Learning(f, rule, project, opts.Now))
		}
	}
	return plan, nil
}

// expand turns a path from the command line into files: a file as it is
// (its kind from its name), a directory as a repository whose sources
// Find lists.
func (opts Options) expand(p string) ([]File, error) {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory", p)
		}
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		kinds := opts.Kinds
		if len(kinds) == 0 {
			kinds = []Kind{Claude, Agents, Gemini, Copilot, Cursor, MemoryBank}
		}
		fs, problems := Find(abs, kinds, false, opts.Dirs)
		if len(fs) == 0 && len(problems) == 0 {
			// A folder of notes (memory-bank/, an agent's memory
			// directory): its markdown files.
			root := gitrepo.Root(abs)
			for _, pat := range []string{"*.md", "*.mdc"} {
				ms, _ := filepath.Glob(filepath.Join(abs, pat))
				for _, m := range ms {
					fs = append(fs, FileFor(m, root, opts.Dirs))
				}
			}
		}
		if len(fs) == 0 && len(problems) == 0 {
			return nil, fmt.Errorf("%s: no instruction files in it", p)
		}
		return fs, errors.Join(problems...)
	}
	root := gitrepo.Root(filepath.Dir(abs))
	return []File{FileFor(abs, root, opts.Dirs)}, nil
}

// Record notes the sources read without error in st, as imported at now.
func (st State) Record(sources []Source, now time.Time) {
	for _, s := range sources {
		if s.Error == "" && s.Path != "" {
			st[s.Path] = Seen{SHA256: s.SHA256, Imported: now.UTC(), Rules: s.Rules}
		}
	}
}
