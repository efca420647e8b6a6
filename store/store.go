package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/shortid"
)

// Store is a documents/ directory.
type Store struct {
	Dir string
}

// Open returns the store at dir. The directory is created on first write.
func Open(dir string) *Store { return &Store{Dir: dir} }

const (
	docExt     = ".md"
	sidecarExt = ".entities.yaml"
)

// Path is where the learning with this id lives.
func (s *Store) Path(id string) string { return filepath.Join(s.Dir, id+docExt) }

// SidecarPath is where the entity sidecar of this id lives.
func (s *Store) SidecarPath(id string) string { return filepath.Join(s.Dir, id+sidecarExt) }

// ReadFile reads (with ReadDocument: regular files only, no symbolic
// links, at most MaxDocumentSize bytes) and parses one learning file.
// Errors are *DocError values naming the path.
func ReadFile(path string) (*Learning, error) {
	data, err := ReadDocument(path)
	if err != nil {
		return nil, err
	}
	return ParseFile(path, data)
}

// ParseFile parses data read from path (for callers that already hold the
// bytes, such as the indexer, which hashes them too): like ReadFile, the
// id must match the file name and errors are *DocError values naming path.
func ParseFile(path string, data []byte) (*Learning, error) {
	l, err := Parse(data)
	if err != nil {
		var de *DocError
		if errors.As(err, &de) {
			de.Path = path
		}
		return nil, err
	}
	if want := strings.TrimSuffix(filepath.Base(path), docExt); l.ID != want {
		return nil, docError(path, fmt.Sprintf("id %q does not match the file name; rename the file to %s%s or set id: %s", l.ID, l.ID, docExt, want))
	}
	l.Path = path
	return l, nil
}

// Read returns the learning with this id, or ErrNotFound.
func (s *Store) Read(id string) (*Learning, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	l, err := ReadFile(s.Path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	return l, err
}

// Write redacts secrets from l (see Learning.Redact: no writer can put a
// secret on disk, in a file name or in an id), validates it, fills Type
// and Updated when empty, ends a non-empty body with a newline (Marshal
// writes the body as it is), and writes it atomically to
// documents/<id>.md. Callers that want to report what was redacted call
// l.Redact first; a second pass finds nothing.
func (s *Store) Write(l *Learning) error {
	data, err := l.encode()
	if err != nil {
		return err
	}
	path := s.Path(l.ID)
	if err := fsutil.WriteAtomic(path, data, 0o644); err != nil {
		return err
	}
	l.Path = path
	return nil
}

// encode is Write's preparation of l: redacted, defaults filled,
// validated, marshalled.
func (l *Learning) encode() ([]byte, error) {
	l.Redact()
	if l.Type == "" {
		l.Type = "learning"
	}
	if l.Body != "" && !strings.HasSuffix(l.Body, "\n") {
		l.Body += "\n"
	}
	if l.Updated.IsZero() {
		l.Updated = l.Created
	}
	l.Created = l.Created.UTC().Truncate(time.Second)
	l.Updated = l.Updated.UTC().Truncate(time.Second)
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return l.Marshal()
}

// ReadSidecar returns the sidecar of id; fs.ErrNotExist when there is none.
func (s *Store) ReadSidecar(id string) (*Sidecar, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("sidecar of %q: %w", id, fs.ErrNotExist)
	}
	path := s.SidecarPath(id)
	data, err := ReadDocument(path)
	if err != nil {
		return nil, err
	}
	sc, err := ParseSidecar(data)
	if err != nil {
		var de *DocError
		if errors.As(err, &de) {
			de.Path = path
		}
		return nil, err
	}
	return sc, nil
}

// WriteSidecar redacts secrets from sc, validates it and writes it atomically.
func (s *Store) WriteSidecar(sc *Sidecar) error {
	data, err := sc.encode()
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(s.SidecarPath(sc.DocumentID), data, 0o644)
}

func (sc *Sidecar) encode() ([]byte, error) {
	sc.Redact()
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return sc.Marshal()
}

// Delete removes a learning and its sidecar. Deleting an id that does not
// exist returns ErrNotFound.
func (s *Store) Delete(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	if err := os.Remove(s.Path(id)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", id, ErrNotFound)
		}
		return fmt.Errorf("forget %s: %w", id, err)
	}
	if err := os.Remove(s.SidecarPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget %s: remove sidecar: %w", id, err)
	}
	return nil
}

// FileInfo is what a directory scan knows about a document without reading it.
type FileInfo struct {
	ID      string
	Path    string
	Size    int64
	ModTime time.Time
}

// Scan lists the documents under the store's directory, sorted by id,
// without parsing them. A missing directory is an empty store.
func (s *Store) Scan() ([]FileInfo, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.Dir, err)
	}
	out := make([]FileInfo, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, docExt) || strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed while listing
		}
		out = append(out, FileInfo{
			ID:      strings.TrimSuffix(name, docExt),
			Path:    filepath.Join(s.Dir, name),
			Size:    info.Size(),
			ModTime: info.ModTime(),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// IDs lists the ids of the documents on disk, sorted. Unlike Scan it
// reads names only (no stat per file): list and search call it to print
// short ids, a full reindex to plan, and a stat of every document would
// cost them more than the listing itself. It reads the directory a batch
// at a time, so it holds the ids and not a directory entry per document
// as well (over 100 bytes each, a hundred megabytes at 1,000,000).
func (s *Store) IDs() ([]string, error) {
	d, err := os.Open(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.Dir, err)
	}
	defer d.Close()
	var ids []string
	for {
		entries, err := d.ReadDir(1024)
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, docExt) || strings.HasPrefix(name, ".") || e.IsDir() {
				continue
			}
			ids = append(ids, strings.TrimSuffix(name, docExt))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", s.Dir, err)
		}
	}
	sort.Strings(ids) // by name is not by id: "a-b.md" < "a.md"
	return ids, nil
}

// IDKind is the prefix every derived learning id starts with; references
// may leave it out.
const IDKind = "lrn-"

// Resolve returns the id of the one document ref names: its full id, a
// unique prefix of it (with or without "lrn-"), or its 6-hex tail. No match
// wraps ErrNotFound; several matches are a *shortid.AmbiguousError listing
// them. Malformed documents resolve too, so they can be forgotten.
func (s *Store) Resolve(ref string) (string, error) {
	// A full id that names a document is itself (shortid.Resolve puts an
	// exact match first too), found without listing the directory: forget
	// by id at 100,000 learnings need not read and sort 100,000 names.
	if ValidID(ref) {
		if fi, err := os.Lstat(s.Path(ref)); err == nil && fi.Mode().IsRegular() {
			return ref, nil
		}
	}
	ids, err := s.IDs()
	if err != nil {
		return "", err
	}
	id, err := shortid.Resolve(ref, ids, IDKind)
	if errors.Is(err, shortid.ErrNotFound) {
		return "", fmt.Errorf("%s: %w", ref, ErrNotFound)
	}
	return id, err
}

// NeedsReview reports whether the learning at path is marked
// needs_review: true (a sync merge kept two bodies for a person to
// settle). The bytes are looked at before anything is parsed, so checking
// the learnings a listing shows costs a read each.
func NeedsReview(path string) bool {
	data, err := ReadDocument(path)
	if err != nil || !bytes.Contains(data, []byte("needs_review:")) {
		return false
	}
	l, err := Parse(data)
	return err == nil && l.NeedsReview
}

// NeedingReview lists the ids of the learnings marked needs_review.
func (s *Store) NeedingReview() ([]string, error) {
	files, err := s.Scan()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, f := range files {
		if NeedsReview(f.Path) {
			ids = append(ids, f.ID)
		}
	}
	return ids, nil
}
