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
