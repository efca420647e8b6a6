package knowledge

import "github.com/reflectkb/reflect/store"

// maxChainWalk bounds how far a supersession chain is followed: a chain is
// a learning's revisions, a handful; a hand-made loop or a synced mess
// must not hang a write.
const maxChainWalk = 32

// resolveSupersedes points l's supersedes at the newest learning of the
// chain of the one it names, before any of it is written, so that the
// history stays linear as git keeps a branch's: when that learning X was
// already superseded by an active A, l replaces A (A.superseded_by = l)
// instead of taking X from A, which would leave A claiming X while X named
// l, and two corrections of X both recalled with nothing saying which came
// last. X and the rest of its chain are left as they are.
//
// The walk follows superseded_by from X and stops at a learning that is
// not superseded, or whose successor is l itself (l is linked already), or
// cannot be read, or is a pending draft (an older reflect linked drafts:
// they are not the user's yet), or was seen before (a hand-made loop): l
// supersedes the last learning reached. When X's chain runs into l's own
// successors (linking would make a loop) or is longer than maxChainWalk,
// l supersedes nothing rather than breaking another link.
//
// links holds the superseded_by links the same change writes and the disk
// does not hold yet (several drafts approved at once), from the superseded
// learning to its new successor; nil when there are none. It returns the
// id l named when it now supersedes another one (or none), "" otherwise.
func (k *Base) resolveSupersedes(l *store.Learning, links map[string]string) (named string) {
	x := l.Supersedes
	if x == "" || x == l.ID {
		return ""
	}
	linked := map[string]bool{}
	for _, id := range links {
		linked[id] = true
	}
	successor := func(id string) (next string, ok bool) {
		if next, ok := links[id]; ok {
			return next, true
		}
		o, err := k.st.Read(id)
		if err != nil {
			return "", false
		}
		return o.SupersededBy, true
	}
	// A learning in the chain is one that is readable and not a draft
	// still waiting (a draft approved in this change counts).
	inChain := func(id string) bool {
		if linked[id] {
			return true
		}
		o, err := k.st.Read(id)
		return err == nil && !o.Pending()
	}
	ahead := k.successors(l, successor)
	head := x
	seen := map[string]bool{x: true}
	for steps := 0; ; steps++ {
		if ahead[head] || steps == maxChainWalk {
			l.Supersedes = ""
			return x
		}
		next, ok := successor(head)
		if !ok || next == "" || next == l.ID || seen[next] || !inChain(next) {
			break
		}
		seen[next] = true
		head = next
	}
	if head == x {
		return ""
	}
	l.Supersedes = head
	return x
}

// successors is the set of learnings that supersede l, directly or down
// its chain (bounded, l itself excluded): linking l after any of them
// would make a loop. Both l's own superseded_by and the one its document
// on disk holds count, since a Put may carry either.
func (k *Base) successors(l *store.Learning, successor func(string) (string, bool)) map[string]bool {
	out := map[string]bool{}
	starts := []string{l.SupersededBy}
	if next, ok := successor(l.ID); ok {
		starts = append(starts, next)
	}
	for _, id := range starts {
		for steps := 0; id != "" && id != l.ID && !out[id] && steps < maxChainWalk; steps++ {
			out[id] = true
			id, _ = successor(id)
		}
	}
	return out
}

// Joined is a supersession chain joined over forgotten learnings:
// Superseded, which the first of Forgotten superseded, stays superseded,
// now by By, which superseded the last of them (X → A → B, A forgotten:
// X → B). B corrected A, which corrected X: X is still outdated, and must
// not come back beside B.
type Joined struct {
	Superseded string   `json:"superseded"`
	By         string   `json:"by"`
	Forgotten  []string `json:"forgotten"`
}

// relinkForgotten works out what forgetting gone changes in the learnings
// that stay, before anything is written: each learning X one of gone
// superseded (X.superseded_by naming it) is joined to the first learning B
// past the forgotten run of X's chain (X.superseded_by = B, B.supersedes =
// X), or, when the forgotten one was the head of the chain or B cannot be
// followed (missing, malformed, a pending draft, not naming the forgotten
// one back, a loop), is active again: a replacement that is gone replaces
// nothing. A learning that superseded a forgotten one and is joined to
// none supersedes nothing. It returns the learnings to write, each once however many links
// of it change, and the joins.
func (k *Base) relinkForgotten(gone []*store.Learning) (writes []*store.Learning, joined []Joined) {
	isGone := make(map[string]*store.Learning, len(gone))
	for _, l := range gone {
		isGone[l.ID] = l
	}
	cache := map[string]*store.Learning{}
	load := func(id string) *store.Learning {
		if l, ok := cache[id]; ok {
			return l
		}
		l, err := k.st.Read(id)
		if err != nil {
			l = nil
		}
		cache[id] = l
		return l
	}
	written := map[string]bool{}
	write := func(ls ...*store.Learning) {
		for _, l := range ls {
			if !written[l.ID] {
				written[l.ID] = true
				writes = append(writes, l)
			}
		}
	}
	for _, l := range gone {
		x := l.Supersedes
		if x == "" || x == l.ID || isGone[x] != nil {
			continue
		}
		old := load(x)
		if old == nil || old.SupersededBy != l.ID {
			continue
		}
		b, between := k.successorPast(l, isGone, load)
		if b == nil || b.ID == x || k.reaches(b, x, isGone, load) {
			old.SupersededBy = ""
			write(old)
			continue
		}
		old.SupersededBy, b.Supersedes = b.ID, x
		write(old, b)
		joined = append(joined, Joined{Superseded: x, By: b.ID, Forgotten: between})
	}
	// A learning that superseded a forgotten one and was joined to none
	// above stops naming it: the id carries the forgotten title, and sync
	// and show would carry a link to nothing on. A pending draft is not
	// the user's yet: approving it resolves what it supersedes
	// (resolveSupersedes).
	for _, l := range gone {
		next := l.SupersededBy
		if next == "" || next == l.ID || isGone[next] != nil {
			continue
		}
		if s := load(next); s != nil && !s.Pending() && s.Supersedes == l.ID {
			s.Supersedes = ""
			write(s)
		}
	}
	return writes, joined
}

// successorPast is the first learning after l in its chain that is not
// being forgotten, and the forgotten ones from l to it; nil when l heads
// its chain or the next one cannot be followed: missing or malformed, a
// pending draft (an older reflect linked drafts: they are not the user's
// yet), one whose supersedes does not name the learning before it back (a
// link made by hand), a loop, or a chain longer than maxChainWalk.
func (k *Base) successorPast(l *store.Learning, isGone map[string]*store.Learning, load func(string) *store.Learning) (*store.Learning, []string) {
	between := []string{l.ID}
	seen := map[string]bool{l.ID: true}
	for cur := l; len(between) <= maxChainWalk; {
		next := cur.SupersededBy
		if next == "" || seen[next] {
			return nil, nil
		}
		if g := isGone[next]; g != nil {
			seen[next] = true
			between = append(between, next)
			cur = g
			continue
		}
		b := load(next)
		if b == nil || b.Pending() || b.Supersedes != cur.ID {
			return nil, nil
		}
		return b, between
	}
	return nil, nil
}

// reaches says whether the chain from b (b itself excluded) runs into x:
// joining x to b would then close a loop (one made by hand).
func (k *Base) reaches(b *store.Learning, x string, isGone map[string]*store.Learning, load func(string) *store.Learning) bool {
	id := b.SupersededBy
	for steps := 0; id != "" && id != b.ID && steps < maxChainWalk; steps++ {
		if id == x {
			return true
		}
		l := isGone[id]
		if l == nil {
			l = load(id)
		}
		if l == nil {
			return false
		}
		id = l.SupersededBy
	}
	return false
}
