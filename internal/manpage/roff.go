package manpage

import (
	"bytes"
	"errors"
	"fmt"
)

// The renderer follows go-md2man's roff output over blackfriday's parse
// (the extensions md2man enables), for the markdown a page is made of: a
// title block, headings, paragraphs, fenced and indented code, and inline
// strong, emphasis, code spans, escapes, entities and HTML tags (dropped).
// Lists, tables, block quotes, rules, links and footnotes are refused.

// ErrUnsupported is returned for markdown the renderer does not render as
// md2man would.
var ErrUnsupported = errors.New("markdown the man-page renderer does not support")

type kind int

const (
	kDocument kind = iota
	kHeading
	kParagraph
	kCodeBlock
	kText
	kEmph
	kStrong
	kCode
	kHTMLSpan
	kHardbreak
)

type node struct {
	kind     kind
	lit      []byte
	level    int
	parent   *node
	prev     *node
	next     *node
	children []*node
}

func (n *node) add(c *node) {
	c.parent = n
	if len(n.children) > 0 {
		last := n.children[len(n.children)-1]
		last.next = c
		c.prev = last
	}
	n.children = append(n.children, c)
}

type parser struct {
	doc *node
	err error
}

func (p *parser) unsupported(what string) {
	if p.err == nil {
		p.err = fmt.Errorf("%w: %s", ErrUnsupported, what)
	}
}

// render turns a page's markdown into roff.
func render(md []byte) ([]byte, error) {
	p := &parser{doc: &node{kind: kDocument}}
	p.block(md)
	for _, b := range p.doc.children {
		if b.kind == kHeading || b.kind == kParagraph {
			content := b.lit
			b.lit = nil
			p.inline(b, content)
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	var w bytes.Buffer
	w.WriteString(".nh\n")
	r := &roffWriter{w: &w}
	for _, b := range p.doc.children {
		r.node(b)
	}
	return w.Bytes(), nil
}

// --- blocks (blackfriday's block.go) ---

func (p *parser) block(data []byte) {
	for len(data) > 0 && p.err == nil {
		if isPrefixHeading(data) {
			data = data[p.prefixHeading(data):]
			continue
		}
		if data[0] == '<' {
			p.unsupported("a block starting with <")
			return
		}
		if data[0] == '%' {
			if i := p.titleBlock(data); i > 0 {
				data = data[i:]
				continue
			}
		}
		if i := isEmpty(data); i > 0 {
			data = data[i:]
			continue
		}
		if codePrefix(data) > 0 {
			data = data[p.code(data):]
			continue
		}
		if i := p.fencedCodeBlock(data, true); i > 0 {
			data = data[i:]
			continue
		}
		switch {
		case isHRule(data):
			p.unsupported("a horizontal rule")
		case quotePrefix(data) > 0:
			p.unsupported("a block quote")
		case isTable(data):
			p.unsupported("a table")
		case uliPrefix(data) > 0 || oliPrefix(data) > 0 || dliPrefix(data) > 0:
			p.unsupported("a list")
		}
		if p.err != nil {
			return
		}
		data = data[p.paragraph(data):]
	}
}

func (p *parser) addBlock(k kind, content []byte) *node {
	n := &node{kind: k, lit: content}
	p.doc.add(n)
	return n
}

func isPrefixHeading(data []byte) bool {
	if data[0] != '#' {
		return false
	}
	level := 0
	for level < 6 && level < len(data) && data[level] == '#' {
		level++
	}
	return level != len(data) && data[level] == ' '
}

func (p *parser) prefixHeading(data []byte) int {
	level := 0
	for level < 6 && level < len(data) && data[level] == '#' {
		level++
	}
	i := skipChar(data, level, ' ')
	end := skipUntilChar(data, i, '\n')
	skip := end
	for end > 0 && data[end-1] == '#' {
		if isBackslashEscaped(data, end-1) {
			break
		}
		end--
	}
	for end > 0 && data[end-1] == ' ' {
		end--
	}
	if end > i {
		p.addBlock(kHeading, data[i:end]).level = level
	}
	return skip
}

func (p *parser) titleBlock(data []byte) int {
	lines := bytes.Split(data, []byte("\n"))
	var i int
	for idx, b := range lines {
		if !bytes.HasPrefix(b, []byte("%")) {
			i = idx
			break
		}
	}
	data = bytes.Join(lines[0:i], []byte("\n"))
	consumed := len(data)
	data = bytes.TrimPrefix(data, []byte("% "))
	data = bytes.ReplaceAll(data, []byte("\n% "), []byte("\n"))
	p.addBlock(kHeading, data).level = 1
	return consumed
}

func isEmpty(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	var i int
	for i = 0; i < len(data) && data[i] != '\n'; i++ {
		if data[i] != ' ' && data[i] != '\t' {
			return 0
		}
	}
	if i < len(data) && data[i] == '\n' {
		i++
	}
	return i
}

func isHRule(data []byte) bool {
	i := 0
	for i < 3 && i < len(data) && data[i] == ' ' {
		i++
	}
	if i >= len(data) || (data[i] != '*' && data[i] != '-' && data[i] != '_') {
		return false
	}
	c := data[i]
	n := 0
	for i < len(data) && data[i] != '\n' {
		switch {
		case data[i] == c:
			n++
		case data[i] != ' ':
			return false
		}
		i++
	}
	return n >= 3
}

func codePrefix(data []byte) int {
	if len(data) >= 1 && data[0] == '\t' {
		return 1
	}
	if len(data) >= 4 && data[0] == ' ' && data[1] == ' ' && data[2] == ' ' && data[3] == ' ' {
		return 4
	}
	return 0
}

func (p *parser) code(data []byte) int {
	var work bytes.Buffer
	i := 0
	for i < len(data) {
		beg := i
		for i < len(data) && data[i] != '\n' {
			i++
		}
		if i < len(data) && data[i] == '\n' {
			i++
		}
		blank := isEmpty(data[beg:i]) > 0
		if pre := codePrefix(data[beg:i]); pre > 0 {
			beg += pre
		} else if !blank {
			i = beg
			break
		}
		if blank {
			work.WriteByte('\n')
		} else {
			work.Write(data[beg:i])
		}
	}
	b := work.Bytes()
	eol := len(b)
	for eol > 0 && b[eol-1] == '\n' {
		eol--
	}
	work.Truncate(eol)
	work.WriteByte('\n')
	p.addBlock(kCodeBlock, work.Bytes())
	return i
}

// isFenceLine reports the end of a fence line (after its newline) and its
// marker, or 0.
func isFenceLine(data []byte, wantInfo bool, oldmarker string) (int, string) {
	i, size := 0, 0
	for i < len(data) && i < 3 && data[i] == ' ' {
		i++
	}
	if i >= len(data) || (data[i] != '~' && data[i] != '`') {
		return 0, ""
	}
	c := data[i]
	for i < len(data) && data[i] == c {
		size++
		i++
	}
	if size < 3 {
		return 0, ""
	}
	marker := string(data[i-size : i])
	if oldmarker != "" && marker != oldmarker {
		return 0, ""
	}
	if wantInfo {
		i = skipChar(data, i, ' ')
		if i >= len(data) {
			if i == len(data) {
				return i, marker
			}
			return 0, ""
		}
		if data[i] == '{' {
			for i < len(data) && data[i] != '}' && data[i] != '\n' {
				i++
			}
			if i >= len(data) || data[i] != '}' {
				return 0, ""
			}
			i++
			i = skipChar(data, i, ' ')
		} else {
			for i < len(data) && !isverticalspace(data[i]) {
				i++
			}
		}
	}
	if i == len(data) {
		return i, marker
	}
	if i > len(data) || data[i] != '\n' {
		return 0, ""
	}
	return i + 1, marker
}

// fencedCodeBlock returns the end of the fenced code block data starts
// with, or 0; the info string is dropped (md2man does not use it).
func (p *parser) fencedCodeBlock(data []byte, doRender bool) int {
	beg, marker := isFenceLine(data, true, "")
	if beg == 0 || beg >= len(data) {
		return 0
	}
	var work bytes.Buffer
	for {
		if end, _ := isFenceLine(data[beg:], false, marker); end != 0 {
			beg += end
			break
		}
		end := skipUntilChar(data, beg, '\n') + 1
		if end >= len(data) {
			return 0
		}
		work.Write(data[beg:end])
		beg = end
	}
	if doRender {
		p.addBlock(kCodeBlock, work.Bytes())
	}
	return beg
}

func quotePrefix(data []byte) int {
	i := 0
	for i < 3 && i < len(data) && data[i] == ' ' {
		i++
	}
	if i < len(data) && data[i] == '>' {
		return i + 1
	}
	return 0
}

func uliPrefix(data []byte) int {
	i := 0
	for i < len(data) && i < 3 && data[i] == ' ' {
		i++
	}
	if i >= len(data)-1 {
		return 0
	}
	if (data[i] != '*' && data[i] != '+' && data[i] != '-') || (data[i+1] != ' ' && data[i+1] != '\t') {
		return 0
	}
	return i + 2
}

func oliPrefix(data []byte) int {
	i := 0
	for i < 3 && i < len(data) && data[i] == ' ' {
		i++
	}
	start := i
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	if start == i || i >= len(data)-1 {
		return 0
	}
	if data[i] != '.' || !(data[i+1] == ' ' || data[i+1] == '\t') {
		return 0
	}
	return i + 2
}

func dliPrefix(data []byte) int {
	if len(data) < 2 || data[0] != ':' || !(data[1] == ' ' || data[1] == '\t') {
		return 0
	}
	return 2
}

// isTable is conservative: a line with a pipe over a line of dashes and
// pipes may be a table, which the renderer refuses.
func isTable(data []byte) bool {
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || !bytes.Contains(first, []byte("|")) {
		return false
	}
	second, _, _ := bytes.Cut(rest, []byte("\n"))
	return len(bytes.Trim(second, "-|: \t")) == 0 && bytes.Contains(second, []byte("-"))
}

// isReference is conservative: "[id]:" at a line's start may define a
// link reference or a footnote, which the renderer refuses.
func isReference(data []byte) bool {
	i := 0
	for i < 3 && i < len(data) && data[i] == ' ' {
		i++
	}
	if i >= len(data) || data[i] != '[' {
		return false
	}
	for i < len(data) && data[i] != '\n' && data[i] != '\r' && data[i] != ']' {
		i++
	}
	return i+1 < len(data) && data[i] == ']' && data[i+1] == ':'
}

func isUnderlinedHeading(data []byte) bool {
	if data[0] != '=' && data[0] != '-' {
		return false
	}
	i := skipChar(data, 1, data[0])
	i = skipChar(data, i, ' ')
	return i < len(data) && data[i] == '\n'
}

func (p *parser) paragraph(data []byte) int {
	var i int
	for i < len(data) {
		current := data[i:]
		if isReference(current) {
			p.unsupported("a link reference or footnote")
			return len(data)
		}
		if n := isEmpty(current); n > 0 {
			if i < len(data)-1 && data[i+1] == ':' {
				p.unsupported("a definition list")
				return len(data)
			}
			p.renderParagraph(data[:i])
			return i + n
		}
		if i > 0 && isUnderlinedHeading(current) {
			p.unsupported("an underlined heading")
			return len(data)
		}
		if isPrefixHeading(current) || isHRule(current) {
			p.renderParagraph(data[:i])
			return i
		}
		if p.fencedCodeBlock(current, false) > 0 {
			p.renderParagraph(data[:i])
			return i
		}
		if dliPrefix(current) != 0 {
			p.unsupported("a definition list")
			return len(data)
		}
		if nl := bytes.IndexByte(data[i:], '\n'); nl >= 0 {
			i += nl + 1
		} else {
			i += len(data[i:])
		}
	}
	p.renderParagraph(data[:i])
	return i
}

func (p *parser) renderParagraph(data []byte) {
	if len(data) == 0 {
		return
	}
	beg := 0
	for data[beg] == ' ' {
		beg++
	}
	end := len(data)
	if data[len(data)-1] == '\n' {
		end--
	}
	for end > beg && data[end-1] == ' ' {
		end--
	}
	p.addBlock(kParagraph, data[beg:end])
}
