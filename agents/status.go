package agents

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/lazyre"
)

// AgentStatus is what `reflect status` and `doctor` say about one agent:
// whether reflect is installed into it, the agent's version when its
// executable answers --version, and whether its hooks will run.
type AgentStatus struct {
	Agent string `json:"agent"` // reflect's name: claude, codex, …
	Name  string `json:"name"`  // the agent's own: Claude Code, …
	// Installed is true when the agent's file holds reflect's hooks (or,
	// for OpenCode, reflect's plugin).
	Installed bool   `json:"installed"`
	Path      string `json:"path"`
	Entries   int    `json:"entries"`
	// Executable is where the agent's command was found on PATH ("" when
	// it was not); Version is what its --version printed.
	Executable string `json:"executable,omitempty"`
	Version    string `json:"version,omitempty"`
	// HooksRun says whether the agent will run reflect's hooks as its
	// files stand; Detail says why (or why not).
	HooksRun bool   `json:"hooks_run"`
	Detail   string `json:"detail"`
	Error    string `json:"error,omitempty"`
}

// versionTimeout bounds `AGENT --version`: status must not hang on an
// agent that wants a login or a network first.
const versionTimeout = 5 * time.Second

// Statuses reports every agent of the registry, in its order, finding
// their files through dirs. It runs
// each installed agent's --version (never from a hook: only status and
// doctor call this).
func Statuses(ctx context.Context, dirs Dirs) []AgentStatus {
	out := make([]AgentStatus, 0, len(registry))
	for _, a := range registry {
		out = append(out, status(ctx, a, dirs))
	}
	return out
}

func status(ctx context.Context, a agentSpec, dirs Dirs) AgentStatus {
	st := AgentStatus{Agent: a.name, Name: a.display}
	if p, err := exec.LookPath(a.executable); err == nil {
		st.Executable = p
		st.Version = version(ctx, p)
	}
	res, err := Uninstall(InstallOptions{Agent: a.name, DryRun: true, Dirs: dirs})
	st.Path = res.Path
	if err != nil {
		st.Error = err.Error()
		st.Detail = "cannot read " + res.Path
		return st
	}
	st.Entries = len(res.Removed)
	st.Installed = st.Entries > 0
	if !st.Installed {
		st.Detail = fmt.Sprintf("not installed (reflect install %s)", a.name)
		return st
	}
	st.HooksRun, st.Detail = hooksRun(a, res.Path)
	return st
}

// hooksRun says whether a installed agent runs reflect's hooks: what its
// spec's hooksRun says, else that it runs them.
func hooksRun(a agentSpec, path string) (bool, string) {
	if a.hooksRun != nil {
		return a.hooksRun(path)
	}
	return true, a.display + " runs them"
}

// versionRe is compiled on first use: this package is linked into every
// hook process, which never asks for a version.
var versionRe = lazyre.New(`\d+\.\d+\.\d+[0-9A-Za-z.+-]*`)

// version runs `bin --version` and keeps the first version number it
// prints; "" when it fails or prints none in time.
func version(ctx context.Context, bin string) string {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(string(out), "\n")
	// "GitHub Copilot CLI 1.0.102." ends its sentence with a dot.
	return strings.TrimRight(versionRe.Get().FindString(first), ".-+")
}
