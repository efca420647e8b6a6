package geminishell

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want Result
		ok   bool
	}{
		{
			// Captured from Gemini CLI 0.61 (hooks/testdata/gemini).
			name: "failed ls",
			in:   "<untrusted_context>\nOutput: ls: cannot access '/nonexistent/widget-cache': No such file or directory\nExit Code: 2\nProcess Group PGID: 5907\n</untrusted_context>",
			want: Result{Output: "ls: cannot access '/nonexistent/widget-cache': No such file or directory", ExitCode: 2},
			ok:   true,
		},
		{
			name: "success has no exit line",
			in:   "<untrusted_context>\nOutput: README.md\nsrc\nProcess Group PGID: 77\n</untrusted_context>",
			want: Result{Output: "README.md\nsrc"},
			ok:   true,
		},
		{
			name: "empty output",
			in:   "Output: (empty)\nExit Code: 1\nProcess Group PGID: 8",
			want: Result{ExitCode: 1},
			ok:   true,
		},
		{
			name: "output line that looks like a trailer stays output",
			in:   "Output: Exit Code: 9 is printed by the tool\nmore\nExit Code: 3",
			want: Result{Output: "Exit Code: 9 is printed by the tool\nmore", ExitCode: 3},
			ok:   true,
		},
		{
			name: "error and signal",
			in:   "Output: partial\nError: spawn bash ENOENT\nSignal: SIGKILL\nProcess Group PGID: 9",
			want: Result{Output: "partial\nspawn bash ENOENT", Signal: "SIGKILL"},
			ok:   true,
		},
		{name: "cancelled", in: "Command was cancelled by user before it could complete. There was no output before it was cancelled."},
		{name: "other tool", in: "Successfully wrote to file.go"},
		{name: "bad exit code", in: "Output: x\nExit Code: many"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Parse(tc.in)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
			if ok && got.Failed() != (tc.want.ExitCode != 0 || tc.want.Signal != "") {
				t.Errorf("Failed() = %v", got.Failed())
			}
		})
	}
}
