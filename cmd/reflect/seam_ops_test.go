package main

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/kbsync"
)

// The runF seams of the operational commands (hooks, drain, sync, install,
// the servers): flags and arguments land in the options, and the usage
// errors a command owns come before runF. Like seam_test.go, nothing here
// loads a configuration or opens an index.

// refused runs cmd with args and fails the test unless it ends in a usage
// error (exit 2) without calling runF.
func refused(t *testing.T, cmd *cobra.Command, called *bool, args ...string) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); exitCode(err) != 2 || *called {
		t.Errorf("%s %q: err %v (exit %d), runF called %v; want a usage error before runF", cmd.Name(), args, err, exitCode(err), *called)
	}
}

func TestDrainHookFlags(t *testing.T) {
	t.Parallel()
	var drain *DrainOptions
	execute(t, NewCmdDrain(seamFactory(), func(o *DrainOptions) error { drain = o; return nil }),
		"--detach", "--max", "3", "--writer", "codex", "--dry-run", "--json")
	if want := (DrainOptions{Detach: true, DryRun: true, JSON: true, Max: 3, Writer: "codex"}); drain == nil || *drain != want {
		t.Errorf("drain: %+v, want %+v", drain, want)
	}
	execute(t, NewCmdDrain(seamFactory(), func(o *DrainOptions) error { drain = o; return nil }))
	if *drain != (DrainOptions{}) {
		t.Errorf("drain defaults: %+v", drain)
	}

	var hook *HookOptions
	// Unknown flags are tolerated: an agent's newer hook line must not
	// make the hook fail.
	execute(t, NewCmdHook(seamFactory(), func(o *HookOptions) error { hook = o; return nil }),
		"stop", "--agent", "gemini", "--from-the-future")
	if hook == nil || *hook != (HookOptions{Event: "stop", Agent: "gemini"}) {
		t.Errorf("hook: %+v", hook)
	}
	execute(t, NewCmdHook(seamFactory(), func(o *HookOptions) error { hook = o; return nil }))
	if *hook != (HookOptions{}) {
		t.Errorf("hook without arguments: %+v", hook)
	}
}

func TestRecallGraphFlags(t *testing.T) {
	t.Parallel()
	var rc *RecallOptions
	f := seamFactory()
	execute(t, NewCmdRecall(f, func(o *RecallOptions) error { rc = o; return nil }),
		"--prompt", "sqlite locked", "--session", "s1", "--agent", "codex")
	if want := (RecallOptions{IO: f.IO, Prompt: "sqlite locked", Session: "s1", Agent: "codex"}); rc == nil || *rc != want {
		t.Errorf("recall --prompt: %+v, want %+v", rc, want)
	}
	// --cwd given empty is still a session-start recall.
	execute(t, NewCmdRecall(f, func(o *RecallOptions) error { rc = o; return nil }), "--cwd", "", "--json")
	if want := (RecallOptions{IO: f.IO, CwdSet: true, JSON: true}); *rc != want {
		t.Errorf("recall --cwd: %+v, want %+v", rc, want)
	}
	for _, args := range [][]string{{}, {"--prompt", "x", "--cwd", "."}, {"--prompt", "x", "--agent", "vim"}, {"--prompt", "x", "--agent", "claude", "--json"}} {
		called := false
		refused(t, NewCmdRecall(seamFactory(), func(*RecallOptions) error { called = true; return nil }), &called, args...)
	}

	var g *GraphOptions
	f = seamFactory()
	execute(t, NewCmdGraph(f, func(o *GraphOptions) error { g = o; return nil }), "--type", "error", "--sort", "degree", "--community", "2", "-n", "0", "--json")
	if want := (GraphOptions{IO: f.IO, JSON: true, Type: "error", Community: 2, Sort: graph.ByDegree}); g == nil || *g != want {
		t.Errorf("graph: %+v, want %+v", g, want)
	}
	execute(t, NewCmdGraph(f, func(o *GraphOptions) error { g = o; return nil }))
	if want := (GraphOptions{IO: f.IO, Sort: graph.ByDocuments, Limit: 50}); *g != want {
		t.Errorf("graph defaults: %+v, want %+v", g, want)
	}
	for _, args := range [][]string{{"--sort", "size"}, {"--type", "errors"}, {"-n", "-1"}, {"--community", "-1"}} {
		called := false
		refused(t, NewCmdGraph(seamFactory(), func(*GraphOptions) error { called = true; return nil }), &called, args...)
	}
}

func TestInstallMCPFlags(t *testing.T) {
	t.Parallel()
	var in *InstallOptions
	execute(t, NewCmdInstall(seamFactory(), false, func(o *InstallOptions) error { in = o; return nil }),
		"copilot", "--dry-run", "--settings", "/tmp/s.json", "--json")
	want := InstallOptions{InstallOptions: agents.InstallOptions{Agent: "copilot", DryRun: true, SettingsPath: "/tmp/s.json"}, JSON: true}
	if in == nil || !reflect.DeepEqual(*in, want) {
		t.Errorf("install: %+v, want %+v", in, want)
	}
	execute(t, NewCmdInstall(seamFactory(), true, func(o *InstallOptions) error { in = o; return nil }), "--all")
	if want := (InstallOptions{Uninstall: true, All: true}); !reflect.DeepEqual(*in, want) {
		t.Errorf("uninstall --all: %+v, want %+v", in, want)
	}
	for _, tc := range []struct {
		uninstall bool
		args      []string
	}{{false, nil}, {false, []string{"vim"}}, {true, []string{"--all", "claude"}}, {true, []string{"--all", "--settings", "x"}}} {
		called := false
		refused(t, NewCmdInstall(seamFactory(), tc.uninstall, func(*InstallOptions) error { called = true; return nil }), &called, tc.args...)
	}

	execute(t, newCmdMCPInstall(seamFactory(), true, func(o *InstallOptions) error { in = o; return nil }), "opencode", "--json")
	if want := (InstallOptions{InstallOptions: agents.InstallOptions{Agent: "opencode"}, Uninstall: true, JSON: true}); !reflect.DeepEqual(*in, want) {
		t.Errorf("mcp uninstall: %+v, want %+v", in, want)
	}
	served := false
	execute(t, NewCmdMCP(seamFactory(), func(*MCPOptions) error { served = true; return nil }))
	if !served {
		t.Error("mcp: runF not called")
	}
}

func TestSyncFlags(t *testing.T) {
	t.Parallel()
	var got *SyncOptions
	runF := func(o *SyncOptions) error { got = o; return nil }
	execute(t, NewCmdSync(seamFactory(), runF), "--json", "--timeout", "5s")
	if want := (SyncOptions{JSON: true, Timeout: 5 * time.Second}); got == nil || *got != want {
		t.Errorf("sync: %+v, want %+v", got, want)
	}
	execute(t, NewCmdSync(seamFactory(), runF), "--background")
	if want := (SyncOptions{Background: true, Timeout: kbsync.DefaultTimeout}); *got != want {
		t.Errorf("sync --background: %+v, want %+v", got, want)
	}
	execute(t, NewCmdSync(seamFactory(), runF), "init", "git@example.com:me/l.git", "--branch", "trunk")
	if want := (SyncOptions{Init: true, Remote: "git@example.com:me/l.git", Branch: "trunk", Timeout: kbsync.DefaultTimeout}); *got != want {
		t.Errorf("sync init: %+v, want %+v", got, want)
	}
	execute(t, NewCmdSync(seamFactory(), runF), "init")
	if want := (SyncOptions{Init: true, Branch: "main", Timeout: kbsync.DefaultTimeout}); *got != want {
		t.Errorf("sync init without a remote: %+v, want %+v", got, want)
	}

	var m *MergeLearningOptions
	execute(t, NewCmdMergeLearning(seamFactory(), func(o *MergeLearningOptions) error { m = o; return nil }), "b", "o", "t", "documents/x.md")
	if m == nil || *m != (MergeLearningOptions{Base: "b", Ours: "o", Theirs: "t", Path: "documents/x.md"}) {
		t.Errorf("merge-learning: %+v", m)
	}
	execute(t, NewCmdMergeLearning(seamFactory(), func(o *MergeLearningOptions) error { m = o; return nil }), "b", "o", "t")
	if m.Path != "o" {
		t.Errorf("merge-learning without PATH: %+v, want the path of ours", m)
	}
}

func TestSmallCommandFlags(t *testing.T) {
	t.Parallel()
	f := seamFactory()
	var docs *DocsOptions
	execute(t, NewCmdDocs(f, func(o *DocsOptions) error { docs = o; return nil }), "--man", "out/man1")
	if docs == nil || docs.ManDir != "out/man1" || docs.MarkdownDir != "" || docs.IO != f.IO || docs.Getenv == nil {
		t.Errorf("docs: %+v", docs)
	}
	for _, args := range [][]string{{}, {"--man", "a", "--markdown", "b"}} {
		called := false
		refused(t, NewCmdDocs(seamFactory(), func(*DocsOptions) error { called = true; return nil }), &called, args...)
	}

	var doc *DoctorOptions
	execute(t, NewCmdDoctor(f, func(o *DoctorOptions) error { doc = o; return nil }), "--json")
	if doc == nil || !doc.JSON {
		t.Errorf("doctor: %+v", doc)
	}
	var ri *ReindexOptions
	execute(t, NewCmdReindex(f, func(o *ReindexOptions) error { ri = o; return nil }), "--full", "--json")
	if ri == nil || *ri != (ReindexOptions{Full: true, JSON: true}) {
		t.Errorf("reindex: %+v", ri)
	}
	var sl *StatuslineOptions
	execute(t, NewCmdStatusline(f, func(o *StatuslineOptions) error { sl = o; return nil }), "--session", "s1")
	if sl == nil || *sl != (StatuslineOptions{Session: "s1", Color: "auto"}) {
		t.Errorf("statusline: %+v", sl)
	}
	var v *VersionOptions
	execute(t, NewCmdVersion(f, func(o *VersionOptions) error { v = o; return nil }), "--json")
	if v == nil || *v != (VersionOptions{IO: f.IO, JSON: true}) {
		t.Errorf("version: %+v", v)
	}

	var ui *UIOptions
	execute(t, NewCmdUI(f, func(o *UIOptions) error { ui = o; return nil }), "--listen", "0.0.0.0:8765", "--open")
	if ui == nil || *ui != (UIOptions{Listen: "0.0.0.0:8765", Open: true}) {
		t.Errorf("ui: %+v", ui)
	}
	if got := ui.args(); !reflect.DeepEqual(got, []string{"--listen", "0.0.0.0:8765", "--open"}) {
		t.Errorf("ui passes %q to reflect-ui", got)
	}
	if got := (&UIOptions{Port: 8080}).args(); !reflect.DeepEqual(got, []string{"--port", "8080"}) {
		t.Errorf("ui --port passes %q", got)
	}
	for _, args := range [][]string{{"--port", "70000"}, {"--port", "1", "--listen", "x:1"}} {
		called := false
		refused(t, NewCmdUI(seamFactory(), func(*UIOptions) error { called = true; return nil }), &called, args...)
	}
}

func TestBenchFlags(t *testing.T) {
	t.Parallel()
	var rt *BenchRetrievalOptions
	execute(t, newCmdBenchRetrieval(seamFactory(), func(o *BenchRetrievalOptions) error { rt = o; return nil }),
		"--signals", "lexical,vector", "--run", "out.tsv", "--json", "d1", "d2")
	sig, err := index.ParseSignals("lexical,vector")
	if err != nil {
		t.Fatal(err)
	}
	if want := (BenchRetrievalOptions{Datasets: []string{"d1", "d2"}, RunPath: "out.tsv", Signals: sig, JSON: true}); rt == nil || !reflect.DeepEqual(*rt, want) {
		t.Errorf("bench retrieval: %+v, want %+v", rt, want)
	}
	for _, args := range [][]string{{}, {"--signals", "smell", "d"}} {
		called := false
		refused(t, newCmdBenchRetrieval(seamFactory(), func(*BenchRetrievalOptions) error { called = true; return nil }), &called, args...)
	}

	var gen *BenchGenerateOptions
	execute(t, newCmdBenchGenerate(seamFactory(), func(o *BenchGenerateOptions) error { gen = o; return nil }), "/tmp/kb", "--count", "7", "--seed", "3")
	if gen == nil || *gen != (BenchGenerateOptions{Dir: "/tmp/kb", Count: 7, Seed: 3}) {
		t.Errorf("bench generate: %+v", gen)
	}
	called := false
	refused(t, newCmdBenchGenerate(seamFactory(), func(*BenchGenerateOptions) error { called = true; return nil }), &called, "/tmp/kb", "--count", "0")

	var rc *BenchRecallOptions
	execute(t, newCmdBenchRecall(seamFactory(), func(o *BenchRecallOptions) error { rc = o; return nil }), "--set", "userset", "--sizes", "10,100", "--misses", "--padding", "everyday", "--questions")
	if want := (BenchRecallOptions{Sizes: []int{10, 100}, Set: "userset", Padding: "everyday", Questions: true, Misses: true}); rc == nil || !reflect.DeepEqual(*rc, want) {
		t.Errorf("bench recall: %+v, want %+v", rc, want)
	}
	for _, args := range [][]string{{"--sizes", "0"}, {"--set", "nope"}, {"--padding", "nope"}} {
		called := false
		refused(t, newCmdBenchRecall(seamFactory(), func(*BenchRecallOptions) error { called = true; return nil }), &called, args...)
	}
}
