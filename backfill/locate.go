package backfill

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// source is where one agent keeps its sessions and what a session file's
// place says about it. Each lives in the agent's file (claude.go,
// codex.go, …); sources lists them.
type source struct {
	agent string
	// layouts returns where the agent keeps its sessions (ARCHITECTURE
	// §3 and the agent's documentation), nil when nowhere under d.
	layouts func(d Dirs) []layout
	// describe fills in what a file's place says: the session id when
	// the file's place holds what the agent's hooks send, a directory
	// the agent records beside the file, or why the file is not read.
	describe func(c *candidate)
	// prepare, when set, runs before the sessions are listed: OpenCode's
	// are copied out of its database beside the plugin's copies.
	prepare func(o Options) []Problem
}

// sources are the agents whose sessions backfill reads, in plan order,
// which is agents.Registry's (agents/registry_test.go holds them to it).
var sources = []source{claudeSource, codexSource, geminiSource, openCodeSource, copilotSource}

// Agents are the agents whose sessions backfill reads, in plan order.
var Agents = func() []string {
	names := make([]string, len(sources))
	for i, s := range sources {
		names[i] = s.agent
	}
	return names
}()

func sourceOf(agent string) (source, bool) {
	for _, s := range sources {
		if s.agent == agent {
			return s, true
		}
	}
	return source{}, false
}

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

// orDefault is v, or def when v is empty.
func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// locate lists agent's session files. A directory that is missing (the
// agent was never used here) lists nothing; one that cannot be read is a
// Problem, and the rest is listed.
func locate(d Dirs, agent string) ([]candidate, []Problem) {
	var out []candidate
	var probs []Problem
	src, ok := sourceOf(agent)
	if !ok {
		return nil, nil
	}
	for _, l := range src.layouts(d) {
		paths, ps := find(l)
		probs = append(probs, ps...)
		for _, p := range paths {
			c := candidate{agent: agent, path: p}
			src.describe(&c)
			out = append(out, c)
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

// stem is a session file's name without its extension.
func stem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// reason is err without the path the Problem already names.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", pe.Op, pe.Err)
	}
	return err.Error()
}
