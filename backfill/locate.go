package backfill

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// Agents are the agents whose sessions backfill reads, in plan order.
var Agents = []string{"claude", "codex", "gemini", "opencode", "copilot"}

// Dirs are where the agents keep their sessions, as the command layer
// reads them from the configuration (config.AgentDirs); an empty field
// takes the agent's default under Home.
type Dirs struct {
	Home       string
	Claude     string // $CLAUDE_CONFIG_DIR; empty: Home/.claude
	Codex      string // $CODEX_HOME; empty: Home/.codex
	GeminiHome string // $GEMINI_CLI_HOME, Gemini CLI's replacement $HOME; empty: Home
	Copilot    string // $COPILOT_HOME; empty: Home/.copilot
	// StateDir holds reflect's copies of OpenCode sessions
	// (transcripts/opencode/): OpenCode keeps its own in a database,
	// which backfill copies there first (opencodedb.go).
	StateDir string
	// XDGData is $XDG_DATA_HOME, where OpenCode's database is; empty:
	// Home/.local/share.
	XDGData string
}

// Problem is a file or directory backfill could not read, named with why.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func (p Problem) Error() string { return p.Path + ": " + p.Reason }

// candidate is a session file found where its agent keeps it.
type candidate struct {
	agent string
	path  string
	// sessionID is the session's id when the file's place says it (the
	// hooks queue the same id), else "" and the transcript's own.
	sessionID string
	// cwdHint is the session's directory when the agent records it
	// beside the file rather than in it (Gemini CLI's .project_root).
	cwdHint string
	// unsupported, when set, says why the file is listed but not read.
	unsupported string
}

// layout is where one agent keeps its sessions: a root, and the names of
// the path below it, one pattern per level (filepath.Match), the last
// naming the files.
type layout struct {
	root     string
	patterns []string
}

// layouts returns where agent keeps its sessions (ARCHITECTURE §3 and
// each agent's documentation): Claude Code's projects/<project>/<id>.jsonl,
// Codex's rollouts by day (and archived ones), Gemini CLI's chats per
// project, reflect's copies of OpenCode sessions, Copilot CLI's
// session-state/<id>/events.jsonl.
func layouts(d Dirs, agent string) []layout {
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		return def
	}
	switch agent {
	case "claude":
		return []layout{{filepath.Join(or(d.Claude, filepath.Join(d.Home, ".claude")), "projects"), []string{"*", "*.jsonl"}}}
	case "codex":
		codex := or(d.Codex, filepath.Join(d.Home, ".codex"))
		return []layout{
			{filepath.Join(codex, "sessions"), []string{"*", "*", "*", "rollout-*.jsonl"}},
			{filepath.Join(codex, "archived_sessions"), []string{"rollout-*.jsonl"}},
		}
	case "gemini":
		return []layout{{filepath.Join(or(d.GeminiHome, d.Home), ".gemini", "tmp"), []string{"*", "chats", "*.json*"}}}
	case "opencode":
		if d.StateDir == "" {
			return nil
		}
		return []layout{{filepath.Join(d.StateDir, "transcripts", "opencode"), []string{"*.jsonl"}}}
	case "copilot":
		return []layout{{filepath.Join(or(d.Copilot, filepath.Join(d.Home, ".copilot")), "session-state"), []string{"*", "events.jsonl"}}}
	}
	return nil
}

// locate lists agent's session files. A directory that is missing (the
// agent was never used here) lists nothing; one that cannot be read is a
// Problem, and the rest is listed.
func locate(d Dirs, agent string) ([]candidate, []Problem) {
	var out []candidate
	var probs []Problem
	for _, l := range layouts(d, agent) {
		paths, ps := find(l)
		probs = append(probs, ps...)
		for _, p := range paths {
			out = append(out, describe(agent, l.root, p))
		}
	}
	return out, probs
}

// find walks l.root down the levels l.patterns name, without following
// symbolic links, and returns the entries of the last level that match.
func find(l layout) ([]string, []Problem) {
	var out []string
	var probs []Problem
	err := filepath.WalkDir(l.root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if p == l.root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			probs = append(probs, Problem{Path: p, Reason: reason(err)})
			if de != nil && de.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == l.root {
			if !de.IsDir() {
				probs = append(probs, Problem{Path: p, Reason: "not a directory"})
				return fs.SkipAll
			}
			return nil
		}
		rel, _ := filepath.Rel(l.root, p)
		level := strings.Count(rel, string(filepath.Separator))
		if ok, _ := filepath.Match(l.patterns[level], de.Name()); !ok {
			if de.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		last := level == len(l.patterns)-1
		switch {
		case de.IsDir() && last:
			return fs.SkipDir
		case de.IsDir():
			return nil
		case last:
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		probs = append(probs, Problem{Path: l.root, Reason: reason(err)})
	}
	return out, probs
}

// describe makes the candidate of a session file: its id from the file's
// place where that is what the agent's hooks send, Gemini CLI's project
// directory from .project_root, and the files backfill cannot read.
func describe(agent, root, path string) candidate {
	c := candidate{agent: agent, path: path}
	base := filepath.Base(path)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	switch agent {
	case "claude", "opencode":
		c.sessionID = stem
	case "codex":
		// rollout-<time>-<thread id, a UUID>.jsonl
		if len(stem) > 36 {
			c.sessionID = stem[len(stem)-36:]
		}
	case "copilot":
		c.sessionID = filepath.Base(filepath.Dir(path))
	case "gemini":
		if filepath.Ext(base) != ".jsonl" {
			c.unsupported = "a Gemini CLI chat in the format before 0.61 (one JSON document), which reflect does not read"
		}
		c.cwdHint = projectRoot(filepath.Dir(filepath.Dir(path)))
	}
	return c
}

// projectRoot is the directory Gemini CLI's .project_root in dir names,
// or "" (older versions name the directory by a hash and keep no file).
func projectRoot(dir string) string {
	data, err := fsutil.ReadRegular(filepath.Join(dir, ".project_root"), 4096)
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(data))
	if !filepath.IsAbs(p) || strings.ContainsAny(p, "\n\x00") {
		return ""
	}
	return filepath.Clean(p)
}

// reason is err without the path the Problem already names.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", pe.Op, pe.Err)
	}
	return err.Error()
}
