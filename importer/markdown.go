package importer

import (
	"strings"

	"github.com/reflectkb/reflect/internal/text"
)

// Rule is one rule or section read from a source: what becomes a learning.
type Rule struct {
	// Title is the rule in one line; Text the whole rule (markdown).
	Title, Text string
	// Section is the heading path the rule sits under ("Testing › Go").
	Section string
	// Line is the rule's first line in the source, 1-based.
	Line int
}

// Limits that keep one learning a readable size whatever a source holds.
const (
	maxTitle = 90
	maxText  = 4000
	// minWords drops fragments ("See below.") too short to be a rule.
	minWords = 3
)

// block is a run of lines of one section: a top-level list item, or prose
// (paragraphs and code blocks) between list items.
type block struct {
	list  bool
	line  int
	lines []string
}

// section is a heading (none before the first) and the blocks under it.
type section struct {
	path   []string
	line   int // the heading's line; the first block's when there is none
	blocks []*block
}

// SplitMarkdown turns a markdown instruction file into rules: each
// top-level list item of a section is a rule of its own (instruction files
// are mostly lists of rules), and a section without a list is one rule
// titled by its heading. offset is the number of lines before text in its
// file (a front matter), so that lines name the file's lines.
func SplitMarkdown(src string, offset int) []Rule {
	var rules []Rule
	for _, s := range sections(src, offset) {
		rules = append(rules, s.rules()...)
	}
	return rules
}

func sections(src string, offset int) []*section {
	var (
		out   []*section
		cur   = &section{}
		stack []string // heading texts by level-1
		fence string   // the open code fence, "" outside one
		blk   *block
	)
	out = append(out, cur)
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	for i, ln := range lines {
		no := offset + i + 1
		trimmed := strings.TrimSpace(ln)
		if fence != "" {
			blk.lines = append(blk.lines, ln)
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if lvl, h := heading(ln); lvl > 0 {
			if len(stack) >= lvl {
				stack = stack[:lvl-1]
			}
			for len(stack) < lvl-1 {
				stack = append(stack, "")
			}
			stack = append(stack, h)
			cur = &section{path: nonEmpty(stack), line: no}
			out = append(out, cur)
			blk = nil
			continue
		}
		if trimmed == "" {
			if blk != nil {
				blk.lines = append(blk.lines, ln)
			}
			continue
		}
		item := isItem(ln)
		indented := ln[0] == ' ' || ln[0] == '\t'
		switch {
		case item:
			blk = &block{list: true, line: no}
			cur.blocks = append(cur.blocks, blk)
		case blk == nil, blk.list && !indented && endsBlank(blk.lines):
			blk = &block{line: no}
			cur.blocks = append(cur.blocks, blk)
		}
		if cur.line == 0 {
			cur.line = no
		}
		blk.lines = append(blk.lines, ln)
		if f := fenceOf(trimmed); f != "" {
			fence = f
		}
	}
	return out
}

// rules makes a section's rules: one per list item, one per prose block
// beside them, or the whole section as one when it has no list.
func (s *section) rules() []Rule {
	hasList := false
	for _, b := range s.blocks {
		hasList = hasList || b.list
	}
	where := strings.Join(s.path, " › ")
	if !hasList {
		var all []string
		for _, b := range s.blocks {
			all = append(all, b.lines...)
		}
		body := strings.TrimSpace(strings.Join(all, "\n"))
		if body == "" || len(strings.Fields(body)) < minWords && len(s.path) == 0 {
			return nil
		}
		if boilerplate(body) {
			return nil
		}
		title := firstLine(body)
		if n := len(s.path); n > 0 && !strings.HasSuffix(strings.ToLower(s.path[n-1]), ".md") {
			// A heading names the section; one that is the file's own
			// name ("# CLAUDE.md") says nothing.
			title = s.path[n-1]
		}
		return []Rule{{Title: clipTitle(title), Text: clipText(body), Section: where, Line: s.line}}
	}
	var out []Rule
	for _, b := range s.blocks {
		body := strings.TrimSpace(strings.Join(b.lines, "\n"))
		if b.list {
			body = strings.TrimSpace(stripMarker(body))
		}
		if len(strings.Fields(body)) < minWords {
			continue
		}
		if !b.list && (strings.HasSuffix(body, ":") || boilerplate(body)) {
			// "Follow these rules:" introduces the items; it is not one.
			continue
		}
		out = append(out, Rule{Title: clipTitle(firstLine(body)), Text: clipText(body), Section: where, Line: b.line})
	}
	return out
}

// heading returns an ATX heading's level and text, 0 for another line.
func heading(ln string) (int, string) {
	if len(ln) == 0 || ln[0] != '#' {
		return 0, ""
	}
	lvl := 0
	for lvl < len(ln) && ln[lvl] == '#' {
		lvl++
	}
	if lvl > 6 || (lvl < len(ln) && ln[lvl] != ' ' && ln[lvl] != '\t') {
		return 0, ""
	}
	h := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(ln[lvl:]), "#"))
	return lvl, plain(h)
}

// isItem reports a top-level list item: "- ", "* ", "+ " or "1. " at the
// line's start (a nested item is indented and belongs to its parent).
func isItem(ln string) bool {
	if len(ln) < 2 {
		return false
	}
	if (ln[0] == '-' || ln[0] == '*' || ln[0] == '+') && ln[1] == ' ' {
		return !isRule(ln)
	}
	i := 0
	for i < len(ln) && i < 4 && ln[i] >= '0' && ln[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(ln) && (ln[i] == '.' || ln[i] == ')') && ln[i+1] == ' '
}

// isRule reports a thematic break ("- - -", "***"), which is not an item.
func isRule(ln string) bool {
	s := strings.ReplaceAll(strings.TrimSpace(ln), " ", "")
	return len(s) >= 3 && strings.Trim(s, string(s[0])) == ""
}

func stripMarker(s string) string {
	if len(s) > 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+') {
		s = s[2:]
	} else if i := strings.IndexAny(s, ".)"); i > 0 && i < 4 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	// A task-list box says nothing about the rule.
	for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
		s = strings.TrimPrefix(s, box)
	}
	return s
}

func fenceOf(trimmed string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			return f
		}
	}
	// A list item may open a fence after its marker.
	if i := strings.Index(trimmed, "```"); i > 0 && strings.TrimSpace(stripMarker(trimmed[:i])) == "" {
		return "```"
	}
	return ""
}

func endsBlank(lines []string) bool {
	return len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == ""
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// firstLine is the first sentence-bearing line of a rule, as plain text.
func firstLine(s string) string {
	for _, ln := range strings.Split(s, "\n") {
		if p := plain(ln); p != "" && fenceOf(strings.TrimSpace(ln)) == "" {
			return p
		}
	}
	return plain(s)
}

// plain drops the markdown emphasis that would clutter a title.
func plain(s string) string {
	s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
	return text.OneLine(s)
}

func clipTitle(s string) string { return text.ClipWords(text.OneLine(s), maxTitle) }
func clipText(s string) string  { return text.ClipRunes(s, maxText) }

// boilerplate reports the preamble agents write into the files they
// generate (Claude Code's /init), which tells an agent nothing.
func boilerplate(s string) bool {
	return strings.HasPrefix(s, "This file provides guidance to ")
}
