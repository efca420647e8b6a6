package index

import (
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"time"
)

// A targeted update (Put, Forget) indexes the documents it wrote and no
// others, so it may move meta.docs_stamp (which lets Refresh skip the scan
// of documents/) only when it can show that nothing else changed in
// documents/ meanwhile; otherwise a foreign write (git, an editor, a
// process that wrote a document without indexing it) would stay hidden
// from every Refresh until the directory changed again. The directory's
// mtime alone cannot show that: it records when the last entry changed,
// not how many did. The argument, in three parts:
//
//  1. The invariant every writer of docs_stamp keeps: when it stores S,
//     every entry of documents/ it did not index changed after its listing
//     began, and its listing began after the coarse clock passed S (it
//     waits a tick when S is that recent: settledStamp), so such a change
//     set the directory's mtime past S and the next Refresh scans.
//  2. Before writing, the targeted writer lists documents/ (names and inode
//     numbers, no stat: listDigest) while its mtime stays S0 (the probe).
//     Under the update lock it finds docs_stamp still S0: by (1), the index
//     then covers that listing exactly, since any change not indexed would
//     have moved the mtime past S0 before the listing.
//  3. After indexing its own documents, still under the lock, it waits for
//     the clock to pass the directory's mtime S1, lists again while the
//     mtime stays S1, and stores S1 only when the second listing equals
//     the first apart from its own names, and its own names carry the
//     inodes it indexed (or are absent, for a forget). Anything another
//     process did in between shows as a difference; anything it does after
//     the listing began moves the mtime past S1 (1).
//
// In any other case (the stamp moved before the lock, a listing differs,
// another platform without inode numbers in its listing) docs_stamp is left
// as it was, and the next Refresh does the full incremental scan. An
// inode number reused by two replacements of one name within the window
// would go unseen; so would a file rewritten in place, which no directory
// stamp sees (Refresh's documented limit). The listing costs a readdir of
// documents/ twice per targeted update: no stat, no catalog read, memory
// independent of its size.

// dirProbe is what documents/ looked like before a targeted update wrote
// its own files: its stamp and a digest of every other entry.
type dirProbe struct {
	ok     bool
	stamp  string
	digest uint64
	count  int
}

// digestSeed is fixed per process: digests are only ever compared within
// one process.
var digestSeed = maphash.MakeSeed()

// entryHash is one directory entry's share of a digest.
func entryHash(name string, ino uint64) uint64 {
	h := maphash.String(digestSeed, name) ^ (ino * 0x9e3779b97f4a7c15)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	return h ^ h>>33
}

// errNoInodes is returned by listDigest where a directory listing does not
// carry inode numbers; docs_stamp is then never moved by a targeted update.
var errNoInodes = errors.New("directory listing without inode numbers")

// probeDocs lists documents/ before a targeted update writes its files
// (mine: their names, which the digest leaves out). It reports ok=false
// when the directory changed while it was listed.
func (ix *Index) probeDocs(mine map[string]bool) dirProbe {
	before := ix.docsStamp()
	// The index is behind documents/ already: the stamp cannot move, and
	// the listing would be wasted.
	var stored string
	if err := ix.db.QueryRow(`SELECT value FROM meta WHERE key='docs_stamp'`).Scan(&stored); err != nil || stored != before {
		return dirProbe{}
	}
	sum, count, _, err := listDigest(ix.store.Dir, mine)
	if err != nil || ix.docsStamp() != before {
		return dirProbe{}
	}
	return dirProbe{ok: true, stamp: before, digest: sum, count: count}
}

// settledStamp reads the stamp of documents/ once the coarse clock the
// filesystem stamps directories with has moved past it, so that any change
// after the caller's listing begins sets a later mtime (part 1 above). It
// waits at most a few clock ticks, and only right after documents/ changed.
func (ix *Index) settledStamp() string {
	for range 5 {
		fi, err := os.Stat(ix.store.Dir)
		if err != nil {
			return "none"
		}
		wait := fi.ModTime().Add(stampTick()).Sub(time.Now())
		if wait < 0 {
			return fmt.Sprint(fi.ModTime().UnixNano())
		}
		time.Sleep(wait)
	}
	return ix.docsStamp()
}

// confirmDocs decides, under the update lock and after the targeted
// update indexed its documents, which stamp it may store: the directory's
// current one when pre's listing and a new one agree outside mine and each
// of mine has the inode in want (0: absent); "" otherwise (part 3 above).
func (ix *Index) confirmDocs(pre dirProbe, stored string, mine map[string]bool, want map[string]uint64) string {
	if !pre.ok || stored != pre.stamp {
		return ""
	}
	s1 := ix.settledStamp()
	sum, count, inos, err := listDigest(ix.store.Dir, mine)
	if err != nil || sum != pre.digest || count != pre.count || ix.docsStamp() != s1 {
		return ""
	}
	for name, ino := range want {
		if inos[name] != ino {
			return ""
		}
	}
	return s1
}
