package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Entity and relationship kinds a sidecar may use.
var (
	EntityTypes       = []string{"technology", "library", "tool", "file", "function", "error", "concept", "pattern", "service", "config"}
	RelationshipTypes = []string{"caused_by", "solves", "requires", "relates_to", "configured_in", "part_of", "uses"}
)

// Entity is a named thing a learning is about.
type Entity struct {
	Name        string `yaml:"name" json:"name"`
	Type        string `yaml:"type" json:"type"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Extracted is "heuristic" when reflect guessed the entity from the text
	// rather than a writer or user naming it.
	Extracted string `yaml:"extracted,omitempty" json:"extracted,omitempty"`
}

// Relationship links two entities of the same learning.
type Relationship struct {
	Source      string  `yaml:"source" json:"source"`
	Target      string  `yaml:"target" json:"target"`
	Type        string  `yaml:"type" json:"type"`
	Description string  `yaml:"description" json:"description"`
	Strength    float64 `yaml:"strength" json:"strength"`
}

// Sidecar is the <id>.entities.yaml file beside a learning.
type Sidecar struct {
	DocumentID    string         `yaml:"document_id" json:"document_id"`
	Entities      []Entity       `yaml:"entities" json:"entities"`
	Relationships []Relationship `yaml:"relationships" json:"relationships"`
}

// ParseSidecar reads and validates a sidecar.
func ParseSidecar(data []byte) (*Sidecar, error) {
	return ParseSidecarFor(data, "")
}

// ParseSidecarFor reads a sidecar that belongs to the learning id, setting
// its document_id: a hand-written sidecar need not know the derived id.
// An empty id keeps the document_id of data.
func ParseSidecarFor(data []byte, id string) (*Sidecar, error) {
	if len(data) > MaxDocumentSize {
		return nil, docError("", fmt.Sprintf("sidecar is %d bytes, more than %d", len(data), MaxDocumentSize))
	}
	var sc Sidecar
	// Unknown keys are refused: a misspelt "entites:" would otherwise read
	// as a sidecar with no entities.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil && !errors.Is(err, io.EOF) {
		return nil, docError("", "sidecar is not valid YAML: "+yamlReason(err))
	}
	if id != "" {
		sc.DocumentID = id
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return &sc, nil
}

// Validate checks that entities have names and known types and that every
// relationship joins two entities of the sidecar.
func (sc *Sidecar) Validate() error {
	var problems []string
	switch {
	case sc.DocumentID == "":
		problems = append(problems, "missing document_id")
	case !ValidID(sc.DocumentID):
		// The id names the file the sidecar is written to.
		problems = append(problems, fmt.Sprintf("document_id %q may only hold letters, digits, '.', '_' and '-' (at most 128)", sc.DocumentID))
	}
	names := map[string]bool{}
	for i, e := range sc.Entities {
		if strings.TrimSpace(e.Name) == "" {
			problems = append(problems, fmt.Sprintf("entity %d has no name", i+1))
		}
		if !oneOf(e.Type, EntityTypes) {
			problems = append(problems, fmt.Sprintf("entity %q has type %q; use one of %s", e.Name, e.Type, strings.Join(EntityTypes, ", ")))
		}
		names[e.Name] = true
	}
	for _, r := range sc.Relationships {
		if !names[r.Source] || !names[r.Target] {
			problems = append(problems, fmt.Sprintf("relationship %s -> %s names an entity the sidecar does not list", r.Source, r.Target))
		}
		if !oneOf(r.Type, RelationshipTypes) {
			problems = append(problems, fmt.Sprintf("relationship %s -> %s has type %q; use one of %s", r.Source, r.Target, r.Type, strings.Join(RelationshipTypes, ", ")))
		}
		if !(r.Strength >= 0 && r.Strength <= 10) { // also refuses NaN
			problems = append(problems, fmt.Sprintf("relationship %s -> %s has strength %g; use 0 to 10", r.Source, r.Target, r.Strength))
		}
	}
	if len(problems) > 0 {
		return docError("", strings.Join(problems, "; "))
	}
	return nil
}

// Marshal renders the sidecar as YAML with one flow-style line per entity
// and relationship, as in ARCHITECTURE §3, so diffs stay readable.
func (sc *Sidecar) Marshal() ([]byte, error) {
	if data, ok := sc.marshalFast(); ok {
		return data, nil
	}
	return sc.marshalYAML()
}

// marshalYAML is Marshal through the YAML encoder, for any sidecar.
func (sc *Sidecar) marshalYAML() ([]byte, error) {
	var root yaml.Node
	if err := root.Encode(sc); err != nil {
		return nil, fmt.Errorf("encode sidecar %s: %w", sc.DocumentID, err)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if v := root.Content[i+1]; v.Kind == yaml.SequenceNode {
			for _, item := range v.Content {
				item.Style = yaml.FlowStyle
			}
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("encode sidecar %s: %w", sc.DocumentID, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode sidecar %s: %w", sc.DocumentID, err)
	}
	return buf.Bytes(), nil
}

// ImportedRule reports a rule imported from a file people keep
// (reflect import), which names the file it came from. An import writes
// no sidecar for one: its entities are ExtractedSidecar's.
func (l *Learning) ImportedRule() bool {
	return l.Type == "rule" && l.Source != nil && l.Source.File != ""
}

// ExtractedSidecar is the sidecar of the entities ExtractEntities finds
// in l: what reflect writes beside a learning no writer named entities
// for, and what an imported rule without a sidecar has.
func ExtractedSidecar(l *Learning) *Sidecar {
	return &Sidecar{DocumentID: l.ID, Entities: append([]Entity{}, ExtractEntities(l)...), Relationships: []Relationship{}}
}

// ReadSidecarOf is the sidecar of l: its file (ReadSidecar), or for an
// imported rule without one, ExtractedSidecar(l), redacted.
func (s *Store) ReadSidecarOf(l *Learning) (*Sidecar, error) {
	sc, err := s.ReadSidecar(l.ID)
	if errors.Is(err, fs.ErrNotExist) && l.ImportedRule() {
		sc = ExtractedSidecar(l)
		sc.Redact()
		return sc, nil
	}
	return sc, err
}

// HasSidecar reports whether a file is where id's sidecar goes.
func (s *Store) HasSidecar(id string) bool {
	_, err := os.Lstat(s.SidecarPath(id))
	return !errors.Is(err, fs.ErrNotExist)
}
