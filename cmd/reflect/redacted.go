package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/reflectkb/reflect/store"
)

// reportRedacted tells the user, on stderr, what `reflect add` removed
// before writing: "reflect: redacted 1 secret (huggingface-token) from
// --insight". Fields set by a flag are named by the flag, others by the
// frontmatter key and the input they came from.
func reportRedacted(w io.Writer, opts *AddOptions, rs []store.Redaction) {
	flags := map[string]string{
		"title": opts.Title, "key_insight": opts.Insight, "body": opts.Body, "tags": opts.Tags,
		"category": opts.Category, "project": opts.Project,
	}
	names := map[string]string{"title": "--title", "key_insight": "--insight", "body": "--body", "tags": "--tags",
		"category": "--category", "project": "--project"}
	for _, r := range rs {
		where := r.Field
		if flags[r.Field] != "" {
			where = names[r.Field]
		} else if opts.Source != "" {
			where = r.Field + " in " + sourceName(opts.Source)
		}
		noun := "secrets"
		if len(r.Kinds) == 1 {
			noun = "secret"
		}
		fmt.Fprintf(w, "reflect: redacted %d %s (%s) from %s\n", len(r.Kinds), noun, strings.Join(uniq(r.Kinds), ", "), where)
	}
}

// uniq returns ss without repeats, in order.
func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
