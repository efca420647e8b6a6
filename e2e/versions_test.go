package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// versions.env is read by make (as make syntax) and by the suite; the
// environment overrides it.
func TestLoadVersions(t *testing.T) {
	t.Setenv("E2E_CLAUDE_VERSION", "")
	t.Setenv("E2E_CODEX_VERSION", "")
	t.Setenv("E2E_GEMINI_VERSION", "")
	t.Setenv("E2E_OPENCODE_VERSION", "")
	t.Setenv("E2E_COPILOT_VERSION", "")
	v, err := LoadVersions("versions.env")
	if err != nil || v.Claude == "" || v.Codex == "" || v.Gemini == "" {
		t.Fatalf("versions.env: %+v, %v", v, err)
	}
	if v.OpenCode == "" || v.Copilot == "" {
		t.Errorf("versions.env pins no OpenCode or Copilot CLI: %+v", v)
	}
	t.Setenv("E2E_COPILOT_VERSION", "9.9.9")
	if v, err := LoadVersions("versions.env"); err != nil || v.Copilot != "9.9.9" || v.OpenCode == "" {
		t.Errorf("Copilot override: %+v, %v", v, err)
	}
	t.Setenv("E2E_COPILOT_VERSION", "")
	t.Setenv("E2E_CODEX_VERSION", "0.200.0")
	if v, err := LoadVersions("versions.env"); err != nil || v.Codex != "0.200.0" || v.Claude == "" {
		t.Errorf("override: %+v, %v", v, err)
	}
	bad := filepath.Join(t.TempDir(), "versions.env")
	t.Setenv("E2E_GEMINI_VERSION", "0.99.0")
	if v, err := LoadVersions("versions.env"); err != nil || v.Gemini != "0.99.0" {
		t.Errorf("Gemini override: %+v, %v", v, err)
	}
	if err := os.WriteFile(bad, []byte("E2E_CLAUDE_VERSION ?= 1.0.0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("E2E_CODEX_VERSION", "")
	if _, err := LoadVersions(bad); err == nil {
		t.Error("a file without the Codex version was accepted")
	}
}
