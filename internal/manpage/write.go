package manpage

import (
	"bufio"
	"bytes"
)

// roffWriter writes the tree as go-md2man's roff renderer does.
type roffWriter struct {
	w           *bytes.Buffer
	firstHeader bool
}

func (r *roffWriter) node(n *node) {
	switch n.kind {
	case kHeading:
		switch {
		case n.level == 1 && !r.firstHeader:
			r.w.WriteString(".TH ")
			r.firstHeader = true
		case n.level == 1:
			r.w.WriteString("\n\n.SH ")
		case n.level == 2:
			r.w.WriteString("\n.SH ")
		default:
			r.w.WriteString("\n.SS ")
		}
		r.children(n)
	case kParagraph:
		if n.prev != nil && n.prev.kind == kHeading {
			r.w.WriteString("\n")
		} else {
			r.w.WriteString("\n.PP\n")
		}
		r.children(n)
		r.w.WriteString("\n")
	case kCodeBlock:
		r.w.WriteString("\n.EX\n")
		escapeSpecialChars(r.w, n.lit)
		r.w.WriteString(".EE\n")
	case kText:
		r.text(n)
	case kEmph:
		r.w.WriteString("\\fI")
		r.children(n)
		r.w.WriteString("\\fP")
	case kStrong:
		r.w.WriteString("\\fB")
		r.children(n)
		r.w.WriteString("\\fP")
	case kCode:
		r.w.WriteString("\\fB")
		escapeSpecialChars(r.w, n.lit)
		r.w.WriteString("\\fR")
	case kHardbreak:
		r.w.WriteString("\n.br\n")
	case kHTMLSpan:
	}
}

func (r *roffWriter) children(n *node) {
	for _, c := range n.children {
		r.node(c)
	}
}

// text escapes a text node; in the NAME section " - " becomes " \- " for
// whatis (lexgrog(1)).
func (r *roffWriter) text(n *node) {
	p := n.parent
	if p != nil && p.kind == kParagraph && p.prev != nil && p.prev.kind == kHeading &&
		len(p.prev.children) > 0 && bytes.EqualFold(p.prev.children[0].lit, []byte("NAME")) {
		before, after, found := bytes.Cut(n.lit, []byte(" - "))
		escapeSpecialChars(r.w, before)
		if found {
			r.w.WriteString(` \- `)
			escapeSpecialChars(r.w, after)
		}
		return
	}
	escapeSpecialChars(r.w, n.lit)
}

// escapeSpecialChars escapes backslashes, and a period or apostrophe that
// starts a line (a roff request otherwise), line by line.
func escapeSpecialChars(w *bytes.Buffer, text []byte) {
	scanner := bufio.NewScanner(bytes.NewReader(text))
	n := bytes.Count(text, []byte{'\n'})
	idx := 0
	for scanner.Scan() {
		dt := scanner.Bytes()
		if idx < n {
			idx++
			dt = append(dt, '\n')
		}
		escapeSpecialCharsLine(w, dt)
	}
}

func escapeSpecialCharsLine(w *bytes.Buffer, text []byte) {
	for i := 0; i < len(text); i++ {
		// Once per run of plain characters, as md2man does.
		if text[0] == '\'' || text[0] == '.' {
			w.WriteString("\\&")
		}
		org := i
		for i < len(text) && text[i] != '\\' {
			i++
		}
		if i > org {
			w.Write(text[org:i])
		}
		if i >= len(text) {
			break
		}
		w.Write([]byte{'\\', text[i]})
	}
}
