package webui

import (
	"bytes"
	"html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// newMarkdown renders learning bodies. goldmark without WithUnsafe already
// drops raw HTML and javascript: links; rawHTMLAsText goes further and
// shows raw HTML as the text it is, so a learning about a <script> tag
// still says so.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(rawHTMLAsText{}, 100))),
	)
}

// render turns a learning body into HTML that holds no markup of the
// body's own.
func (s *Server) render(body string) template.HTML {
	var buf bytes.Buffer
	if err := s.md.Convert([]byte(body), &buf); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(body) + "</pre>")
	}
	return template.HTML(buf.String()) // #nosec: goldmark escapes text; raw HTML is escaped below
}

// rawHTMLAsText renders raw HTML, inline or block, escaped.
type rawHTMLAsText struct{}

func (rawHTMLAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkSkipChildren, nil
		}
		segs := n.(*ast.RawHTML).Segments
		for i := 0; i < segs.Len(); i++ {
			seg := segs.At(i)
			template.HTMLEscape(w, seg.Value(source))
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		b := n.(*ast.HTMLBlock)
		_, _ = w.WriteString("<pre class=\"raw-html\">")
		lines := b.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			template.HTMLEscape(w, seg.Value(source))
		}
		if b.HasClosure() {
			template.HTMLEscape(w, b.ClosureLine.Value(source))
		}
		_, _ = w.WriteString("</pre>\n")
		return ast.WalkContinue, nil
	})
}
