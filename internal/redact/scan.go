package redact

import "sync"

// Every rule starts at a literal marker. scan finds all markers in one pass
// over the text, so text without markers costs one table lookup per byte and
// no allocation, and each rule then only looks at the places it cares about.

// hit is a marker found at byte pos.
type hit struct {
	pos int
	id  uint8
}

// Rules that are not entries of patterns (those use their index, >= 0).
const (
	ruleNone = -1 - iota // <private> tags, handled before the rules
	rulePEM
	ruleURL
	ruleBearer
	ruleLabel
	ruleCommand
)

type markerDef struct {
	text string // lowercase; letters match either case
	rule int
	// lead is how far into what the rule reads the marker starts (a
	// command's name: ruleCommand only).
	lead int
}

// The private tags come first so their ids are constants.
const (
	idPrivateOpen uint8 = iota
	idPrivateClose
)

var (
	// tablesOnce builds markers and pairTab on the first scan, not at
	// start-up: most reflect processes (every hook that arms no watcher)
	// never redact, and filling the 64 KB table touches all its pages.
	tablesOnce sync.Once
	markers    []markerDef
	// pairTab maps the first two bytes of a marker (either case) to
	// 1 + an index into pairGroups, the ids of the markers starting so.
	pairTab    [1 << 16]uint8
	pairGroups [][]uint8
)

func buildTables() {
	markers = []markerDef{{text: openTag, rule: ruleNone}, {text: closeTag, rule: ruleNone}, {text: "-----begin", rule: rulePEM},
		{text: "://", rule: ruleURL}, {text: "bearer", rule: ruleBearer}}
	for _, c := range cmdMarkers {
		markers = append(markers, markerDef{text: c.text, rule: ruleCommand, lead: c.lead})
	}
	for _, w := range labelWords {
		markers = append(markers, markerDef{text: w, rule: ruleLabel})
	}
	for i, p := range patterns {
		for _, m := range p.markers {
			markers = append(markers, markerDef{text: m, rule: i})
		}
	}
	if len(markers) > 255 {
		panic("redact: too many markers")
	}
	// Every case spelling of a pair shares one group: markers match
	// either case anyway.
	for id, m := range markers {
		k := uint16(m.text[0])<<8 | uint16(m.text[1])
		if pairTab[k] == 0 {
			pairGroups = append(pairGroups, nil)
			g := uint8(len(pairGroups))
			for _, c0 := range foldCases(m.text[0]) {
				for _, c1 := range foldCases(m.text[1]) {
					pairTab[uint16(c0)<<8|uint16(c1)] = g
				}
			}
		}
		g := pairTab[k] - 1
		pairGroups[g] = append(pairGroups[g], uint8(id))
	}
	if len(pairGroups) > 255 {
		panic("redact: too many marker pairs")
	}
}

func foldCases(c byte) []byte {
	if c >= 'a' && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// scan appends to hits every marker occurrence in s, in order of position.
func scan(s string, hits []hit) []hit {
	tablesOnce.Do(buildTables)
	for i := 0; i+1 < len(s); i++ {
		g := pairTab[uint16(s[i])<<8|uint16(s[i+1])]
		if g == 0 {
			continue
		}
		for _, id := range pairGroups[g-1] {
			if hasPrefixFold(s[i:], markers[id].text) {
				hits = append(hits, hit{i, id})
			}
		}
	}
	return hits
}

// hasPrefixFold is strings.HasPrefix with ASCII letters of s folded to
// lower case (prefix is lowercase already).
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}
