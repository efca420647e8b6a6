package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Kind names a source format, as `reflect import --from` takes it.
type Kind string

// The formats import reads.
const (
	Claude        Kind = "claude"         // CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, .claude/rules/*.md
	Agents        Kind = "agents"         // AGENTS.md
	Gemini        Kind = "gemini"         // GEMINI.md
	Copilot       Kind = "copilot"        // .github/copilot-instructions.md
	Cursor        Kind = "cursor"         // .cursor/rules/*.mdc and .cursorrules
	ClaudeMemory  Kind = "claude-memory"  // Claude Code's auto memory: <claude>/projects/<slug>/memory/*.md
	CodexMemories Kind = "codex-memories" // Codex's memory handbook: <codex>/memories/MEMORY.md
	MemoryBank    Kind = "memory-bank"    // a memory-bank/ folder of markdown (Cline's convention)
	// Markdown is any other markdown file named on the command line.
	Markdown Kind = "markdown"
)

// Kinds are the formats --from accepts, in the order import reads them.
var Kinds = []Kind{Claude, Agents, Gemini, Copilot, Cursor, MemoryBank, ClaudeMemory, CodexMemories}

// ParseKind checks a --from value.
func ParseKind(s string) (Kind, error) {
	if k := Kind(s); slices.Contains(Kinds, k) {
		return k, nil
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown source %q: use one of %s", s, strings.Join(names, ", "))
}

// Dirs are where the agents keep their files: the home directory and the
// relocations ($CLAUDE_CONFIG_DIR, $CODEX_HOME; empty: the default under
// Home).
type Dirs struct {
	Home, Claude, Codex string
}

// ClaudeDir is Claude Code's directory.
func (d Dirs) ClaudeDir() string {
	if d.Claude != "" {
		return d.Claude
	}
	return filepath.Join(d.Home, ".claude")
}

// CodexDir is Codex's directory.
func (d Dirs) CodexDir() string {
	if d.Codex != "" {
		return d.Codex
	}
	return filepath.Join(d.Home, ".codex")
}

// File is one source file to import.
type File struct {
	// Path is the file's absolute path.
	Path string `json:"path"`
	// Name is how learnings name it (source.file): relative to Root for a
	// repository file, "~/…" under the home directory, else Path.
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Root is the repository holding the file, "" for an agent's own file.
	Root string `json:"root,omitempty"`
}

// repoFiles are the patterns of each kind's files in a repository.
var repoFiles = map[Kind][]string{
	Claude:     {"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", ".claude/rules/*.md"},
	Agents:     {"AGENTS.md"},
	Gemini:     {"GEMINI.md"},
	Copilot:    {".github/copilot-instructions.md"},
	Cursor:     {".cursorrules", ".cursor/rules/*.mdc"},
	MemoryBank: {"memory-bank/*.md"},
}

// Find lists the source files of the given kinds (all when none) for the
// repository root (skipped when ""): the repository's own files, Claude
// Code's auto memory for that repository (every project's when all), and
// Codex's memories (only when asked for by kind or all, since they are
// not a project's). Files that do not exist are not listed; a directory
// or file that cannot be listed is returned as a problem naming itself.
func Find(root string, kinds []Kind, all bool, d Dirs) (files []File, problems []error) {
	want := func(k Kind) bool { return len(kinds) == 0 || slices.Contains(kinds, k) }
	add := func(k Kind, pattern, root string) {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", pattern, err))
			return
		}
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.IsDir() {
				continue
			}
			files = append(files, d.file(m, k, root))
		}
	}
	for _, k := range Kinds {
		if !want(k) {
			continue
		}
		switch k {
		case ClaudeMemory:
			dir := filepath.Join(d.ClaudeDir(), "projects")
			if all {
				add(k, filepath.Join(dir, "*", "memory", "*.md"), "")
			} else if root != "" {
				add(k, filepath.Join(dir, ClaudeSlug(root), "memory", "*.md"), "")
			}
		case CodexMemories:
			// Only the handbook: memory_summary.md is a digest of it
			// that Codex puts in every session itself, raw_memories.md
			// and rollout_summaries/ the evidence it was written from.
			if all || len(kinds) > 0 {
				add(k, filepath.Join(d.CodexDir(), "memories", "MEMORY.md"), "")
			}
		default:
			if root == "" {
				continue
			}
			for _, p := range repoFiles[k] {
				add(k, filepath.Join(root, filepath.FromSlash(p)), root)
			}
		}
	}
	return files, problems
}

// FileFor describes a file named on the command line; its kind comes from
// its name and place, root is the repository around it ("" for none).
func FileFor(path, root string, d Dirs) File {
	return d.file(path, KindOf(path, d), root)
}

func (d Dirs) file(path string, k Kind, root string) File {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	f := File{Path: abs, Kind: k, Name: abs}
	if root != "" && !strings.HasPrefix(abs, d.ClaudeDir()+string(filepath.Separator)) {
		if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
			f.Root, f.Name = root, filepath.ToSlash(rel)
			return f
		}
	}
	if d.Home != "" {
		if rel, err := filepath.Rel(d.Home, abs); err == nil && !strings.HasPrefix(rel, "..") {
			f.Name = "~/" + filepath.ToSlash(rel)
		}
	}
	return f
}

// KindOf is the format of a file named on the command line.
func KindOf(path string, d Dirs) Kind {
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	abs, _ := filepath.Abs(path)
	switch {
	case base == "CLAUDE.md" || base == "CLAUDE.local.md":
		return Claude
	case base == "AGENTS.md" || base == "AGENTS.override.md":
		return Agents
	case base == "GEMINI.md":
		return Gemini
	case base == "copilot-instructions.md":
		return Copilot
	case base == ".cursorrules" || strings.HasSuffix(base, ".mdc"):
		return Cursor
	case dir == "memory-bank":
		return MemoryBank
	case dir == "memory" && strings.HasPrefix(abs, filepath.Join(d.ClaudeDir(), "projects")+string(filepath.Separator)):
		return ClaudeMemory
	case base == "MEMORY.md" && dir == "memories" && strings.HasPrefix(abs, d.CodexDir()+string(filepath.Separator)):
		return CodexMemories
	case dir == "rules" && filepath.Base(filepath.Dir(filepath.Dir(path))) == ".claude":
		return Claude
	}
	return Markdown
}

// ClaudeSlug is the name Claude Code gives a project's directory under
// ~/.claude/projects: its path with every character other than an ASCII
// letter or digit turned into '-'.
func ClaudeSlug(dir string) string {
	b := []byte(dir)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}
