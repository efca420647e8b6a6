package backfill

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// StateFile is backfill's record of the sessions it queued or found
// nothing in, under the state directory.
const StateFile = "backfill.json"

// maxStateBytes bounds the read of backfill.json: about 300 bytes a
// session (its record, or what the plan read of it), so room for far more
// sessions than a machine keeps.
const maxStateBytes = 64 << 20

// State is backfill.json: each session file backfill handled, by path.
type State struct {
	path     string
	Version  int               `json:"version"`
	Sessions map[string]Record `json:"sessions"`
	// Condenser names the reflect executable that made Read: another
	// build may condense differently, so its readings are dropped.
	Condenser string `json:"condenser,omitempty"`
	// Read is what the plan learnt of each session file it condensed, so
	// that the next plan (a run after a --dry-run) reads only the files
	// that changed.
	Read map[string]Reading `json:"read,omitempty"`
}

// Reading is what condensing one session file at a size and modification
// time told the plan.
type Reading struct {
	Size      int64     `json:"size"`
	Modified  time.Time `json:"modified"`
	SessionID string    `json:"session_id,omitempty"`
	Cwd       string    `json:"cwd,omitempty"`
	Condensed int       `json:"condensed_chars"`
	// Skip is the condensation's Skip: why a writer could use nothing.
	Skip string `json:"skip,omitempty"`
}

// condenserID identifies the running executable by its size and time, ""
// when they cannot be had (the plan then keeps no readings).
var condenserID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(fi.Size(), 10) + "-" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
})

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
	st := &State{path: filepath.Join(stateDir, StateFile), Version: 1, Sessions: map[string]Record{},
		Condenser: condenserID(), Read: map[string]Reading{}}
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
	if st.Condenser != "" && disk.Condenser == st.Condenser {
		for p, r := range disk.Read {
			st.Read[p] = r
		}
	}
	return st, nil
}

// reading returns what an earlier plan learnt of the file at path, when
// it was condensed at this size and time by this executable.
func (st *State) reading(path string, size int64, mod time.Time) (Reading, bool) {
	r, ok := st.Read[path]
	return r, ok && st.Condenser != "" && r.Size == size && r.Modified.Equal(mod)
}

// remember keeps a reading for the next plan. Not safe for concurrent
// use: the plan calls it once every session is examined.
func (st *State) remember(path string, r Reading) {
	if st.Condenser != "" {
		st.Read[path] = r
	}
}

// done reports whether the file at path was handled at this size and time.
func (st *State) done(path string, size int64, mod time.Time) (Record, bool) {
	r, ok := st.Sessions[path]
	return r, ok && r.Size == size && r.Modified.Equal(mod)
}

func (st *State) mark(s Session, outcome string, now time.Time) {
	// The record answers for the file now; its reading would only repeat it.
	delete(st.Read, s.Path)
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
