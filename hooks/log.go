package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/redact"
)

// maxLogSize is when hooks.log is rotated to hooks.log.1 (one old file is
// kept): diagnostics must not grow without bound on a machine that runs
// hooks all day.
const maxLogSize = 1 << 20

// logf appends one redacted line to $STATE/logs/hooks.log. Failures to log
// are ignored: a hook never fails because its diagnostics could not be
// written.
func logf(stateDir string, now time.Time, format string, args ...any) {
	dir := filepath.Join(stateDir, "logs")
	if fsutil.EnsureStateSubdir(dir) != nil {
		return
	}
	path := filepath.Join(dir, "hooks.log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogSize {
		_ = os.Rename(path, path+".1")
	}
	line := redact.String(fmt.Sprintf(format, args...))
	_ = fsutil.AppendLine(path, []byte(now.UTC().Format(time.RFC3339)+" "+line+"\n"))
}
