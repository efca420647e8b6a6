package main

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/internal/config"
)

// Without reflect-mcp beside the binary or on PATH, reflect mcp says how to
// get it instead of failing obscurely.
func TestMCPWithoutServerBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if err := runMCPServer(); !errors.Is(err, errNoMCPBinary) {
		t.Fatalf("runMCPServer() = %v, want errNoMCPBinary", err)
	}
}

// The variables `reflect mcp install codex` tells Codex to pass to the
// server are exactly the REFLECT_* variables the configuration reads: one
// missing would leave the MCP server with other settings than the hooks.
func TestMCPEnvVarsAreTheConfigurationsVariables(t *testing.T) {
	home := t.TempDir()
	read := map[string]bool{}
	_, err := config.Load(func(key string) (string, bool) {
		if strings.HasPrefix(key, "REFLECT_") {
			read[key] = true
		}
		if key == "HOME" {
			return home, true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	passed := map[string]bool{}
	for _, v := range agents.MCPEnvVars {
		passed[v] = true
	}
	if len(read) == 0 || !maps.Equal(read, passed) {
		t.Errorf("the configuration reads %v; agents.MCPEnvVars passes %v", slices.Sorted(maps.Keys(read)), slices.Sorted(maps.Keys(passed)))
	}
}
