package manpage

import "bytes"

// --- inline markdown (blackfriday's inline.go) ---

// maxNesting bounds the recursion of emphasis within emphasis, as
// blackfriday's default does.
const maxNesting = 16

func (p *parser) inline(block *node, data []byte) {
	p.inlineDepth(block, data, 0)
}

func (p *parser) inlineDepth(block *node, data []byte, depth int) {
	if depth >= maxNesting || len(data) == 0 {
		return
	}
	beg, end := 0, 0
	for end < len(data) {
		consumed, n := p.handle(data, end, depth)
		if consumed == 0 {
			end++
			continue
		}
		block.add(textNode(data[beg:end]))
		if n != nil {
			block.add(n)
		}
		beg = end + consumed
		end = beg
	}
	if beg < len(data) {
		if data[end-1] == '\n' {
			end--
		}
		block.add(textNode(data[beg:end]))
	}
}

func textNode(s []byte) *node { return &node{kind: kText, lit: s} }

// handle is blackfriday's table of inline callbacks for the extensions
// md2man enables (no autolinks, no strikethrough, no hard line breaks).
func (p *parser) handle(data []byte, offset, depth int) (int, *node) {
	switch data[offset] {
	case ' ':
		return maybeLineBreak(data, offset)
	case '*', '_':
		return p.emphasis(data, offset, depth)
	case '`':
		return codeSpan(data, offset)
	case '[':
		return p.link(data, offset, false)
	case '!', '^':
		if offset < len(data)-1 && data[offset+1] == '[' {
			return p.link(data, offset, true)
		}
	case '<':
		return p.leftAngle(data, offset)
	case '\\':
		return escape(data, offset)
	case '&':
		return entity(data, offset)
	}
	return 0, nil
}

func maybeLineBreak(data []byte, offset int) (int, *node) {
	orig := offset
	for offset < len(data) && data[offset] == ' ' {
		offset++
	}
	if offset < len(data) && data[offset] == '\n' {
		if offset-orig >= 2 {
			return offset - orig + 1, &node{kind: kHardbreak}
		}
		return offset - orig, nil
	}
	return 0, nil
}

func codeSpan(data []byte, offset int) (int, *node) {
	data = data[offset:]
	nb := 0
	for nb < len(data) && data[nb] == '`' {
		nb++
	}
	i, end := 0, 0
	for end = nb; end < len(data) && i < nb; end++ {
		if data[end] == '`' {
			i++
		} else {
			i = 0
		}
	}
	if i < nb && end >= len(data) {
		return 0, nil
	}
	fBegin := nb
	for fBegin < end && data[fBegin] == ' ' {
		fBegin++
	}
	fEnd := end - nb
	for fEnd > fBegin && data[fEnd-1] == ' ' {
		fEnd--
	}
	if fBegin != fEnd {
		return end, &node{kind: kCode, lit: data[fBegin:fEnd]}
	}
	return end, nil
}

// link handles '[' (and "![", "^["): text in brackets that is not a link
// stays text, as it does in blackfriday without references; a link, an
// image or an inline footnote is refused.
func (p *parser) link(data []byte, offset int, marked bool) (int, *node) {
	footnote := marked && data[offset] == '^'
	if marked {
		offset++
	}
	data = data[offset:]
	i := 1
	if !marked && len(data) > 1 && data[1] == '^' {
		i++
	}
	for level := 1; level > 0 && i < len(data); i++ {
		switch {
		case data[i] == '\n':
		case isBackslashEscaped(data, i):
			continue
		case data[i] == '[':
			level++
		case data[i] == ']':
			level--
			if level <= 0 {
				i--
			}
		}
	}
	if i >= len(data) {
		return 0, nil
	}
	i++
	for i < len(data) && isspace(data[i]) {
		i++
	}
	if i < len(data) && data[i] == '(' || footnote {
		p.unsupported("a link, an image or a footnote")
	}
	return 0, nil
}

func (p *parser) leftAngle(data []byte, offset int) (int, *node) {
	data = data[offset:]
	autolink, end := tagLength(data)
	if size := inlineHTMLComment(data); size > 0 {
		end = size
	}
	if end > 2 {
		if autolink {
			p.unsupported("an autolink")
			return 0, nil
		}
		return end, &node{kind: kHTMLSpan, lit: data[:end]}
	}
	return end, nil
}

func inlineHTMLComment(data []byte) int {
	if len(data) < 5 || data[0] != '<' || data[1] != '!' || data[2] != '-' || data[3] != '-' {
		return 0
	}
	i := 5
	for i < len(data) && !(data[i-2] == '-' && data[i-1] == '-' && data[i] == '>') {
		i++
	}
	if i >= len(data) {
		return 0
	}
	return i + 1
}

// tagLength is the length of the tag data starts with, or 0, and whether
// it is an autolink.
func tagLength(data []byte) (autolink bool, end int) {
	var i, j int
	if len(data) < 3 || data[0] != '<' {
		return false, 0
	}
	if data[1] == '/' {
		i = 2
	} else {
		i = 1
	}
	if !isalnum(data[i]) {
		return false, 0
	}
	for i < len(data) && (isalnum(data[i]) || data[i] == '.' || data[i] == '+' || data[i] == '-') {
		i++
	}
	if i > 1 && i < len(data) && data[i] == '@' {
		if j = isMailtoAutoLink(data[i:]); j != 0 {
			return true, i + j
		}
	}
	if i > 2 && i < len(data) && data[i] == ':' {
		autolink = true
		i++
	}
	switch {
	case i >= len(data):
		autolink = false
	case autolink:
		j = i
		for i < len(data) {
			if data[i] == '\\' {
				i += 2
			} else if data[i] == '>' || data[i] == '\'' || data[i] == '"' || isspace(data[i]) {
				break
			} else {
				i++
			}
		}
		if i >= len(data) {
			return autolink, 0
		}
		if i > j && data[i] == '>' {
			return autolink, i + 1
		}
		autolink = false
	}
	i += bytes.IndexByte(data[i:], '>')
	if i < 0 {
		return autolink, 0
	}
	return autolink, i + 1
}

func isMailtoAutoLink(data []byte) int {
	nb := 0
	for i := 0; i < len(data); i++ {
		if isalnum(data[i]) {
			continue
		}
		switch data[i] {
		case '@':
			nb++
		case '-', '.', '_':
		case '>':
			if nb == 1 {
				return i + 1
			}
			return 0
		default:
			return 0
		}
	}
	return 0
}

var escapeChars = []byte("\\`*_{}[]()#+-.!:|&<>~")

func escape(data []byte, offset int) (int, *node) {
	data = data[offset:]
	if len(data) > 1 {
		if bytes.IndexByte(escapeChars, data[1]) < 0 {
			return 0, nil
		}
		return 2, textNode(data[1:2])
	}
	return 2, nil
}

func entity(data []byte, offset int) (int, *node) {
	data = data[offset:]
	end := 1
	if end < len(data) && data[end] == '#' {
		end++
	}
	for end < len(data) && isalnum(data[end]) {
		end++
	}
	if end < len(data) && data[end] == ';' {
		end++
	} else {
		return 0, nil
	}
	ent := data[:end]
	if bytes.Equal(ent, []byte("&amp;")) {
		ent = []byte{'&'}
	}
	return end, textNode(ent)
}

func (p *parser) emphasis(data []byte, offset, depth int) (int, *node) {
	data = data[offset:]
	c := data[0]
	if len(data) > 2 && data[1] != c {
		if isspace(data[1]) {
			return 0, nil
		}
		ret, n := p.helperEmphasis(data[1:], c, depth)
		if ret == 0 {
			return 0, nil
		}
		return ret + 1, n
	}
	if len(data) > 3 && data[1] == c && data[2] != c {
		if isspace(data[2]) {
			return 0, nil
		}
		ret, n := p.helperDoubleEmphasis(data[2:], c, depth)
		if ret == 0 {
			return 0, nil
		}
		return ret + 2, n
	}
	if len(data) > 4 && data[1] == c && data[2] == c && data[3] != c {
		if isspace(data[3]) {
			return 0, nil
		}
		ret, n := p.helperTripleEmphasis(data, 3, c, depth)
		if ret == 0 {
			return 0, nil
		}
		return ret + 3, n
	}
	return 0, nil
}

// helperFindEmphChar finds the next c, skipping code spans and links.
func helperFindEmphChar(data []byte, c byte) int {
	i := 0
	for i < len(data) {
		for i < len(data) && data[i] != c && data[i] != '`' && data[i] != '[' {
			i++
		}
		if i >= len(data) {
			return 0
		}
		if i != 0 && data[i-1] == '\\' {
			i++
			continue
		}
		if data[i] == c {
			return i
		}
		if data[i] == '`' {
			tmpI := 0
			i++
			for i < len(data) && data[i] != '`' {
				if tmpI == 0 && data[i] == c {
					tmpI = i
				}
				i++
			}
			if i >= len(data) {
				return tmpI
			}
			i++
		} else if data[i] == '[' {
			tmpI := 0
			i++
			for i < len(data) && data[i] != ']' {
				if tmpI == 0 && data[i] == c {
					tmpI = i
				}
				i++
			}
			i++
			for i < len(data) && (data[i] == ' ' || data[i] == '\n') {
				i++
			}
			if i >= len(data) {
				return tmpI
			}
			if data[i] != '[' && data[i] != '(' {
				if tmpI > 0 {
					return tmpI
				}
				continue
			}
			cc := data[i]
			i++
			for i < len(data) && data[i] != cc {
				if tmpI == 0 && data[i] == c {
					return i
				}
				i++
			}
			if i >= len(data) {
				return tmpI
			}
			i++
		}
	}
	return 0
}

func (p *parser) helperEmphasis(data []byte, c byte, depth int) (int, *node) {
	i := 0
	if len(data) > 1 && data[0] == c && data[1] == c {
		i = 1
	}
	for i < len(data) {
		length := helperFindEmphChar(data[i:], c)
		if length == 0 {
			return 0, nil
		}
		i += length
		if i >= len(data) {
			return 0, nil
		}
		if i+1 < len(data) && data[i+1] == c {
			i++
			continue
		}
		if data[i] == c && !isspace(data[i-1]) {
			// NoIntraEmphasis: the closing mark ends a word.
			if !(i+1 == len(data) || isspace(data[i+1]) || ispunct(data[i+1])) {
				continue
			}
			emph := &node{kind: kEmph}
			p.inlineDepth(emph, data[:i], depth+1)
			return i + 1, emph
		}
	}
	return 0, nil
}

func (p *parser) helperDoubleEmphasis(data []byte, c byte, depth int) (int, *node) {
	i := 0
	for i < len(data) {
		length := helperFindEmphChar(data[i:], c)
		if length == 0 {
			return 0, nil
		}
		i += length
		if i+1 < len(data) && data[i] == c && data[i+1] == c && i > 0 && !isspace(data[i-1]) {
			strong := &node{kind: kStrong}
			p.inlineDepth(strong, data[:i], depth+1)
			return i + 2, strong
		}
		i++
	}
	return 0, nil
}

func (p *parser) helperTripleEmphasis(data []byte, offset int, c byte, depth int) (int, *node) {
	i := 0
	orig := data
	data = data[offset:]
	for i < len(data) {
		length := helperFindEmphChar(data[i:], c)
		if length == 0 {
			return 0, nil
		}
		i += length
		if data[i] != c || isspace(data[i-1]) {
			continue
		}
		switch {
		case i+2 < len(data) && data[i+1] == c && data[i+2] == c:
			strong := &node{kind: kStrong}
			em := &node{kind: kEmph}
			strong.add(em)
			p.inlineDepth(em, data[:i], depth+1)
			return i + 3, strong
		case i+1 < len(data) && data[i+1] == c:
			length, n := p.helperEmphasis(orig[offset-2:], c, depth)
			if length == 0 {
				return 0, nil
			}
			return length - 2, n
		default:
			length, n := p.helperDoubleEmphasis(orig[offset-1:], c, depth)
			if length == 0 {
				return 0, nil
			}
			return length - 1, n
		}
	}
	return 0, nil
}

func isBackslashEscaped(data []byte, i int) bool {
	n := 0
	for i-n-1 >= 0 && data[i-n-1] == '\\' {
		n++
	}
	return n&1 == 1
}

func skipChar(data []byte, start int, c byte) int {
	i := start
	for i < len(data) && data[i] == c {
		i++
	}
	return i
}

func skipUntilChar(data []byte, start int, c byte) int {
	i := start
	for i < len(data) && data[i] != c {
		i++
	}
	return i
}

func ispunct(c byte) bool {
	return bytes.IndexByte([]byte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), c) >= 0
}

func isspace(c byte) bool { return c == ' ' || c == '\t' || isverticalspace(c) }

func isverticalspace(c byte) bool { return c == '\n' || c == '\r' || c == '\f' || c == '\v' }

func isalnum(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
