package manpage

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

var testDate = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func subcommand(long string) *cobra.Command {
	root := &cobra.Command{Use: "tool", Short: "A tool"}
	cmd := &cobra.Command{Use: "sub", Short: "A sub - command", Long: long, Example: "  tool sub .x\n  tool sub 'y'", Run: func(*cobra.Command, []string) {}}
	cmd.Flags().String("name", "a\\b", "the `name` to use")
	cmd.Flags().BoolP("all", "a", false, "everything")
	root.AddCommand(cmd)
	return cmd
}

func pages(t *testing.T, long string) (got, want string, err error) {
	t.Helper()
	cmd := subcommand(long)
	var w, g bytes.Buffer
	if err := doc.GenMan(cmd, &doc.GenManHeader{Title: "TOOL", Section: "1", Date: &testDate}, &w); err != nil {
		t.Fatal(err)
	}
	err = Man(cmd, Header{Title: "TOOL", Section: "1", Date: testDate}, &g)
	return g.String(), w.String(), err
}

// The inline rules blackfriday applies, quirks included, render as
// go-md2man renders them.
func TestManMatchesCobraDocOnInlineMarkdown(t *testing.T) {
	for _, long := range []string{
		"plain text\nover two lines",
		"$CODEX_HOME and REFLECT_* settings, [mcp_servers.x] too",
		"writes documents/<id>.md and <!-- a comment --> here",
		"**strong** *emph* _under_ ***both*** `code span` ``two`` \\* \\_ \\-",
		"a line ending in two spaces  \nbreaks; one space \nfolds",
		".starts with a period\n'and an apostrophe\nback\\slash",
		"entities &amp; &lt; &#65; and a lone & sign",
		"first paragraph\n\nsecond paragraph\n\n    indented code\n    .more\n\nafter",
		"text\n```\nfenced .code\n```\nafter the fence",
		"#### A heading\nunder it\n\n## Another\ntext",
		"[x] not a link, [y][z] not a reference, ![i] not an image",
		"dash - separated - words in a description",
	} {
		got, want, err := pages(t, long)
		if err != nil {
			t.Errorf("%q: %v", long, err)
			continue
		}
		if got != want {
			t.Errorf("%q:\n--- got\n%s\n--- want\n%s", long, got, want)
		}
	}
}

// Markdown the renderer does not render as md2man would is refused, so a
// help text that uses it fails the test instead of changing a page.
func TestManRefusesUnsupportedMarkdown(t *testing.T) {
	for _, long := range []string{
		"- a list\n- of items",
		"1. an ordered\n2. list",
		"> a quote",
		"a | table\n--|--\nb | c",
		"a [link](http://example.com)",
		"an <http://example.com> autolink",
		"a footnote^[note]",
		"---",
		"<div>html</div>",
		"term\n: definition",
		"[ref]: http://example.com",
		"Title\n=====",
	} {
		// go-md2man itself panics on some of these (a footnote).
		if err := Man(subcommand(long), Header{Date: testDate}, io.Discard); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%q: err %v, want ErrUnsupported", long, err)
		}
	}
}

func TestMarkdownMatchesCobraDoc(t *testing.T) {
	root := &cobra.Command{Use: "tool", Short: "A tool", Long: "Long *text*."}
	root.DisableAutoGenTag = true
	cmd := &cobra.Command{Use: "sub", Short: "A sub", Example: "tool sub", Run: func(*cobra.Command, []string) {}}
	cmd.Flags().String("name", "", "the name")
	root.PersistentFlags().Bool("v", false, "verbose")
	root.AddCommand(cmd)
	for _, c := range []*cobra.Command{cmd, root} {
		var want bytes.Buffer
		if err := doc.GenMarkdown(c, &want); err != nil {
			t.Fatal(err)
		}
		if got := Markdown(c); string(got) != want.String() {
			t.Errorf("%s:\n--- got\n%s\n--- want\n%s", c.Name(), got, want.String())
		}
	}
}
