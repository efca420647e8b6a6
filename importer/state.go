package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// StateFile, in the state directory, records each imported source's hash,
// so a later import can say which sources changed since.
const StateFile = "imports.json"

// maxState bounds the state file as read.
const maxState = 8 << 20

// Seen is what the last import of one source found.
type Seen struct {
	SHA256   string    `json:"sha256"`
	Imported time.Time `json:"imported"`
	Rules    int       `json:"rules"`
}

// State maps a source's absolute path to its last import.
type State map[string]Seen

// LoadState reads the state; a missing file is an empty state, and an
// unreadable or corrupt one is an empty state with the error (an import
// then only fails to say what changed).
func LoadState(stateDir string) (State, error) {
	st := State{}
	data, err := fsutil.ReadRegular(filepath.Join(stateDir, StateFile), maxState)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil || st == nil {
		return State{}, fmt.Errorf("%s: not valid JSON; starting afresh", StateFile)
	}
	return st, nil
}

// Save writes the state atomically.
func (st State) Save(stateDir string) error {
	if err := fsutil.EnsurePrivateDir(stateDir); err != nil {
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(filepath.Join(stateDir, StateFile), data, fsutil.FilePerm)
}

// Changed says whether r differs from the last import of its file: false
// for a file never imported (it is new, not changed).
func (st State) Changed(r Read) bool {
	s, ok := st[r.File.Path]
	return ok && s.SHA256 != r.SHA256
}
