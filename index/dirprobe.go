package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// A targeted update (a Change: knowledge's Put, Forget) indexes the
// documents its caller wrote and no others, so it may move meta.docs_stamp (which lets Refresh skip the scan
// of documents/) only when it can show that nothing else changed in
// documents/ meanwhile; otherwise a foreign write (git, an editor, a
// process that wrote a document without indexing it) would stay hidden
// from every Refresh until the directory changed again. The directory's
// mtime alone cannot show that: it records when the last entry changed,
// not how many did. So beside the stamp the index keeps meta.docs_digest:
// the stamp it belongs to and a digest of the listing of documents/
// (names and inode numbers from getdents, no stat: listDigest; a file
// replaced by a rename has a new inode). The argument, in three parts:
//
//  1. The invariant every writer of docs_stamp keeps: when it stores S,
//     its listing began after the coarse clock the filesystem stamps with
//     had passed S (it waits a tick when S is that recent: settledStamp),
//     so every change made after its listing began set the directory's
//     mtime past S, and everything in its listing is indexed. Its digest
//     D is of that listing.
//  2. Before writing, the targeted writer finds the directory's mtime
//     equal to the stored S (before and after it stats its own names):
//     by (1) nothing changed since the listing of D began, so D minus its
//     own names' entries is the directory as it is apart from them (the
//     probe).
//  3. Under the update lock, after indexing its own documents, it checks
//     that docs_stamp is still S, waits for the clock to pass the
//     directory's mtime S1, lists again while the mtime stays S1, and
//     stores S1 (with that listing's digest) only when the listing equals
//     the probe's apart from its own names, and its own names carry the
//     inodes it indexed (or are absent, for a forget). Anything another
//     process did in between shows as a difference; anything it does after
//     the listing began moves the mtime past S1 (1).
//
// Part 3 without the listing: where it can (Linux, inotify), the probe
// starts watching documents/ before its stat of part 2, so the kernel
// queues an event for every entry changed from then on (dirwatch_linux.go).
// Under the lock, the update waits for the clock to pass the directory's
// mtime S1 as above, reads the queued events, and finds the mtime still
// S1: every change made before then has its event in the queue, and every
// one made after moves the mtime past S1 (1). When each event names one of
// its own files (or its own temporary file, since gone) and its documents
// carry the inodes it indexed, the listing is the probe's plus its own
// entries, so it stores S1 with that digest: the cost of an add no longer
// grows with documents/ (the listing was over half of it at 100,000).
//
// In any other case (the stamp moved, a listing differs, no digest for the
// stored stamp, a platform whose listing has no inode numbers) docs_stamp
// is left as it was, and the next Refresh does the full incremental scan.
// An inode number reused by two replacements of one name within the window
// would go unseen, as would a file rewritten in place, which no directory
// stamp sees (Refresh's documented limit). A targeted update lists
// documents/ at most once (none with a watch): no stat, no catalog read,
// memory independent of its size.

// dirProbe is what documents/ held before a targeted update wrote its
// files: the stamp, and the stored digest without the entries of its own
// names.
type dirProbe struct {
	ok     bool
	stamp  string
	digest uint64
	count  int
	// watch saw every change to documents/ since before the probe; nil
	// where there is none (confirmDocs then lists).
	watch *dirWatch
}

// close stops the probe's watch; the caller defers it.
func (p *dirProbe) close() {
	p.watch.close()
	p.watch = nil
}

// entryHash is one directory entry's share of a digest: FNV-1a over the
// name, mixed with the inode number. It is stored, so it must be the same
// in every process. It takes the name as getdents returns it too, so that
// a listing of 100,000 entries allocates no string per entry.
func entryHash[T string | []byte](name T, ino uint64) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	h ^= ino * 0x9e3779b97f4a7c15
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	return h ^ h>>33
}

// errNoInodes is returned by listDigest where a directory listing does not
// carry inode numbers; docs_stamp is then never moved by a targeted update.
var errNoInodes = errors.New("directory listing without inode numbers")

// docsDigest lists documents/ for the stamp an update is about to store
// (part 1 above); "" when it cannot.
func (ix *Index) docsDigest() string {
	sum, count, _, err := listDigest(ix.store.Dir, nil)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d %d", sum, count)
}

// saveDigest records digest as the listing of documents/ at stamp, in the
// update's transaction; an empty digest removes the record.
func saveDigest(ctx context.Context, tx *sql.Tx, stamp, digest string) error {
	if digest == "" {
		_, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key='docs_digest'`)
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES('docs_digest',?1)
		ON CONFLICT(key) DO UPDATE SET value=?1 WHERE value<>?1`, stamp+" "+digest)
	return err
}

// probeDocs is part 2 above, before a targeted update writes the files
// named mine. It reports ok=false when the index is behind documents/ or
// has no digest for its stamp.
func (ix *Index) probeDocs(mine map[string]bool) (p dirProbe) {
	// The watch comes first: a change before it is seen by the stat
	// below, one after it by the watch.
	if w, err := watchDir(ix.store.Dir); err == nil {
		defer func() {
			if p.ok {
				p.watch = w
			} else {
				w.close()
			}
		}()
	}
	before := ix.docsStamp()
	var stamp, digest string
	if err := ix.db.QueryRow(`SELECT value FROM meta WHERE key='docs_stamp'`).Scan(&stamp); err != nil || stamp != before {
		return dirProbe{}
	}
	if err := ix.db.QueryRow(`SELECT value FROM meta WHERE key='docs_digest'`).Scan(&digest); err != nil {
		return dirProbe{}
	}
	p = dirProbe{ok: true, stamp: stamp}
	var at string
	if n, err := fmt.Sscan(digest, &at, &p.digest, &p.count); n != 3 || err != nil || at != stamp {
		return dirProbe{}
	}
	for name := range mine {
		if fi, err := os.Lstat(filepath.Join(ix.store.Dir, name)); err == nil {
			p.digest -= entryHash(name, inodeOf(fi))
			p.count--
		} else if !errors.Is(err, os.ErrNotExist) {
			return dirProbe{}
		}
	}
	if ix.docsStamp() != before {
		return dirProbe{}
	}
	return p
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

// confirmDocs is part 3 above, under the update lock once the targeted
// update indexed its documents: the stamp and digest it may store, or ""
// when it must leave docs_stamp alone. want holds the inode each of its
// documents had when indexed (0: absent).
func (ix *Index) confirmDocs(pre dirProbe, stored string, mine map[string]bool, want map[string]uint64) (stamp, digest string) {
	if !pre.ok || stored != pre.stamp {
		return "", ""
	}
	s1 := ix.settledStamp()
	if pre.watch != nil {
		return ix.confirmWatched(pre, s1, mine, want)
	}
	sum, count, inos, err := listDocs(ix.store.Dir, mine)
	if err != nil || sum != pre.digest || count != pre.count || ix.docsStamp() != s1 {
		return "", ""
	}
	for name, ino := range want {
		if inos[name] != ino {
			return "", ""
		}
	}
	for name, ino := range inos {
		sum += entryHash(name, ino)
		count++
	}
	return s1, fmt.Sprintf("%d %d", sum, count)
}

// listDocs is listDigest; tests replace it to see that a watched update
// does not list.
var listDocs = listDigest

// confirmWatched is part 3 with the probe's watch instead of a listing:
// the events since the probe may name only mine and their temporary files
// (fsutil.TempPattern, gone by now), and the
// documents must carry the inodes in want.
func (ix *Index) confirmWatched(pre dirProbe, s1 string, mine map[string]bool, want map[string]uint64) (stamp, digest string) {
	names, ok := pre.watch.changed()
	if !ok || ix.docsStamp() != s1 {
		return "", ""
	}
	for _, name := range names {
		if mine[name] {
			continue
		}
		if !ownTemp(name, mine) {
			return "", ""
		}
		if _, err := os.Lstat(filepath.Join(ix.store.Dir, name)); !errors.Is(err, os.ErrNotExist) {
			return "", ""
		}
	}
	sum, count := pre.digest, pre.count
	for name := range mine {
		var ino uint64
		fi, err := os.Lstat(filepath.Join(ix.store.Dir, name))
		switch {
		case err == nil:
			if ino = inodeOf(fi); ino == 0 {
				return "", ""
			}
			sum += entryHash(name, ino)
			count++
		case !errors.Is(err, os.ErrNotExist):
			return "", ""
		}
		if w, ok := want[name]; ok && w != ino {
			return "", ""
		}
	}
	return s1, fmt.Sprintf("%d %d", sum, count)
}

// ownTemp reports whether name is the temporary file of an atomic write of
// one of mine.
func ownTemp(name string, mine map[string]bool) bool {
	of, ok := fsutil.TempOf(name)
	return ok && mine[of]
}
