package kbsync

import (
	"bytes"
	"path"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/store"
)

// Action is what a sync does with one changed file.
type Action string

const (
	// Stage adds the file (or its deletion) to the commit.
	Stage Action = "stage"
	// Untrack removes a file from the repository but keeps it on disk: a
	// learning that became personal stops syncing.
	Untrack Action = "untrack"
	// Hold keeps the file out of the commit; Reason says why.
	Hold Action = "hold"
)

// Why a file is held back.
const (
	ReasonPersonal  = "personal"  // scope: personal or private: true
	ReasonSecret    = "secret"    // the redactor found a secret
	ReasonMalformed = "malformed" // not a learning reflect can read, so its privacy is unknown
)

// Change is one path git reports as changed, relative to the learnings
// directory, and whether git tracks it.
type Change struct {
	Path    string
	Tracked bool
	Deleted bool
}

// Step is the plan for one changed file.
type Step struct {
	Path   string `json:"path"`
	Action Action `json:"action"`
	Reason string `json:"reason,omitempty"`
	// Line and Kind locate a secret (1-based line of the file) and name
	// its kind, never the secret itself.
	Line int    `json:"line,omitempty"`
	Kind string `json:"kind,omitempty"`
	// Detail says more about a malformed file.
	Detail string `json:"detail,omitempty"`
}

// ownedFiles are the files outside documents/ that sync writes and commits.
var ownedFiles = map[string]bool{".gitignore": true, ".gitattributes": true}

// syncable reports whether a path is something sync commits: a learning,
// its sidecar, or one of the files sync owns.
func syncable(p string) bool {
	if ownedFiles[p] {
		return true
	}
	dir, name := path.Split(p)
	if dir != "documents/" || strings.HasPrefix(name, ".") {
		return false
	}
	return strings.HasSuffix(name, ".md") || strings.HasSuffix(name, sidecarExt)
}

const sidecarExt = ".entities.yaml"

// Plan decides, for each change, whether it is staged, untracked or held
// back, reading files with read (paths relative to the learnings
// directory). It is pure apart from read, so every rule is unit-tested:
// personal and private learnings (and their sidecars) never leave the
// machine; a file the redactor finds a secret in is held with its line;
// a learning that does not parse is held, since whether it is private
// cannot be known.
func Plan(changes []Change, read func(string) ([]byte, error)) []Step {
	var steps []Step
	localOnly := map[string]bool{} // document path → personal/private
	isLocal := func(doc string) bool {
		v, ok := localOnly[doc]
		if !ok {
			if data, err := read(doc); err == nil {
				if l, err := store.Parse(data); err == nil {
					v = l.LocalOnly() || localOnlyField(data)
				}
			}
			localOnly[doc] = v
		}
		return v
	}
	for _, c := range changes {
		if !syncable(c.Path) {
			continue
		}
		if c.Deleted {
			steps = append(steps, Step{Path: c.Path, Action: Stage})
			continue
		}
		data, err := read(c.Path)
		if err != nil {
			steps = append(steps, Step{Path: c.Path, Action: Hold, Reason: ReasonMalformed, Detail: err.Error()})
			continue
		}
		personal := false
		switch {
		case strings.HasSuffix(c.Path, ".md"):
			l, err := store.Parse(data)
			if err != nil {
				steps = append(steps, Step{Path: c.Path, Action: Hold, Reason: ReasonMalformed, Detail: err.Error()})
				continue
			}
			personal = l.LocalOnly() || localOnlyField(data)
			localOnly[c.Path] = personal
		case strings.HasSuffix(c.Path, sidecarExt):
			personal = isLocal(strings.TrimSuffix(c.Path, sidecarExt) + ".md")
		}
		if personal {
			if c.Tracked {
				steps = append(steps, Step{Path: c.Path, Action: Untrack, Reason: ReasonPersonal})
			} else {
				steps = append(steps, Step{Path: c.Path, Action: Hold, Reason: ReasonPersonal})
			}
			continue
		}
		if line, kind, found := FindSecret(data); found {
			steps = append(steps, Step{Path: c.Path, Action: Hold, Reason: ReasonSecret, Line: line, Kind: kind})
			continue
		}
		steps = append(steps, Step{Path: c.Path, Action: Stage})
	}
	return steps
}

// localOnlyField reports whether a frontmatter field that is not
// spelled as reflect writes it still asks to keep the learning here:
// "Private: true", "PRIVATE: yes", "Scope: personal". YAML keys are case
// sensitive, so the store reads such a field as an unknown one, but the
// person who wrote it meant it: when in doubt, a learning stays local.
func localOnlyField(data []byte) bool {
	fm, ok := frontmatter(data)
	if !ok {
		return false
	}
	var doc yaml.Node
	if yaml.Unmarshal(fm, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return false
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		key := strings.TrimSpace(k.Value)
		switch {
		case strings.EqualFold(key, "private"):
			if v.Kind != yaml.ScalarNode || !falsy(v.Value) {
				return true
			}
		case strings.EqualFold(key, "scope"):
			if v.Kind == yaml.ScalarNode && strings.EqualFold(strings.TrimSpace(v.Value), "personal") {
				return true
			}
		}
	}
	return false
}

// falsy reports the YAML spellings of false (1.1 and 1.2) and an empty value.
func falsy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "false", "no", "n", "off", "0", "~", "null":
		return true
	}
	return false
}

// frontmatter returns the YAML between a learning's opening '---' line and
// its closing one (store.Parse has accepted the file, so both are there).
func frontmatter(data []byte) ([]byte, bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, found := bytes.Cut(data, []byte("\n"))
	if !found {
		return nil, false
	}
	open := bytes.TrimSuffix(first, []byte("\r"))
	var fm []byte
	for len(rest) > 0 {
		line, next, _ := bytes.Cut(rest, []byte("\n"))
		if bytes.Equal(bytes.TrimSuffix(line, []byte("\r")), open) {
			return fm, true
		}
		fm = append(fm, line...)
		fm = append(fm, '\n')
		rest = next
	}
	return nil, false
}

// FindSecret runs the redactor over data and returns the 1-based line of
// the first secret and its kind. Placeholders the redactor wrote earlier
// ("[REDACTED:…]") are not secrets: redaction is idempotent.
func FindSecret(data []byte) (line int, kind string, found bool) {
	s := string(data)
	red, kinds := redact.Kinds(s)
	if len(kinds) == 0 {
		return 0, "", false
	}
	i := 0
	for i < len(s) && i < len(red) && s[i] == red[i] {
		i++
	}
	return strings.Count(s[:i], "\n") + 1, kinds[0], true
}
