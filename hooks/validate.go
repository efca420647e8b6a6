package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/redact"
)

// The payload comes from the agent, but whatever can write a hook's stdin
// (a hostile transcript replayed, a test harness, a misconfigured agent)
// chooses its fields: the session id ends up in file names, the queue and
// last-event.json, and the transcript path is read and hashed. Both are
// checked here before any handler uses them.

// maxSessionID is longer than any agent's id (UUIDs, OpenCode's
// ses_ + 26 characters).
const maxSessionID = 128

// cleanSessionID returns id if it looks like a session id: at most
// maxSessionID bytes of letters, digits and - _ . :, and nothing the
// redactor takes for a secret. Anything else is replaced by "sid-" and 16
// hex digits of its SHA-256, so one agent session still maps to one id
// while the value itself (a token pasted into the wrong field) never
// reaches disk.
func cleanSessionID(id string) string {
	if id == "" || plausibleSessionID(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sid-" + hex.EncodeToString(sum[:8])
}

func plausibleSessionID(id string) bool {
	if len(id) > maxSessionID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return !redact.Contains(id)
}

// errNotTranscript is a transcript_path that names no file an agent would
// have written for this user.
var errNotTranscript = errors.New("not an agent transcript")

// checkTranscript refuses, without reading it, a transcript_path that is
// not a transcript this user's agent wrote: it must be absolute, end in
// .jsonl or .json (every agent's format), be a regular file itself (not a
// symlink, FIFO or device) and belong to the user running the hook
// (/etc/shadow, another user's files and system files do not), outside
// the system's own directories (which root owns too). A path
// that does not exist yet passes: the queue reports it missing, and
// Copilot's may appear a moment later.
func checkTranscript(path string) error {
	if path == "" {
		return nil
	}
	ext := strings.ToLower(filepath.Ext(path))
	if !filepath.IsAbs(path) || ext != ".jsonl" && ext != ".json" {
		return fmt.Errorf("transcript_path %q refused: %w (an absolute .jsonl or .json file)", path, errNotTranscript)
	}
	for _, sys := range systemDirs {
		if strings.HasPrefix(path, sys) {
			return fmt.Errorf("transcript_path %q refused: %w (a system directory)", path, errNotTranscript)
		}
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("transcript_path %q: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("transcript_path %q refused: %w (%s, not a regular file)", path, errNotTranscript, fsutil.Kind(fi.Mode()))
	}
	if uid, foreign := foreignOwner(fi); foreign {
		return fmt.Errorf("transcript_path %q refused: %w (owned by uid %d, not this user)", path, errNotTranscript, uid)
	}
	return nil
}

// systemDirs hold no agent's transcripts; a hook run as root would own
// every file in them.
var systemDirs = []string{"/etc/", "/proc/", "/sys/", "/dev/", "/boot/", "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/var/lib/", "/run/"}
