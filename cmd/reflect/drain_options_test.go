package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/internal/config"
)

// Every drain setting reaches drain.Options: drain reads no configuration,
// so a setting drainOptions forgets is silently ignored.
func TestDrainOptionsCarryEverySetting(t *testing.T) {
	kb := t.TempDir()
	c := &config.Config{
		StateDir:     "/state",
		LearningsDir: kb,
		File:         "/home/u/.reflect/config.toml",
		Drain: config.Drain{Writer: "command", Command: "my-writer -x", MaxPerRun: 7, DailyMax: 11,
			DailyUSD: 2.5, Timeout: 42 * time.Second, MaxAttempts: 5},
		Index:  config.Index{Embedder: "none"},
		Origin: map[string]string{"drain.writer": "env REFLECT_WRITER", "drain.command": "config.toml"},
	}
	o := drainOptions(c)
	if o.StateDir != "/state" || o.MaxPerRun != 7 || o.DailyMax != 11 || o.DailyUSD != 2.5 ||
		o.Timeout != 42*time.Second || o.MaxAttempts != 5 {
		t.Errorf("settings not carried: %+v", o)
	}
	want := writer.Choice{Name: "command", Command: "my-writer -x", StateDir: "/state",
		Origin: "env REFLECT_WRITER", CommandOrigin: "config.toml", ConfigFile: "/home/u/.reflect/config.toml"}
	if !reflect.DeepEqual(o.Choice, want) {
		t.Errorf("writer choice %+v, want %+v", o.Choice, want)
	}
	if o.Writer != nil || o.Max != 0 || o.DryRun {
		t.Errorf("drainOptions set what only flags and tests set: %+v", o)
	}
	// The opener opens the knowledge base under the learnings directory.
	ix, err := o.OpenIndex(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := os.Stat(filepath.Join(kb, "index")); err != nil {
		t.Errorf("the index was not opened under %s: %v", kb, err)
	}
}
