package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/reflectkb/reflect/internal/manpage"
)

// docsRoot is the command tree `reflect docs` renders: the root as Execute
// leaves it (with cobra's completion and help commands), the autogen tag
// off as docs sets it.
func docsRoot() *cobra.Command {
	root := NewRootCmd(seamFactory())
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	root.DisableAutoGenTag = true
	return root
}

func eachCommand(c *cobra.Command, fn func(*cobra.Command)) {
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			eachCommand(sub, fn)
		}
	}
	fn(c)
}

// TestManPagesMatchCobraDoc renders every command's man page with
// internal/manpage and with cobra/doc (linked into this test only) and
// requires the same bytes: reflect does not link cobra/doc, and the pages
// must not change for it.
func TestManPagesMatchCobraDoc(t *testing.T) {
	date := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	n := 0
	eachCommand(docsRoot(), func(c *cobra.Command) {
		n++
		var want, got bytes.Buffer
		if err := doc.GenMan(c, &doc.GenManHeader{Title: "REFLECT", Section: "1", Date: &date, Source: "reflect " + version}, &want); err != nil {
			t.Fatal(err)
		}
		if err := manpage.Man(c, manpage.Header{Title: "REFLECT", Section: "1", Date: date, Source: "reflect " + version}, &got); err != nil {
			t.Errorf("%s: %v", c.CommandPath(), err)
			return
		}
		if got.String() != want.String() {
			t.Errorf("%s: man page differs from cobra/doc's\n--- got\n%s\n--- want\n%s", c.CommandPath(), got.String(), want.String())
		}
	})
	if n < 20 {
		t.Fatalf("rendered %d commands, want every command", n)
	}
}

// TestMarkdownMatchesCobraDoc does the same for `reflect docs --markdown`.
func TestMarkdownMatchesCobraDoc(t *testing.T) {
	eachCommand(docsRoot(), func(c *cobra.Command) {
		var want bytes.Buffer
		if err := doc.GenMarkdown(c, &want); err != nil {
			t.Fatal(err)
		}
		if got := manpage.Markdown(c); string(got) != want.String() {
			t.Errorf("%s: markdown differs from cobra/doc's\n--- got\n%s\n--- want\n%s", c.CommandPath(), got, want.String())
		}
	})
}
