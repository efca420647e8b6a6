package main

import (
	"errors"
	"testing"
)

// Without reflect-mcp beside the binary or on PATH, reflect mcp says how to
// get it instead of failing obscurely.
func TestMCPWithoutServerBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if err := runMCPServer(); !errors.Is(err, errNoMCPBinary) {
		t.Fatalf("runMCPServer() = %v, want errNoMCPBinary", err)
	}
}
