package store

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/reflectkb/reflect/internal/lazyre"
)

// This file turns the YAML library's errors about a frontmatter into
// messages that point at the line to fix and say how: its line numbers are
// those of the context it was parsing (often the first field) rather than
// of the mistake, and its type errors name Go types instead of fields.

// frontmatterOpening returns data's opening '---' line (the closing line
// must repeat it) when there is one, so that a document whose frontmatter
// never closes is told that, not that it has none.
func frontmatterOpening(data []byte) (string, bool) {
	first, _, found := bytes.Cut(data, []byte("\n"))
	first = bytes.TrimSuffix(first, []byte("\r"))
	return string(first), found && len(first) >= 3 && len(bytes.Trim(first, "-")) == 0
}

// frontmatterLines returns the lines between the opening and closing '---'
// lines; line i of the result is line i+2 of the file.
func frontmatterLines(data []byte) []string {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if len(lines) < 2 {
		return nil
	}
	open := lines[0]
	for i := 1; i < len(lines); i++ {
		if lines[i] == open {
			return lines[1:i]
		}
	}
	return lines[1:]
}

var yamlLine = lazyre.New(`^line (\d+): `)

// syntaxReason explains a YAML syntax error in data's frontmatter. The line
// blamed is the first one after which no longer prefix of the frontmatter
// parses: an unclosed list, a bad indentation or a stray ': ' is where the
// text stops being YAML, whatever context the parser was in.
func syntaxReason(data []byte, err error) string {
	msg := yamlReason(err)
	if m := yamlLine.Get().FindStringSubmatch(msg); m != nil {
		msg = msg[len(m[0]):]
	}
	lines := frontmatterLines(data)
	bad := -1 // index into lines
	for k := len(lines); k > 0; k-- {
		var n yaml.Node
		if yaml.Unmarshal([]byte(strings.Join(lines[:k-1], "\n")), &n) == nil {
			bad = k - 1
			break
		}
	}
	if bad < 0 || bad >= len(lines) {
		return "frontmatter is not valid YAML: " + msg
	}
	reason := fmt.Sprintf("frontmatter is not valid YAML: line %d: %s: %s", bad+2, msg, strconv.Quote(strings.TrimSpace(lines[bad])))
	line := lines[bad]
	indented := strings.TrimLeft(line, " \t") != line
	switch {
	case strings.Contains(msg, "mapping values are not allowed") && indented:
		reason += "; the line is indented: fields start at the beginning of a line"
	case strings.Contains(msg, "mapping values are not allowed"):
		key, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		reason += fmt.Sprintf("; a value holding ': ' must be quoted, e.g. %s: \"...\"", key)
	case strings.Contains(msg, "unexpected end of stream"):
		reason += "; a value opened with a quote must end with the same quote"
	case strings.Contains(msg, "did not find expected ',' or ']'"):
		reason += "; a list opened with '[' must close with ']' on the same field"
	case strings.Contains(msg, "did not find expected key") || strings.Contains(msg, "block"):
		reason += "; every field starts at the beginning of a line, list items under it are indented alike"
	}
	return reason
}

// fieldKinds say what each known field holds, for type errors.
var fieldKinds = map[string]string{
	"tags":     "a list such as [oauth, cookies]",
	"symptoms": "a list such as [\"state mismatch\"]",
	"source":   "fields harness, session_id and trigger",
	"cites":    "a list of {path: ..., sha256: ...}",
}

var typeLine = lazyre.New(`line (\d+): cannot unmarshal !!(\w+)`)

// typeReason explains a frontmatter field of the wrong type, naming the
// field, its line, what it holds and what it should hold.
func typeReason(root *yaml.Node, err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return "frontmatter field has the wrong type: " + yamlReason(err)
	}
	var parts []string
	for _, e := range te.Errors {
		m := typeLine.Get().FindStringSubmatch(e)
		if m == nil {
			parts = append(parts, e)
			continue
		}
		line, _ := strconv.Atoi(m[1])
		field := fieldAtLine(root, line)
		if field == "" {
			parts = append(parts, e)
			continue
		}
		want, ok := fieldKinds[field]
		if !ok {
			want = "one line of text (quote it if it holds ': ', '[' or '{')"
		}
		parts = append(parts, fmt.Sprintf("line %d: %s is %s; it must be %s", line, field, yamlKind(m[2]), want))
	}
	return "frontmatter field has the wrong type: " + strings.Join(parts, "; ")
}

// fieldAtLine names the top-level field whose value spans line.
func fieldAtLine(root *yaml.Node, line int) string {
	name := ""
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Line > line {
			break
		}
		name = aliasTarget(root.Content[i]).Value
	}
	return name
}

func yamlKind(tag string) string {
	switch tag {
	case "seq":
		return "a list"
	case "map":
		return "a set of fields"
	case "str":
		return "text"
	case "int", "float":
		return "a number"
	case "bool":
		return "true or false"
	}
	return "a " + tag
}
