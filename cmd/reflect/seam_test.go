package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
)

// These tests use the commands' runF seam: they check that flags and
// arguments land in the options struct, without a configuration, an index
// or a knowledge base, so they run in parallel.

// seamFactory is a factory whose environment is empty: a command that got
// past its runF and loaded the configuration would find no HOME.
func seamFactory() *Factory {
	return &Factory{IO: &Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}},
		LookupEnv: config.MapLookup(nil)}
}

// execute runs cmd with args and fails the test when it errs.
func execute(t *testing.T, cmd *cobra.Command, args ...string) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%s %q: %v", cmd.Name(), args, err)
	}
}

func TestSearchFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want SearchOptions
	}{
		{[]string{"oauth", "cookie"}, SearchOptions{Query: "oauth cookie", Limit: 10}},
		{[]string{"-n", "3", "--explain", "--json", "--", "-fPIC", "relocation"},
			SearchOptions{Query: "-fPIC relocation", Limit: 3, Explain: true, JSON: true}},
		// --project "" is given, so it replaces the current directory's.
		{[]string{"--project", "", "x"}, SearchOptions{Query: "x", Limit: 10, ProjectSet: true}},
		{[]string{"--project=auth", "x"}, SearchOptions{Query: "x", Limit: 10, Project: "auth", ProjectSet: true}},
	} {
		var got *SearchOptions
		f := seamFactory()
		execute(t, NewCmdSearch(f, func(o *SearchOptions) error { got = o; return nil }), tc.args...)
		tc.want.IO = f.IO
		if got == nil || !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("search %q: options %+v, want %+v", tc.args, got, tc.want)
		}
	}
	// An out-of-range limit is refused before runF: the validation is the
	// command's, not the run's.
	called := false
	cmd := NewCmdSearch(seamFactory(), func(*SearchOptions) error { called = true; return nil })
	cmd.SetArgs([]string{"--limit", "0", "x"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err == nil || called || exitCode(err) != 2 {
		t.Errorf("--limit 0: err %v (exit %d), runF called %v; want a usage error before runF", err, exitCode(err), called)
	}
}

func TestListFlags(t *testing.T) {
	t.Parallel()
	var got *ListOptions
	execute(t, NewCmdList(seamFactory(), func(o *ListOptions) error { got = o; return nil }), "-n", "5", "--project", "auth-service", "--json")
	want := ListOptions{ListOptions: index.ListOptions{Limit: 5, Project: "auth-service"}, JSON: true}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("list: options %+v, want %+v", got, want)
	}
	execute(t, NewCmdList(seamFactory(), func(o *ListOptions) error { got = o; return nil }))
	if got.Limit != 50 || got.JSON || got.Project != "" {
		t.Errorf("list defaults: %+v", got)
	}
}

func TestShowForgetStatusFlags(t *testing.T) {
	t.Parallel()
	var show *ShowOptions
	execute(t, NewCmdShow(seamFactory(), func(o *ShowOptions) error { show = o; return nil }), "--json", "3f9a1c")
	if show == nil || *show != (ShowOptions{Ref: "3f9a1c", JSON: true}) {
		t.Errorf("show: %+v", show)
	}
	var forget *ForgetOptions
	execute(t, NewCmdForget(seamFactory(), func(o *ForgetOptions) error { forget = o; return nil }), "-y", "--json", "3f9a1c", "lrn-oauth")
	if want := (ForgetOptions{Refs: []string{"3f9a1c", "lrn-oauth"}, Yes: true, JSON: true}); forget == nil || !reflect.DeepEqual(*forget, want) {
		t.Errorf("forget: %+v, want %+v", forget, want)
	}
	execute(t, NewCmdForget(seamFactory(), func(o *ForgetOptions) error { forget = o; return nil }), "-n", "x")
	if !forget.DryRun || forget.Yes {
		t.Errorf("forget -n: %+v, want a dry run", forget)
	}
	var status *StatusOptions
	execute(t, NewCmdStatus(seamFactory(), func(o *StatusOptions) error { status = o; return nil }), "--json")
	if status == nil || !status.JSON {
		t.Errorf("status --json: %+v", status)
	}
}

func TestAddFlags(t *testing.T) {
	t.Parallel()
	var got *AddOptions
	execute(t, NewCmdAdd(seamFactory(), func(o *AddOptions) error { got = o; return nil }),
		"--title", "Pin the toolchain", "--insight", "go.mod toolchain line", "--tags", "go,build",
		"--confidence", "high", "--scope", "project", "--force", "--json", "-")
	if got == nil || got.Source != "-" || got.Title != "Pin the toolchain" || got.Insight != "go.mod toolchain line" ||
		got.Tags != "go,build" || got.Confidence != "high" || got.Scope != "project" || !got.Force || !got.JSON || got.Cwd == "" {
		t.Errorf("add: %+v", got)
	}
}

func TestConfigFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want ConfigOptions
	}{
		{[]string{"path"}, ConfigOptions{Action: "path"}},
		{[]string{"list", "--json"}, ConfigOptions{Action: "list", JSON: true}},
		{[]string{"get", "--json", "recall.max"}, ConfigOptions{Action: "get", Key: "recall.max", JSON: true}},
		{[]string{"set", "drain.timeout", "5m"}, ConfigOptions{Action: "set", Key: "drain.timeout", Value: "5m"}},
	} {
		var got *ConfigOptions
		execute(t, NewCmdConfig(seamFactory(), func(o *ConfigOptions) error { got = o; return nil }), tc.args...)
		if got == nil || *got != tc.want {
			t.Errorf("config %q: %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

func TestQueueFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want QueueOptions
	}{
		{nil, QueueOptions{Action: "list"}},
		{[]string{"--json"}, QueueOptions{Action: "list", JSON: true}},
		{[]string{"list", "--json"}, QueueOptions{Action: "list", JSON: true}},
		{[]string{"retry", "1a2b3c"}, QueueOptions{Action: "retry", ID: "1a2b3c"}},
		{[]string{"drop", "--json", "q-20261122T104200-1a2b3c4d5e6f"}, QueueOptions{Action: "drop", ID: "q-20261122T104200-1a2b3c4d5e6f", JSON: true}},
	} {
		var got *QueueOptions
		execute(t, NewCmdQueue(seamFactory(), func(o *QueueOptions) error { got = o; return nil }), tc.args...)
		if got == nil || *got != tc.want {
			t.Errorf("queue %q: %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

func TestImportPromoteFlags(t *testing.T) {
	t.Parallel()
	var imp *ImportOptions
	f := seamFactory()
	execute(t, NewCmdImport(f, func(o *ImportOptions) error { imp = o; return nil }), "--from", "agents,cursor", "--from", "claude-memory", "--all", "-n", "--json", "a.md")
	if imp == nil || !reflect.DeepEqual(imp.From, []string{"agents", "cursor", "claude-memory"}) || !imp.All || !imp.DryRun || !imp.JSON || !reflect.DeepEqual(imp.Paths, []string{"a.md"}) {
		t.Errorf("import options %+v", imp)
	}
	cmd := NewCmdImport(seamFactory(), func(*ImportOptions) error { t.Error("runF ran with a bad --from"); return nil })
	cmd.SetArgs([]string{"--from", "vim"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); exitCode(err) != 2 {
		t.Errorf("--from vim: %v, want a usage error", err)
	}

	var pr *PromoteOptions
	execute(t, NewCmdPromote(seamFactory(), func(o *PromoteOptions) error { pr = o; return nil }), "3f9a1c", "b41d07", "--to", "CLAUDE.md", "--branch", "reflect/x", "-n")
	if pr == nil || pr.File != "CLAUDE.md" || pr.Branch != "reflect/x" || !pr.DryRun || len(pr.Refs) != 2 || pr.demote {
		t.Errorf("promote options %+v", pr)
	}
	execute(t, NewCmdPromote(seamFactory(), func(o *PromoteOptions) error { pr = o; return nil }), "--suggest")
	if !pr.Suggest || pr.File != "AGENTS.md" {
		t.Errorf("promote --suggest options %+v", pr)
	}
	for _, args := range [][]string{{"--suggest", "3f9a1c"}, {}, {"--suggest", "--branch", "x"}} {
		cmd := NewCmdPromote(seamFactory(), func(*PromoteOptions) error { t.Errorf("runF ran for %q", args); return nil })
		cmd.SetArgs(args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); exitCode(err) != 2 {
			t.Errorf("promote %q: %v, want a usage error", args, err)
		}
	}
	execute(t, NewCmdDemote(seamFactory(), func(o *PromoteOptions) error { pr = o; return nil }), "3f9a1c", "--from", "GEMINI.md")
	if !pr.demote || pr.File != "GEMINI.md" {
		t.Errorf("demote options %+v", pr)
	}
}

func TestMarkEditAddControlFlags(t *testing.T) {
	t.Parallel()
	var mark *MarkOptions
	execute(t, NewCmdMark(seamFactory(), func(o *MarkOptions) error { mark = o; return nil }), "--json", "3f9a1c", "wrong")
	if mark == nil || *mark != (MarkOptions{Ref: "3f9a1c", Mark: "wrong", JSON: true}) {
		t.Errorf("mark: %+v", mark)
	}
	var edit *EditOptions
	execute(t, NewCmdEdit(seamFactory(), func(o *EditOptions) error { edit = o; return nil }), "3f9a1c")
	if edit == nil || *edit != (EditOptions{Ref: "3f9a1c"}) {
		t.Errorf("edit: %+v", edit)
	}
	var add *AddOptions
	execute(t, NewCmdAdd(seamFactory(), func(o *AddOptions) error { add = o; return nil }), "--update", "3f9a1c", "--insight", "x")
	if add == nil || add.Update != "3f9a1c" || add.Supersedes != "" {
		t.Errorf("add --update: %+v", add)
	}
	execute(t, NewCmdAdd(seamFactory(), func(o *AddOptions) error { add = o; return nil }), "--supersedes", "b41d07", "--title", "t")
	if add.Supersedes != "b41d07" || add.Update != "" {
		t.Errorf("add --supersedes: %+v", add)
	}
}
