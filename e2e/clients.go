// Package e2e drives the real Claude Code, Codex and Gemini CLIs, installed from
// npm at pinned versions, offline against the project's fake model server
// (e2e/fakemodel), with reflect's hooks installed in a temporary HOME. It
// is run by `make e2e`; see docs/e2e.md.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/proc"
)

// Versions are the client versions the suite runs: versions.env, unless
// E2E_CLAUDE_VERSION, E2E_CODEX_VERSION or E2E_GEMINI_VERSION say
// otherwise.
type Versions struct {
	Claude, Codex, Gemini string
	// Inspector is @modelcontextprotocol/inspector's version
	// (E2E_INSPECTOR_VERSION), for TestInspector; "" skips that test.
	Inspector string
	// OpenCode (opencode-ai, E2E_OPENCODE_VERSION) and Copilot
	// (@github/copilot, E2E_COPILOT_VERSION) are installed on their own,
	// by TestOpenCode and TestCopilot; "" skips the test.
	OpenCode, Copilot string
}

// LoadVersions reads KEY=VALUE lines from path (versions.env) and applies
// the environment's overrides.
func LoadVersions(path string) (Versions, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Versions{}, err
	}
	vals := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return Versions{}, fmt.Errorf("%s: %q is not KEY=VALUE", path, line)
		}
		k = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(k), "export "))
		// Make's ?= and := assignments are allowed so the Makefile can
		// include the same file.
		k = strings.TrimRight(k, "?:")
		vals[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	v := Versions{Claude: vals["E2E_CLAUDE_VERSION"], Codex: vals["E2E_CODEX_VERSION"]}
	if s := os.Getenv("E2E_CLAUDE_VERSION"); s != "" {
		v.Claude = s
	}
	if s := os.Getenv("E2E_CODEX_VERSION"); s != "" {
		v.Codex = s
	}
	v.Gemini = vals["E2E_GEMINI_VERSION"]
	if s := os.Getenv("E2E_GEMINI_VERSION"); s != "" {
		v.Gemini = s
	}
	v.Inspector = vals["E2E_INSPECTOR_VERSION"]
	if s := os.Getenv("E2E_INSPECTOR_VERSION"); s != "" {
		v.Inspector = s
	}
	v.OpenCode, v.Copilot = vals["E2E_OPENCODE_VERSION"], vals["E2E_COPILOT_VERSION"]
	if s := os.Getenv("E2E_OPENCODE_VERSION"); s != "" {
		v.OpenCode = s
	}
	if s := os.Getenv("E2E_COPILOT_VERSION"); s != "" {
		v.Copilot = s
	}
	if v.Claude == "" || v.Codex == "" || v.Gemini == "" {
		return v, fmt.Errorf("%s must set E2E_CLAUDE_VERSION, E2E_CODEX_VERSION and E2E_GEMINI_VERSION", path)
	}
	return v, nil
}

// nodeMajor is the major version of `node --version`.
func nodeMajor(ctx context.Context) (int, error) {
	out, err := exec.CommandContext(ctx, "node", "--version").Output()
	if err != nil {
		return 0, err
	}
	m := regexp.MustCompile(`^v(\d+)\.`).FindStringSubmatch(strings.TrimSpace(string(out)))
	if m == nil {
		return 0, fmt.Errorf("node --version printed %q", out)
	}
	return strconv.Atoi(m[1])
}

// MissingTools says why the clients cannot be installed here: no npm, no
// node, or a node older than 18. It returns "" when they can.
func MissingTools(ctx context.Context) string {
	if _, err := exec.LookPath("npm"); err != nil {
		return "npm is not on PATH"
	}
	major, err := nodeMajor(ctx)
	if err != nil {
		return "node is not usable: " + err.Error()
	}
	if major < 18 {
		return fmt.Sprintf("node %d is too old; the clients need node >= 18", major)
	}
	return ""
}

// Install makes the pinned clients available under cacheDir and returns
// the directory holding their claude and codex executables. A prefix whose
// installed versions match is reused without running npm.
func Install(ctx context.Context, cacheDir string, v Versions) (bin string, reused bool, err error) {
	prefix := filepath.Join(cacheDir, "clients", "claude-"+v.Claude+"_codex-"+v.Codex)
	bin = filepath.Join(prefix, "node_modules", ".bin")
	if installedVersion(prefix, "@anthropic-ai/claude-code") == v.Claude &&
		installedVersion(prefix, "@openai/codex") == v.Codex {
		return bin, true, nil
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", false, err
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", prefix,
		"--no-audit", "--no-fund", "--no-save", "--loglevel=error",
		"--cache", filepath.Join(cacheDir, "npm-cache"),
		"@anthropic-ai/claude-code@"+v.Claude, "@openai/codex@"+v.Codex)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", false, fmt.Errorf("npm install: %w\n%s", err, out)
	}
	for pkg, want := range map[string]string{"@anthropic-ai/claude-code": v.Claude, "@openai/codex": v.Codex} {
		if got := installedVersion(prefix, pkg); got != want {
			return "", false, fmt.Errorf("npm installed %s %q, want %q", pkg, got, want)
		}
	}
	return bin, false, nil
}

// geminiNode is the oldest node Gemini CLI runs on (its package.json's
// engines).
const geminiNode = 20

// MissingGeminiTools says why Gemini CLI cannot run here ("" when it can):
// it needs a newer node than the other clients.
func MissingGeminiTools(ctx context.Context) string {
	major, err := nodeMajor(ctx)
	if err != nil {
		return "node is not usable: " + err.Error()
	}
	if major < geminiNode {
		return fmt.Sprintf("node %d is too old; Gemini CLI needs node >= %d", major, geminiNode)
	}
	return ""
}

// InstallGemini makes the pinned Gemini CLI available under cacheDir, in a
// prefix of its own so that bumping it reinstalls nothing else, and
// returns the directory holding its gemini executable.
func InstallGemini(ctx context.Context, cacheDir, version string) (bin string, reused bool, err error) {
	return InstallPackage(ctx, cacheDir, "gemini", "@google/gemini-cli", version)
}

// InstallPackage makes one more npm client, pkg at version, available
// under cacheDir in a prefix of its own (so a bump of one client never
// reinstalls the others) and returns its node_modules/.bin. Both OpenCode
// and Copilot CLI ship their native binary as an optional dependency for
// the platform, which npm installs with the package.
func InstallPackage(ctx context.Context, cacheDir, name, pkg, version string) (bin string, reused bool, err error) {
	prefix := filepath.Join(cacheDir, "clients", name+"-"+version)
	bin = filepath.Join(prefix, "node_modules", ".bin")
	if installedVersion(prefix, pkg) == version {
		return bin, true, nil
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", false, err
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", prefix,
		"--no-audit", "--no-fund", "--no-save", "--loglevel=error",
		"--cache", filepath.Join(cacheDir, "npm-cache"), pkg+"@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", false, fmt.Errorf("npm install %s: %w\n%s", pkg, err, out)
	}
	if got := installedVersion(prefix, pkg); got != version {
		return "", false, fmt.Errorf("npm installed %s %q, want %q", pkg, got, version)
	}
	return bin, false, nil
}

func installedVersion(prefix, pkg string) string {
	data, err := os.ReadFile(filepath.Join(prefix, "node_modules", pkg, "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &p) != nil {
		return ""
	}
	return p.Version
}

// run runs name with args in dir under env, stdin closed, and returns its
// stdout; a non-zero exit is an error carrying stderr.
func run(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	// The clients are wrappers (node starting a native binary, which
	// starts MCP servers and shells): at the timeout the whole process
	// group is killed, and Wait stops waiting for pipes a straggler still
	// holds, so a hung client fails its test instead of the suite's
	// deadline.
	proc.InOwnGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Stdin stays nil: /dev/null, as codex exec needs it closed.
	err := cmd.Run()
	if err != nil {
		return stdout.Bytes(), fmt.Errorf("%s %s: %v\nstderr: %s\nstdout: %s", filepath.Base(name),
			strings.Join(args, " "), err, tail(stderr.String(), 2000), tail(stdout.String(), 2000))
	}
	return stdout.Bytes(), nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
