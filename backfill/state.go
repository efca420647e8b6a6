package backfill

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// StateFile is backfill's record of the sessions it queued or found
// nothing in, under the state directory.
const StateFile = "backfill.json"

// maxStateBytes bounds the read of backfill.json: about 200 bytes a
// session, so room for far more sessions than a machine keeps.
const maxStateBytes = 64 << 20

// State is backfill.json: each session file backfill handled, by path.
type State struct {
	path     string
	Version  int               `json:"version"`
	Sessions map[string]Record `json:"sessions"`
}

// Record is what backfill did with one session file, at which size and
// modification time: a file that changed since is looked at again.
type Record struct {
	Agent    string    `json:"agent"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	Cwd      string    `json:"cwd,omitempty"`
	// Outcome is "queued", "already queued", "already reflected" or
	// "nothing" (the condensation held nothing a writer could use).
	Outcome string    `json:"outcome"`
	At      time.Time `json:"at"`
}

// LoadState reads backfill.json from stateDir; a missing file is an empty
// state. A file that cannot be read or parsed is an error naming it, with
// an empty state, so a damaged record costs a re-check (the queue and
// the ledger still keep sessions from being queued twice), not the run.
func LoadState(stateDir string) (*State, error) {
	st := &State{path: filepath.Join(stateDir, StateFile), Version: 1, Sessions: map[string]Record{}}
	data, err := fsutil.ReadRegular(st.path, maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read %s: %w", st.path, err)
	}
	var disk State
	if err := json.Unmarshal(data, &disk); err != nil {
		return st, fmt.Errorf("read %s: %w (it is rewritten by the next backfill)", st.path, err)
	}
	for p, r := range disk.Sessions {
		st.Sessions[p] = r
	}
	return st, nil
}

// done reports whether the file at path was handled at this size and time.
func (st *State) done(path string, size int64, mod time.Time) (Record, bool) {
	r, ok := st.Sessions[path]
	return r, ok && r.Size == size && r.Modified.Equal(mod)
}

func (st *State) mark(s Session, outcome string, now time.Time) {
	st.Sessions[s.Path] = Record{Agent: s.Agent, Size: s.Size, Modified: s.Modified, Cwd: s.Cwd, Outcome: outcome, At: now.UTC()}
}

// Save writes backfill.json atomically (a crash leaves the old file or
// the new one, never half of one).
func (st *State) Save() error {
	data, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	if err := fsutil.EnsurePrivateDir(filepath.Dir(st.path)); err != nil {
		return err
	}
	return fsutil.WriteAtomic(st.path, append(data, '\n'), fsutil.FilePerm)
}
