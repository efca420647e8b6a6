package store

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/reflectkb/reflect/internal/redact"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"go.abhg.dev/goldmark/frontmatter"
	yaml "go.yaml.in/yaml/v3"
)

// MaxDocumentSize bounds what is read as a learning. Real learnings are a few
// kilobytes; anything this large is a mistake (a log pasted in, a binary)
// and would only slow indexing down.
const MaxDocumentSize = 1 << 20

// Allowed values of the enumerated frontmatter fields.
var (
	// A rule is an instruction imported from a file people keep
	// (AGENTS.md, CLAUDE.md, a Cursor rule…): something to follow, not a
	// lesson learned from a failure.
	Types       = []string{"learning", "mini", "rule"}
	Confidences = []string{"high", "medium", "low"}
	// Scopes: personal learnings are recalled on this machine only and
	// never leave it (`reflect sync` keeps them out of every commit).
	Scopes = []string{"project", "global", "personal"}
)

// Source records where a learning came from.
type Source struct {
	Harness   string `yaml:"harness,omitempty" json:"harness,omitempty"`
	SessionID string `yaml:"session_id,omitempty" json:"session_id,omitempty"`
	Trigger   string `yaml:"trigger,omitempty" json:"trigger,omitempty"`
	// File and Line name where an imported rule was read: a path relative
	// to its repository's root for a repository file, "~/…" for one under
	// the home directory, so the learning names no user's home.
	File string `yaml:"file,omitempty" json:"file,omitempty"`
	Line int    `yaml:"line,omitempty" json:"line,omitempty"`
}

// Cite is a file a learning depends on, with its sha256 when the learning
// was written, so recall can flag the learning when the file has changed.
type Cite struct {
	Path   string `yaml:"path" json:"path"`
	SHA256 string `yaml:"sha256,omitempty" json:"sha256,omitempty"`
}

// Learning is one document: YAML frontmatter plus a markdown body.
type Learning struct {
	ID         string   `yaml:"id" json:"id"`
	Title      string   `yaml:"title" json:"title"`
	Type       string   `yaml:"type,omitempty" json:"type,omitempty"`
	Confidence string   `yaml:"confidence" json:"confidence"`
	Category   string   `yaml:"category,omitempty" json:"category,omitempty"`
	Tags       []string `yaml:"tags,omitempty,flow" json:"tags,omitempty"`
	Symptoms   []string `yaml:"symptoms,omitempty,flow" json:"symptoms,omitempty"`
	// Questions are what a developer who has the problem, and not yet its
	// answer, would ask, in their own words (doc2query): an LLM writer
	// emits them, and the index searches them with the tags and symptoms,
	// so a prompt that describes a symptom in other words than the
	// learning's still finds it. Never injected or shown as the answer.
	Questions    []string  `yaml:"questions,omitempty,flow" json:"questions,omitempty"`
	KeyInsight   string    `yaml:"key_insight,omitempty" json:"key_insight,omitempty"`
	Scope        string    `yaml:"scope,omitempty" json:"scope,omitempty"`
	Project      string    `yaml:"project,omitempty" json:"project,omitempty"`
	Created      time.Time `yaml:"created" json:"created"`
	Updated      time.Time `yaml:"updated,omitempty" json:"updated"`
	Source       *Source   `yaml:"source,omitempty,flow" json:"source,omitempty"`
	Cites        []Cite    `yaml:"cites,omitempty,flow" json:"cites,omitempty"`
	SupersededBy string    `yaml:"superseded_by,omitempty" json:"superseded_by,omitempty"`
	// Supersedes names the learning this one replaces (whose superseded_by
	// names this one): the chain 'reflect show' prints both ways.
	Supersedes string `yaml:"supersedes,omitempty" json:"supersedes,omitempty"`
	// Feedback counts the user's marks ('reflect mark'). It lives in the
	// document so that it syncs with the learning (ARCHITECTURE §3).
	Feedback *Feedback `yaml:"feedback,omitempty,flow" json:"feedback,omitempty"`
	// Private keeps the learning on this machine, whatever its scope.
	Private bool `yaml:"private,omitempty" json:"private,omitempty"`
	// NeedsReview marks a learning whose body a sync merge could not
	// reconcile: both versions are kept under headings for a person to
	// settle (doctor and list show it).
	NeedsReview bool `yaml:"needs_review,omitempty" json:"needs_review,omitempty"`
	// Status is StatusPending for a draft an LLM writer wrote that the
	// user has not reviewed yet ('reflect review'): hooks never inject it
	// and search shows it only when asked. Absent means active.
	Status string `yaml:"status,omitempty" json:"status,omitempty"`
	// Updates names the active learning a pending draft would rewrite
	// once approved: a writer's update of a learning the user approved or
	// wrote stays a draft beside it, so the learning keeps being injected,
	// unchanged, until the user says otherwise.
	Updates string `yaml:"updates,omitempty" json:"updates,omitempty"`

	// Body is the markdown after the frontmatter.
	Body string `yaml:"-" json:"body"`
	// Path is the file the learning was read from or written to.
	Path string `yaml:"-" json:"path,omitempty"`

	// extra holds unknown frontmatter keys and values, in file order, so a
	// read-modify-write keeps what other tools or the user added.
	extra []*yaml.Node
}

// knownKeys are the frontmatter keys Learning owns; everything else is extra.
var knownKeys = map[string]bool{
	"id": true, "title": true, "type": true, "confidence": true, "category": true,
	"tags": true, "symptoms": true, "questions": true, "key_insight": true, "scope": true, "project": true,
	"created": true, "updated": true, "source": true, "cites": true, "superseded_by": true,
	"supersedes": true, "feedback": true, "private": true, "needs_review": true, "status": true,
	"updates": true,
}

// StatusPending is the status of a draft awaiting review: the only value
// the status field takes (absent is active).
const StatusPending = "pending"

// DocError says why one document could not be used. Indexing and search
// report it and carry on with the other documents.
type DocError struct {
	Path   string
	Reason string
}

// docError reports a document problem. Its reason may quote the file (a
// YAML error shows the offending line, a validation message the value), so
// it is redacted: the reason is stored in the catalog's problems table and
// logged, and a hand-edited file's secret must not be copied there.
func docError(path, reason string) *DocError {
	return &DocError{Path: path, Reason: redact.String(reason)}
}

func (e *DocError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// frontmatterYAML decodes with the YAML library the rest of reflect uses.
// The frontmatter starts on the file's second line; a leading newline makes
// the line numbers in YAML errors (and in our own) those of the file.
var frontmatterYAML = frontmatter.Format{Name: "YAML", Delim: '-', Unmarshal: func(data []byte, v any) error {
	return yaml.Unmarshal(append([]byte("\n"), data...), v)
}}

var markdown = goldmark.New(goldmark.WithExtensions(&frontmatter.Extender{
	Formats: []frontmatter.Format{frontmatterYAML},
}))

// bodyMarkdown parses bodies. It has no frontmatter extension: a body that
// opens with a '---' thematic break is markdown, not a second frontmatter
// block to be swallowed (with everything after it when it never closes).
var bodyMarkdown = goldmark.New()

// Parse reads and validates a learning. The returned error is a *DocError
// (with an empty Path) that says what is wrong in words a user can act on.
func Parse(data []byte) (*Learning, error) {
	l, err := parse(data)
	if err != nil {
		return nil, err
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return l, nil
}

// ParseDraft reads a learning a user or agent is adding, which may leave
// out what reflect can derive: a missing id is computed with NewID, a
// missing created time is now, a missing confidence is medium. The result
// is validated like any document.
func ParseDraft(data []byte, now time.Time) (*Learning, error) {
	l, err := parse(data)
	if err != nil {
		return nil, err
	}
	l.FillDefaults(now)
	if err := l.validate(strings.TrimSpace(l.Title) != ""); err != nil {
		return nil, err
	}
	return l, nil
}

// FillDefaults sets what a new learning may leave out: id from title and
// key insight, created (now), confidence (medium) and type (learning).
func (l *Learning) FillDefaults(now time.Time) {
	if l.ID == "" && strings.TrimSpace(l.Title) != "" {
		l.ID = NewID(l.Title, l.KeyInsight)
	}
	if l.Created.IsZero() {
		l.Created = now.UTC().Truncate(time.Second)
	}
	if l.Confidence == "" {
		l.Confidence = "medium"
	}
	if l.Type == "" {
		l.Type = "learning"
	}
}

func parse(data []byte) (*Learning, error) {
	fail := func(format string, args ...any) (*Learning, error) {
		return nil, docError("", fmt.Sprintf(format, args...))
	}
	if len(data) > MaxDocumentSize {
		return fail("document is %d bytes, more than the %d a learning may have", len(data), MaxDocumentSize)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return fail("not a UTF-8 text file")
	}
	body, ok := splitFrontmatter(data)
	if !ok {
		if open, ok := frontmatterOpening(data); ok {
			return fail("closing '%s' missing: the frontmatter opened on line 1 needs a '%s' line after its last field", open, open)
		}
		return fail("no frontmatter: a learning starts with a '---' line, YAML fields, and a closing '---' line")
	}
	ctx := parser.NewContext()
	markdown.Parser().Parse(text.NewReader(data), parser.WithContext(ctx))
	fm := frontmatter.Get(ctx)
	if fm == nil {
		return fail("no frontmatter: a learning starts with a '---' line, YAML fields, and a closing '---' line")
	}
	var doc yaml.Node
	if err := fm.Decode(&doc); err != nil {
		return nil, docError("", syntaxReason(data, err))
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return fail("frontmatter must be YAML 'key: value' fields")
	}
	root := doc.Content[0]
	// The decoder reports a repeated key as a type error; say what it is.
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := aliasTarget(root.Content[i])
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if line, dup := seen[k.Value]; dup {
			return fail("frontmatter has the field %q twice (lines %d and %d); keep one", k.Value, line, root.Content[i].Line)
		}
		seen[k.Value] = root.Content[i].Line
	}
	l := &Learning{Body: string(body)}
	if err := root.Decode(l); err != nil {
		// Name the field when a time does not parse: the YAML library's
		// message quotes Go's layout string, which helps nobody.
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := aliasTarget(root.Content[i]), root.Content[i+1]
			if k.Value != "created" && k.Value != "updated" {
				continue
			}
			var t time.Time
			if v.Decode(&t) != nil {
				return fail("frontmatter field has the wrong type: line %d: %s: %q is not an RFC 3339 time such as 2026-11-22T11:05:00Z", v.Line, k.Value, v.Value)
			}
		}
		return nil, docError("", typeReason(root, err))
	}
	budget := maxAliasExpansion
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		if knownKeys[aliasTarget(key).Value] {
			continue
		}
		// Known fields are re-encoded without their anchors, so an alias
		// kept verbatim could name an anchor that is no longer written:
		// unknown fields that use aliases are kept expanded.
		if hasAlias(key) || hasAlias(value) {
			var err error
			if key, err = expandAliases(key, &budget); err == nil {
				value, err = expandAliases(value, &budget)
			}
			if err != nil {
				return fail("frontmatter field %q: %s", aliasTarget(root.Content[i]).Value, err)
			}
		}
		l.extra = append(l.extra, key, value)
	}
	return l, nil
}

// splitFrontmatter returns the body after a leading '---' block, using the
// same rule as the goldmark extension: the closing line repeats the opening
// delimiter exactly, and one trailing '\r' per line is ignored (no more, or
// the two would disagree on where the frontmatter ends). The body is every
// byte after the closing line, so a read-modify-write keeps it as it was.
func splitFrontmatter(data []byte) (body []byte, ok bool) {
	first, rest, found := bytes.Cut(data, []byte("\n"))
	if !found {
		return nil, false
	}
	open := bytes.TrimSuffix(first, []byte("\r"))
	if len(open) < 3 || len(bytes.Trim(open, "-")) != 0 {
		return nil, false
	}
	for len(rest) > 0 {
		line, next, _ := bytes.Cut(rest, []byte("\n"))
		if bytes.Equal(bytes.TrimSuffix(line, []byte("\r")), open) {
			return next, true
		}
		rest = next
	}
	return nil, false
}

// maxAliasExpansion bounds how many YAML nodes expanding the aliases of
// unknown fields may create, so a "billion laughs" frontmatter is refused
// instead of exhausting memory.
const maxAliasExpansion = 10000

var errTooManyAliases = errors.New("YAML aliases expand to too many values")

// aliasTarget returns the node an alias names, or n itself. (An anchor is
// never put on an alias, so one step is enough.)
func aliasTarget(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// expandAliases returns a copy of n with every alias replaced by a copy of
// the node it names, and without anchors, spending one unit of budget per
// node copied. Anchors can make cycles (&a [*a]); the budget ends those too.
func expandAliases(n *yaml.Node, budget *int) (*yaml.Node, error) {
	if *budget--; *budget < 0 {
		return nil, errTooManyAliases
	}
	src := n
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil, fmt.Errorf("alias *%s names no anchor", n.Value)
		}
		src = n.Alias
	}
	c := *src
	c.Anchor = ""
	c.Alias = nil
	if n != src {
		// The comments written next to the alias belong here, not the
		// ones next to the anchor.
		c.HeadComment, c.LineComment, c.FootComment = n.HeadComment, n.LineComment, n.FootComment
	}
	c.Content = make([]*yaml.Node, len(src.Content))
	for i, child := range src.Content {
		var err error
		if c.Content[i], err = expandAliases(child, budget); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

func yamlReason(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// Validate checks the required fields and the enumerated values.
func (l *Learning) Validate() error { return l.validate(true) }

// validate checks the learning; requireID false leaves out "missing id",
// for drafts whose id is derived from the very title that is missing.
func (l *Learning) validate(requireID bool) error {
	var problems []string
	switch {
	case l.ID == "":
		if requireID {
			problems = append(problems, "missing id")
		}
	case !ValidID(l.ID):
		problems = append(problems, fmt.Sprintf("id %q may only hold letters, digits, '.', '_' and '-' (at most 128)", l.ID))
	}
	if strings.TrimSpace(l.Title) == "" {
		problems = append(problems, "missing title")
	}
	if l.Confidence == "" {
		problems = append(problems, "missing confidence (high, medium or low)")
	} else if !oneOf(l.Confidence, Confidences) {
		problems = append(problems, fmt.Sprintf("confidence %q is not one of high, medium, low", l.Confidence))
	}
	if l.Created.IsZero() {
		problems = append(problems, "missing created (an RFC 3339 time such as 2026-11-22T11:05:00Z)")
	}
	if l.Type != "" && !oneOf(l.Type, Types) {
		problems = append(problems, fmt.Sprintf("type %q is not one of %s", l.Type, strings.Join(Types, ", ")))
	}
	if l.Scope != "" && !oneOf(l.Scope, Scopes) {
		problems = append(problems, fmt.Sprintf("scope %q is not one of project, global, personal", l.Scope))
	}
	if l.Feedback != nil && (l.Feedback.Helpful < 0 || l.Feedback.Wrong < 0 || l.Feedback.Outdated < 0 || l.Feedback.Never < 0 ||
		l.Feedback.Confirmed < 0 || l.Feedback.Refuted < 0) {
		problems = append(problems, "feedback counts may not be negative")
	}
	if l.Supersedes != "" && !ValidID(l.Supersedes) {
		problems = append(problems, fmt.Sprintf("supersedes %q is not a learning id", l.Supersedes))
	}
	if l.SupersededBy != "" && !ValidID(l.SupersededBy) {
		problems = append(problems, fmt.Sprintf("superseded_by %q is not a learning id", l.SupersededBy))
	}
	if l.Status != "" && l.Status != StatusPending {
		problems = append(problems, fmt.Sprintf("status %q is not pending (leave it out for an active learning)", l.Status))
	}
	if l.Supersedes != "" && l.Supersedes == l.ID {
		problems = append(problems, "a learning cannot supersede itself")
	}
	if l.Updates != "" && !ValidID(l.Updates) {
		problems = append(problems, fmt.Sprintf("updates %q is not a learning id", l.Updates))
	}
	if l.Updates != "" && l.Updates == l.ID {
		problems = append(problems, "a learning cannot update itself")
	}
	if len(problems) > 0 {
		return docError("", strings.Join(problems, "; "))
	}
	return nil
}

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// Marshal renders the learning as a document: known fields in a fixed order,
// then unknown fields as they were read, then the body.
func (l *Learning) Marshal() ([]byte, error) {
	if data, ok := l.marshalFast(); ok {
		return data, nil
	}
	return l.marshalYAML()
}

// marshalYAML is Marshal through the YAML encoder, for any learning.
func (l *Learning) marshalYAML() ([]byte, error) {
	var root yaml.Node
	if err := root.Encode(l); err != nil {
		return nil, fmt.Errorf("encode %s: %w", l.ID, err)
	}
	root.Content = append(root.Content, l.extra...)
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("encode %s: %w", l.ID, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode %s: %w", l.ID, err)
	}
	buf.WriteString("---\n")
	// The body is written as it is: Parse returns every byte after the
	// closing '---' line, and adding or trimming newlines here would change
	// a document each time it is rewritten.
	buf.WriteString(l.Body)
	return buf.Bytes(), nil
}

// Extra returns the value of an unknown frontmatter key, decoded into v.
func (l *Learning) Extra(key string, v any) (bool, error) {
	for i := 0; i+1 < len(l.extra); i += 2 {
		if l.extra[i].Value == key {
			return true, l.extra[i+1].Decode(v)
		}
	}
	return false, nil
}

// PlainBody is the body's text without markdown syntax and without the
// template headings (Problem, Solution, Context) that every learning has:
// those words would otherwise match every document. It is what gets indexed.
func (l *Learning) PlainBody() string {
	src := []byte(l.Body)
	doc := bodyMarkdown.Parser().Parse(text.NewReader(src))
	var b strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if isTemplateHeading(string(nodeText(n, src))) {
				return ast.WalkSkipChildren, nil
			}
		case *ast.Text:
			b.Write(n.Segment.Value(src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(n.Value)
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				b.Write(seg.Value(src))
			}
		case *ast.AutoLink:
			b.Write(n.URL(src))
		}
		if n.Type() == ast.TypeBlock && n.PreviousSibling() != nil {
			b.WriteByte('\n')
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

func nodeText(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
		}
	}
	return b.Bytes()
}

func isTemplateHeading(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "problem", "solution", "context":
		return true
	}
	return false
}

// ErrNotFound is returned when no document has the requested id.
var ErrNotFound = errors.New("no such learning")

// Marks are the feedback 'reflect mark' records: helpful raises a learning
// in recall; wrong, outdated and never keep it out of automatic injection.
var Marks = []string{"helpful", "wrong", "outdated", "never"}

// Feedback counts the marks a learning was given.
type Feedback struct {
	Helpful  int `yaml:"helpful,omitempty" json:"helpful,omitempty"`
	Wrong    int `yaml:"wrong,omitempty" json:"wrong,omitempty"`
	Outdated int `yaml:"outdated,omitempty" json:"outdated,omitempty"`
	Never    int `yaml:"never,omitempty" json:"never,omitempty"`

	// The signals below come from the loop, not from a person (the drainer
	// records them; docs/ranking.md): Confirmed counts sessions in which
	// the learning was injected and the command it warns about then
	// succeeded, Refuted those in which that command failed again the same
	// way.
	Confirmed int `yaml:"confirmed,omitempty" json:"confirmed,omitempty"`
	Refuted   int `yaml:"refuted,omitempty" json:"refuted,omitempty"`
	// Stale says why the code no longer bears the learning out (its cited
	// files are all gone, or its failing command has since succeeded in
	// the project); it holds the learning until 'reflect mark ID fresh'.
	Stale string `yaml:"stale,omitempty" json:"stale,omitempty"`
	// Reviewed is when a person last said the learning is still right
	// ('reflect mark ID fresh'): evidence of staleness older than it is
	// not counted again.
	Reviewed time.Time `yaml:"reviewed,omitempty" json:"reviewed,omitempty"`
}

// Add counts one mark (one of Marks); it reports false for another word.
func (f *Feedback) Add(mark string) bool {
	switch mark {
	case "helpful":
		f.Helpful++
	case "wrong":
		f.Wrong++
	case "outdated":
		f.Outdated++
	case "never":
		f.Never++
	default:
		return false
	}
	return true
}

// IsZero reports no marks, so an empty feedback is not written.
func (f *Feedback) IsZero() bool { return f == nil || *f == Feedback{} }

// String says the counts, e.g. "helpful 2, wrong 1, confirmed 3", then
// why the learning is stale when it is; "" with none.
func (f *Feedback) String() string {
	if f.IsZero() {
		return ""
	}
	var parts []string
	for _, m := range []struct {
		name string
		n    int
	}{{"helpful", f.Helpful}, {"wrong", f.Wrong}, {"outdated", f.Outdated}, {"never", f.Never},
		{"confirmed", f.Confirmed}, {"refuted", f.Refuted}} {
		if m.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", m.name, m.n))
		}
	}
	if f.Stale != "" {
		parts = append(parts, "stale: "+f.Stale)
	}
	return strings.Join(parts, ", ")
}

// Held says why the learning is kept out of automatic injection (the
// hooks' recall), "" when it is not: "pending" for a draft awaiting review,
// "superseded" when a newer learning replaces it, else the strongest mark
// against it (never, wrong, outdated), then "stale: <reason>" when the code
// no longer bears it out, then "refuted" when sessions refuted it
// RefutedHold times and nothing speaks for it. Search still finds a held
// learning and shows why. A mark
// holds until it is cleared ('reflect mark ID clear' or 'reflect edit'):
// a later helpful mark does not outvote a wrong one.
func (l *Learning) Held() string {
	switch f := l.Feedback; {
	case l.Status == StatusPending:
		return StatusPending
	case l.SupersededBy != "":
		return "superseded"
	case f == nil:
		return ""
	case f.Never > 0:
		return "never"
	case f.Wrong > 0:
		return "wrong"
	case f.Outdated > 0:
		return "outdated"
	case f.Stale != "":
		return "stale: " + f.Stale
	case f.Refuted >= RefutedHold && f.Confirmed == 0 && f.Helpful == 0:
		return "refuted"
	}
	return ""
}

// RefutedHold is how many sessions must refute a learning (and none
// confirm it, and no one mark it helpful) before it is held: one failure
// after an injection may be bad luck, two in separate sessions are not.
const RefutedHold = 2

// Pending reports whether the learning is a draft awaiting review.
func (l *Learning) Pending() bool { return l.Status == StatusPending }

// LocalOnly reports whether the learning must never leave this machine:
// scope personal or private: true (ARCHITECTURE §7).
func (l *Learning) LocalOnly() bool { return l.Scope == "personal" || l.Private }

// KeepExtra copies the unknown frontmatter fields of old that l does not
// already have, so replacing a document does not lose what other tools added.
func (l *Learning) KeepExtra(old *Learning) {
	have := map[string]bool{}
	for i := 0; i+1 < len(l.extra); i += 2 {
		have[l.extra[i].Value] = true
	}
	for i := 0; i+1 < len(old.extra); i += 2 {
		if !have[old.extra[i].Value] {
			l.extra = append(l.extra, old.extra[i], old.extra[i+1])
		}
	}
}
