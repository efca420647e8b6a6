// Package shortid lets people type ids the way they type git hashes: any
// unique prefix of an id (with or without its kind prefix such as "lrn-"),
// or its random or hashed tail after the last '-', or the start of that tail. Ids run to 60–70
// characters; nobody should have to paste one to read or drop a learning.
package shortid

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNotFound is returned when no id matches a reference.
var ErrNotFound = errors.New("no such id")

// maxListed bounds the candidates an AmbiguousError names: enough to pick
// from, short enough to read.
const maxListed = 10

// AmbiguousError is returned when a reference matches several ids.
type AmbiguousError struct {
	Ref        string
	Candidates []string // sorted; all of them, even past maxListed
}

func (e *AmbiguousError) Error() string {
	shown := e.Candidates
	more := ""
	if len(shown) > maxListed {
		more = fmt.Sprintf("\n  … and %d more", len(shown)-maxListed)
		shown = shown[:maxListed]
	}
	return fmt.Sprintf("%q is ambiguous: it matches %d ids; type more of the one you mean:\n  %s%s",
		e.Ref, len(e.Candidates), strings.Join(shown, "\n  "), more)
}

// Resolve returns the one id of ids that ref names: ref itself when it is
// an id, else the only id that starts with ref or with kind+ref (kind is
// the ids' common prefix, e.g. "lrn-"), or that ends with "-"+ref. No match
// is ErrNotFound (wrapped with ref); several are an *AmbiguousError.
func Resolve(ref string, ids []string, kind string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("%q: %w", ref, ErrNotFound)
	}
	var matches []string
	for _, id := range ids {
		if id == ref {
			return id, nil
		}
		if Matches(ref, id, kind) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%q: %w", ref, ErrNotFound)
	case 1:
		return matches[0], nil
	}
	sort.Strings(matches)
	return "", &AmbiguousError{Ref: ref, Candidates: matches}
}

// minTailPrefix is how much of an id's tail a reference must give to match
// by it, so that "a" or "1" do not match half the ids by their tails.
const minTailPrefix = 4

// Matches reports whether ref could name id (see Resolve).
func Matches(ref, id, kind string) bool {
	if strings.HasPrefix(id, ref) || (kind != "" && strings.HasPrefix(id, kind+ref)) {
		return true
	}
	i := strings.LastIndexByte(id, '-')
	return i >= 0 && len(ref) >= minTailPrefix && strings.HasPrefix(id[i+1:], ref)
}

// Short returns the short form of id among ids: its hex tail after the last
// '-' (the 6-hex hash of a derived learning id, the random part of a queue
// id) when Resolve maps that back to id, else id itself. Ids chosen by hand
// (lrn-cookie) and ids whose tail would be ambiguous are shown in full,
// rather than printing something that cannot be typed back.
//
// Only the ids that tail could match count (Rivals): a caller that can
// find those without listing every id may pass just them.
func Short(id string, ids []string, kind string) string {
	tail, ok := Tail(id)
	if !ok {
		return id
	}
	if got, err := Resolve(tail, ids, kind); err == nil && got == id {
		return tail
	}
	return id
}
