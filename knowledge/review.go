package knowledge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/store"
)

// The review inbox: what an LLM writer drafts lands with status: pending
// (store.StatusPending), which the hooks never inject, until the user
// approves it (the status goes) or rejects it (the document goes, and its
// fingerprint is remembered so that the drain does not write the same
// content again).

// ErrNotPending is returned by Approve and Reject for a learning that is
// not a draft awaiting review.
var ErrNotPending = errors.New("is not awaiting review")

// draftLockWait bounds how long a review waits for a drain's write of one
// draft, and a drain for a review's batch: each holds the lock for one
// document write and one targeted index update.
const draftLockWait = time.Minute

// LockDrafts serialises the read-modify-write of drafts between the
// drainer (which may update a pending draft with a near-duplicate) and a
// review (which approves or rejects it), so that neither writes over what
// the other wrote: index/drafts.lock, a flock the kernel releases when a
// process dies. Call the returned function to release it.
func (k *Base) LockDrafts(ctx context.Context) (unlock func(), err error) {
	unlock, err = fsutil.WaitLock(ctx, filepath.Join(filepath.Dir(k.ix.Path()), "drafts.lock"), draftLockWait, nil)
	switch {
	case err == nil:
		return unlock, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, fsutil.ErrLockTimeout):
		return nil, fmt.Errorf("index/drafts.lock held for over %s by a drain or another review; try again", draftLockWait)
	default:
		// A filesystem without flock: go ahead, as the index's own
		// update lock does.
		return func() {}, nil
	}
}

// Pending returns the drafts awaiting review, oldest first. A draft the
// index lists but that is gone or no longer pending on disk (approved by
// hand, deleted) is left out.
func (k *Base) Pending(ctx context.Context) ([]*store.Learning, error) {
	ids, err := k.ix.PendingIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*store.Learning, 0, len(ids))
	for _, id := range ids {
		l, err := k.st.Read(id)
		if err != nil || !l.Pending() {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// PendingSupersessors returns the ids of the drafts awaiting review that
// would supersede the learning id once approved (naming it, or a learning
// whose chain it is the newest of), oldest first, so that
// 'reflect show' and the web view can say why a learning may soon be
// held. It reads the drafts themselves: the inbox is small, and the index
// keeps no supersedes column.
func (k *Base) PendingSupersessors(ctx context.Context, id string) ([]string, error) {
	pending, err := k.Pending(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range pending {
		if l.Supersedes != "" && l.ID != id && k.wouldSupersede(l) == id {
			out = append(out, l.ID)
		}
	}
	return out, nil
}

// wouldSupersede is the id of the learning the draft l would supersede if
// approved now: the one it names, or the newest learning of that one's
// chain (resolveSupersedes); "" for none.
func (k *Base) wouldSupersede(l *store.Learning) string {
	approved := *l
	approved.Status = ""
	k.resolveSupersedes(&approved, nil)
	return approved.Supersedes
}

// SupersedesOf is the learning the draft l would supersede once approved,
// as review and the inbox show it (Missing when it is gone): the one it
// names, or the newest learning of that one's chain when it was
// superseded already (resolveSupersedes); nil when l supersedes none.
func (k *Base) SupersedesOf(l *store.Learning) *store.ChainLink {
	if l.Supersedes == "" {
		return nil
	}
	approved := *l
	if approved.Supersedes = k.wouldSupersede(l); approved.Supersedes == "" {
		return nil
	}
	sup, _ := k.st.Chain(&approved)
	if len(sup) == 0 {
		return nil
	}
	return &sup[0]
}

// readPending reads every id and checks that it is a draft awaiting
// review, before anything is written: one unknown id is an error that
// names it and changes nothing.
func (k *Base) readPending(ids []string) ([]*store.Learning, error) {
	out := make([]*store.Learning, 0, len(ids))
	for _, id := range ids {
		l, err := k.st.Read(id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return nil, fmt.Errorf("%s: %w (it may have been approved, rejected or forgotten already)", id, store.ErrNotFound)
		case err != nil:
			return nil, err
		case !l.Pending():
			return nil, fmt.Errorf("%s %w", id, ErrNotPending)
		}
		out = append(out, l)
	}
	return out, nil
}

// Approve makes the drafts ids active learnings: their status goes, so the
// hooks inject them from now on, and a learning one supersedes is marked
// superseded_by it now (not when it was drafted; the newest learning of
// that one's chain when it was superseded already since). Their updated
// time is kept (approval is not new content). A draft that proposes an
// update of another learning (its updates field) rewrites that learning
// instead and goes (applyProposal). All are checked before any is
// written, and the index is updated once for all the plain drafts.
func (k *Base) Approve(ctx context.Context, ids ...string) ([]*store.Learning, error) {
	done, err := k.ApproveDrafts(ctx, ids...)
	out := make([]*store.Learning, len(done))
	for i, a := range done {
		out[i] = a.Learning
	}
	return out, err
}

// Approved is what approving one draft did.
type Approved struct {
	// Learning is the draft as approved (its updates field names the
	// learning it rewrote, if any).
	Learning *store.Learning
	// Supersedes is the learning now superseded_by what the draft became
	// ("" none), and SupersedesNamed the one the draft named when that one
	// had been superseded already: Supersedes is then the newest learning
	// of its chain, which approving retired instead.
	Supersedes, SupersedesNamed string
}

// ApproveDrafts is Approve, saying for each draft which learning it
// superseded.
func (k *Base) ApproveDrafts(ctx context.Context, ids ...string) ([]Approved, error) {
	unlock, err := k.LockDrafts(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ls, err := k.readPending(ids)
	if err != nil {
		return nil, err
	}
	var plain, proposals []*store.Learning
	for _, l := range ls {
		if l.Updates != "" {
			proposals = append(proposals, l)
		} else {
			plain = append(plain, l)
		}
	}
	done, err := k.approvePlain(ctx, plain)
	if err != nil && !errors.Is(err, index.ErrBusy) {
		return done, err
	}
	now := time.Now()
	for _, l := range proposals {
		a, perr := k.applyProposal(ctx, l, now)
		if perr != nil && !errors.Is(perr, index.ErrBusy) {
			return done, errors.Join(err, perr)
		}
		err = errors.Join(err, perr)
		done = append(done, a)
	}
	return done, err
}

// withSuperseded is ids and the learnings ls supersede: what an index
// change that approves or rejects ls may write.
func withSuperseded(ls []*store.Learning) []string {
	ids := make([]string, 0, 2*len(ls))
	for _, l := range ls {
		ids = append(ids, l.ID)
	}
	for _, l := range ls {
		if l.Supersedes != "" && l.Supersedes != l.ID {
			ids = append(ids, l.Supersedes)
		}
	}
	return ids
}

// approvePlain takes the status off the drafts ls and links the learnings
// they supersede, in one index change. Which learning each supersedes is
// resolved before the change begins, so that it covers every file the
// links write; a draft resolved after another of ls that superseded the
// same chain continues that chain.
func (k *Base) approvePlain(ctx context.Context, ls []*store.Learning) ([]Approved, error) {
	if len(ls) == 0 {
		return nil, nil
	}
	done := make([]Approved, len(ls))
	links := map[string]string{}
	for i, l := range ls {
		done[i] = Approved{Learning: l, SupersedesNamed: k.resolveSupersedes(l, links)}
		if l.Supersedes != "" {
			links[l.Supersedes] = l.ID
		}
	}
	ids := withSuperseded(ls)
	ch := k.ix.BeginChange(ids...)
	defer ch.Close()
	for i, l := range ls {
		l.Status = ""
		if err := k.st.Write(l); err != nil {
			if i > 0 {
				err = errors.Join(err, ch.Commit(ctx, ids...))
			}
			return done[:i], err
		}
		linked, err := k.linkSuperseded(l)
		if err != nil {
			// l is approved on disk; the learning it supersedes is not
			// linked yet ('reflect edit' of l, saving it, links it).
			done[i].SupersedesNamed = ""
			return done[:i+1], errors.Join(err, ch.Commit(ctx, ids...))
		}
		if linked {
			done[i].Supersedes = l.Supersedes
		} else {
			done[i].SupersedesNamed = ""
		}
	}
	return done, ch.Commit(ctx, ids...)
}

// Reject deletes the drafts ids and remembers their fingerprints in rej
// first, so that the drain does not propose the same content again (a
// crash between the two leaves a draft whose content is already refused,
// not a refused draft forgotten). All are checked before any is removed.
// A learning a draft supersedes is left as it is; one that an older
// reflect marked superseded_by the draft while it waited is unmarked.
func (k *Base) Reject(ctx context.Context, rej *Rejections, ids ...string) ([]*store.Learning, error) {
	unlock, err := k.LockDrafts(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ls, err := k.readPending(ids)
	if err != nil {
		return nil, err
	}
	fps := make([]string, len(ls))
	for i, l := range ls {
		fps[i] = Fingerprint(l)
	}
	if err := rej.Add(fps...); err != nil {
		return nil, err
	}
	return ls, k.Forget(ctx, ids...)
}

// Fingerprint identifies a draft's content: the sha256 of its title and
// key insight, lower-cased, with punctuation and runs of space made one
// space, so that a writer's rewording of case or spacing is the same draft.
func Fingerprint(l *store.Learning) string {
	norm := func(s string) string {
		return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}), " ")
	}
	sum := sha256.Sum256([]byte(norm(l.Title) + "\n" + norm(l.KeyInsight)))
	return hex.EncodeToString(sum[:])
}

// MaxRejections bounds the fingerprints remembered: the oldest are
// forgotten first (a draft rejected that long ago may be proposed again).
const MaxRejections = 10000

// Rejections are the fingerprints of rejected drafts, one hex line each in
// $REFLECT_STATE_DIR/rejected-drafts.txt: machine-local, bounded, rewritten
// whole (atomically) under its own flock.
type Rejections struct{ path string }

// NewRejections returns the rejections kept in stateDir.
func NewRejections(stateDir string) *Rejections {
	return &Rejections{path: filepath.Join(stateDir, "rejected-drafts.txt")}
}

// Load returns the remembered fingerprints; none when the file is missing.
func (r *Rejections) Load() (map[string]bool, error) {
	lines, err := r.read()
	out := make(map[string]bool, len(lines))
	for _, l := range lines {
		out[l] = true
	}
	return out, err
}

func (r *Rejections) read() ([]string, error) {
	data, err := fsutil.ReadRegular(r.path, int64(MaxRejections+1)*(sha256.Size*2+1))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.path, err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); len(l) == sha256.Size*2 {
			out = append(out, l)
		}
	}
	return out, nil
}

// Add remembers fps, keeping the newest MaxRejections.
func (r *Rejections) Add(fps ...string) error {
	if len(fps) == 0 {
		return nil
	}
	if err := fsutil.EnsureDir(filepath.Dir(r.path)); err != nil {
		return err
	}
	fl := flock.New(r.path+".lock", flock.SetPermissions(fsutil.FilePerm))
	if err := fl.Lock(); err == nil {
		defer fl.Unlock()
	}
	lines, err := r.read()
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(lines))
	for _, l := range lines {
		have[l] = true
	}
	for _, fp := range fps {
		if !have[fp] {
			have[fp] = true
			lines = append(lines, fp)
		}
	}
	if len(lines) > MaxRejections {
		lines = lines[len(lines)-MaxRejections:]
	}
	return fsutil.WriteAtomic(r.path, []byte(strings.Join(lines, "\n")+"\n"), fsutil.FilePerm)
}
