package store

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// Batch writes many documents and sidecars at once, as safely as Write
// does one by one but with one flush for all of them: each file is
// staged beside its place, and Commit syncs them together, renames each
// into place and syncs documents/ once. Until Commit nothing is visible;
// after a crash each document is its old content or its whole new one.
type Batch struct {
	s     *Store
	files fsutil.Stager
	paths []string
	ids   []string    // the learning each staged file is of
	ls    []*Learning // the learning of each staged document, nil for a sidecar
}

// Batch starts a batch of writes to s.
func (s *Store) Batch() *Batch { return &Batch{s: s} }

// Write stages l as Store.Write would write it (redacted, defaults
// filled, validated); l.Path is set when Commit puts it in place. It
// returns the bytes staged, for the index to recognise the file by.
func (b *Batch) Write(l *Learning) ([]byte, error) {
	data, err := l.encode()
	if err != nil {
		return nil, err
	}
	return data, b.stage(b.s.Path(l.ID), data, l.ID, l)
}

// WriteSidecar stages sc as Store.WriteSidecar would write it, and
// returns the bytes staged.
func (b *Batch) WriteSidecar(sc *Sidecar) ([]byte, error) {
	data, err := sc.encode()
	if err != nil {
		return nil, err
	}
	return data, b.stage(b.s.SidecarPath(sc.DocumentID), data, sc.DocumentID, nil)
}

// Encoded is what WriteAll staged for one learning: the bytes of its
// document and of its sidecar, and that sidecar (nil: none written).
type Encoded struct {
	Data, SidecarData []byte
	Sidecar           *Sidecar
}

// WriteAll stages each of ls, and the sidecar sidecarOf gives for it (none
// where it gives nil), as Write and WriteSidecar would, in the order of
// ls. Encoding (and sidecarOf, called once the learning is encoded:
// redacted, defaults filled) runs on every CPU while the files are
// created in order, each learning on one goroutine of its own, so prep,
// called there first, must touch nothing but its learning. It stops at
// the first learning that fails, with what it staged before: out[i] is
// learning i's.
func (b *Batch) WriteAll(ls []*Learning, prep func(*Learning), sidecarOf func(*Learning) *Sidecar) ([]Encoded, error) {
	type result struct {
		enc  Encoded
		err  error
		done chan struct{}
	}
	res := make([]result, len(ls))
	for i := range res {
		res[i].done = make(chan struct{})
	}
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop.Store(true)
	for range min(runtime.GOMAXPROCS(0), len(ls)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(ls) && !stop.Load(); i = int(next.Add(1) - 1) {
				r, l := &res[i], ls[i]
				prep(l)
				if r.enc.Data, r.err = l.encode(); r.err == nil {
					if r.enc.Sidecar = sidecarOf(l); r.enc.Sidecar != nil {
						r.enc.SidecarData, r.err = r.enc.Sidecar.encode()
					}
				}
				close(r.done)
			}
		}()
	}
	out := make([]Encoded, 0, len(ls))
	for i, l := range ls {
		r := &res[i]
		<-r.done
		if r.err != nil {
			return out, r.err
		}
		if err := b.stage(b.s.Path(l.ID), r.enc.Data, l.ID, l); err != nil {
			return out, err
		}
		if r.enc.Sidecar != nil {
			if err := b.stage(b.s.SidecarPath(l.ID), r.enc.SidecarData, l.ID, nil); err != nil {
				return out, err
			}
		}
		out = append(out, r.enc)
	}
	return out, nil
}

func (b *Batch) stage(path string, data []byte, id string, l *Learning) error {
	if err := b.files.Stage(path, data, 0o644); err != nil {
		return err
	}
	b.paths = append(b.paths, path)
	b.ids = append(b.ids, id)
	b.ls = append(b.ls, l)
	return nil
}

// Commit puts the staged files in place, in the order they were staged,
// and makes them durable. It returns the ids whose document or sidecar
// it put in place, in order: all of them, or on an error those before
// the file that failed (the rest are discarded).
func (b *Batch) Commit() ([]string, error) {
	n, err := b.files.Publish()
	var ids []string
	seen := map[string]bool{}
	for i := range n {
		if l := b.ls[i]; l != nil {
			l.Path = b.paths[i]
		}
		if !seen[b.ids[i]] {
			seen[b.ids[i]] = true
			ids = append(ids, b.ids[i])
		}
	}
	b.paths, b.ids, b.ls = nil, nil, nil
	return ids, err
}

// Discard drops what is staged and not committed.
func (b *Batch) Discard() {
	b.files.Discard()
	b.paths, b.ids, b.ls = nil, nil, nil
}
