package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// sessionDir holds one dedupe file per session: {"<learning id>": "<RFC3339 ts>"}.
const sessionDir = "session-injected"

// lockWait bounds how long a recall waits for another hook of the same
// machine to finish its read-choose-write of a dedupe file. Hooks hold the
// lock for microseconds (the search runs before it is taken); past this
// something is stuck, and the recall injects nothing rather than miss the
// hook's deadline or risk a repeat.
const lockWait = 250 * time.Millisecond

// sessionPath is the dedupe file of session sid. Session ids come from hook
// payloads and are untrusted: SafeName keeps the file inside sessionDir.
func sessionPath(stateDir, sid string) string {
	return filepath.Join(stateDir, sessionDir, fsutil.SafeName(sid)+".json")
}

// lockSessions takes the lock that serialises dedupe updates. One lock for
// all sessions, not one per session: a per-session lock file could not be
// removed safely when its session ends, and hooks hold it for milliseconds.
// It returns the unlock function, and false when the lock could not be had
// in lockWait.
func lockSessions(ctx context.Context, stateDir string) (func(), bool) {
	dir := filepath.Join(stateDir, sessionDir)
	if err := fsutil.EnsureStateSubdir(dir); err != nil {
		return func() {}, false
	}
	unlock, err := fsutil.WaitLock(ctx, filepath.Join(dir, ".lock"), lockWait, nil)
	if err != nil {
		return func() {}, false
	}
	return unlock, true
}

// loadInjected reads a session's dedupe set. A missing file is an empty
// set; so is a damaged one, which the next save replaces: losing dedupe
// state repeats a learning at worst, and a hook must not fail over it.
func loadInjected(path string) map[string]string {
	m := map[string]string{}
	data, err := os.ReadFile(path)
	if err != nil {
		return m
	}
	if json.Unmarshal(data, &m) != nil || m == nil {
		return map[string]string{}
	}
	return m
}

func saveInjected(path string, m map[string]string) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := fsutil.WriteAtomicNoSync(path, data, fsutil.FilePerm); err != nil {
		return fmt.Errorf("save session dedupe: %w", err)
	}
	return nil
}

// ClearSession forgets what was injected in session sid, so the next
// recall may inject any learning again. Hooks call it when the agent's
// context was summarised or cleared. A session with no state is not an error.
func ClearSession(stateDir, sid string) error {
	if stateDir == "" || sid == "" {
		return nil
	}
	unlock, _ := lockSessions(context.Background(), stateDir)
	defer unlock()
	return removeSession(sessionPath(stateDir, sid))
}

func removeSession(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear session dedupe: %w", err)
	}
	return nil
}

// InjectedCount is how many learnings were injected in session sid so far,
// for the status line. It reads one small file and takes no lock: the file
// is replaced atomically, so a reader sees a whole old or new version.
// Any problem reads as 0.
func InjectedCount(stateDir, sid string) int {
	if stateDir == "" || sid == "" {
		return 0
	}
	return len(loadInjected(sessionPath(stateDir, sid)))
}

// maxCountedSessions bounds what SessionsInjected reads.
const maxCountedSessions = 10000

// SessionsInjected counts, per learning, the sessions it was injected in,
// from the sessions' dedupe sets still on disk (a set cleared by a
// compaction starts again): how often recall found a learning worth
// giving an agent, for `reflect promote --suggest`. Unreadable files are
// passed over.
func SessionsInjected(stateDir string) map[string]int {
	counts := map[string]int{}
	entries, err := os.ReadDir(filepath.Join(stateDir, sessionDir))
	if err != nil {
		return counts
	}
	for i, e := range entries {
		if i >= maxCountedSessions {
			break
		}
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		for id := range loadInjected(filepath.Join(stateDir, sessionDir, e.Name())) {
			counts[id]++
		}
	}
	return counts
}
