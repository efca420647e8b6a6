package store

import (
	"strings"

	"github.com/reflectkb/reflect/internal/redact"

	yaml "go.yaml.in/yaml/v3"
)

// Redaction says what was redacted from one field of a learning: the
// frontmatter key (or "body") and the kind of each secret removed, e.g.
// {key_insight [huggingface-token]}. It never holds the secret.
type Redaction struct {
	Field string   `json:"field"`
	Kinds []string `json:"kinds"`
}

// Redact replaces the secrets in every text field of l (frontmatter,
// unknown frontmatter values and body) with placeholders, and returns what
// it removed, field by field. Every write of a learning goes through it
// (Store.Write), whoever the writer: hooks, drain, `reflect add`.
//
// The id names the file, the catalog row and what recall shows, so it
// must not carry a secret either: an id derived from title and insight is
// derived again from the redacted ones, and a chosen id that holds a
// secret is replaced by the derived one. Redact is idempotent.
func (l *Learning) Redact() []Redaction {
	derived := l.ID == "" || l.ID == NewID(l.Title, l.KeyInsight)
	var out []Redaction
	field := func(name string, p *string) {
		if v, kinds := redact.Kinds(*p); len(kinds) > 0 {
			*p = v
			out = appendKinds(out, name, kinds)
		}
	}
	list := func(name string, vs []string) {
		for i := range vs {
			field(name, &vs[i])
		}
	}
	field("title", &l.Title)
	field("key_insight", &l.KeyInsight)
	list("tags", l.Tags)
	list("symptoms", l.Symptoms)
	list("questions", l.Questions)
	field("category", &l.Category)
	field("project", &l.Project)
	field("superseded_by", &l.SupersededBy)
	field("supersedes", &l.Supersedes)
	field("updates", &l.Updates)
	if l.Source != nil {
		field("source", &l.Source.Harness)
		field("source", &l.Source.SessionID)
		field("source", &l.Source.Trigger)
		field("source", &l.Source.File)
	}
	for i := range l.Cites {
		field("cites", &l.Cites[i].Path)
	}
	for i := 1; i < len(l.extra); i += 2 {
		redactValue(l.extra[i-1], l.extra[i], l.extra[i-1].Value, &out)
	}
	field("body", &l.Body)
	switch {
	case l.ID == "":
	case derived:
		l.ID = NewID(l.Title, l.KeyInsight)
	case redact.Contains(l.ID):
		_, kinds := redact.Kinds(l.ID)
		out = appendKinds(out, "id", kinds)
		l.ID = NewID(l.Title, l.KeyInsight)
	}
	return out
}

// redactValue redacts every scalar of an unknown frontmatter value n
// under key, reporting it as field. A value is judged with its key, as
// "key: value", so a secret named only by its key (fly_token: …) goes too.
func redactValue(key, n *yaml.Node, field string, out *[]Redaction) {
	switch n.Kind {
	case yaml.ScalarNode:
		if key != nil && key.Kind == yaml.ScalarNode {
			prefix := key.Value + ": "
			if v, kinds := redact.Kinds(prefix + n.Value); len(kinds) > 0 && strings.HasPrefix(v, prefix) {
				n.Value = v[len(prefix):]
				*out = appendKinds(*out, field, kinds)
				return
			}
		}
		if v, kinds := redact.Kinds(n.Value); len(kinds) > 0 {
			n.Value = v
			*out = appendKinds(*out, field, kinds)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			redactValue(n.Content[i-1], n.Content[i], field, out)
		}
	default:
		for _, c := range n.Content {
			redactValue(key, c, field, out)
		}
	}
}

// appendKinds adds kinds to the entry of field, keeping fields in the
// order they were first seen.
func appendKinds(rs []Redaction, field string, kinds []string) []Redaction {
	for i := range rs {
		if rs[i].Field == field {
			rs[i].Kinds = append(rs[i].Kinds, kinds...)
			return rs
		}
	}
	return append(rs, Redaction{Field: field, Kinds: kinds})
}

// Redact replaces secrets in the sidecar's entity and relationship text.
// Entity names are matched across learnings, so a name changes only when
// it held a secret.
func (sc *Sidecar) Redact() {
	for i := range sc.Entities {
		e := &sc.Entities[i]
		e.Name, e.Description = redact.String(e.Name), redact.String(e.Description)
	}
	for i := range sc.Relationships {
		r := &sc.Relationships[i]
		r.Source, r.Target, r.Description = redact.String(r.Source), redact.String(r.Target), redact.String(r.Description)
	}
}

// RedactRead redacts a learning read from disk before a surface shows it
// (the MCP server, `reflect show --json`, the web view). Store.Write
// redacts everything reflect writes, but a file that arrived by sync or
// was edited by hand never went through it. Unlike Redact it keeps the
// id, which names the file the user acts on.
func (l *Learning) RedactRead() []Redaction {
	id := l.ID
	out := l.Redact()
	l.ID = id
	return out
}
