package knowledge

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// The status line runs on every refresh of an agent's status bar and opens
// no index: it reads how many drafts await review from
// $REFLECT_STATE_DIR/review-pending, a count that whatever changes or
// counts the inbox (the drain, 'reflect review', 'reflect status', the
// session-start hook, the web view) rewrites.

func pendingFile(stateDir string) string { return filepath.Join(stateDir, "review-pending") }

// RecordPending stores n as the number of drafts awaiting review.
func RecordPending(stateDir string, n int) error {
	if stateDir == "" {
		return nil
	}
	if err := fsutil.EnsureDir(stateDir); err != nil {
		return err
	}
	return fsutil.WriteAtomicNoSync(pendingFile(stateDir), []byte(strconv.Itoa(max(n, 0))+"\n"), fsutil.FilePerm)
}

// RecordedPending is the count RecordPending stored last; 0 when none was
// (or the file is not a small regular file holding a count).
func RecordedPending(stateDir string) int {
	data, err := fsutil.ReadRegular(pendingFile(stateDir), 32)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// CountPending counts the drafts awaiting review in the index and records
// the count for the status line; a failure to record is not the caller's
// (the count is still right).
func (k *Base) CountPending(ctx context.Context, stateDir string) (int, error) {
	n, err := k.ix.PendingCount(ctx)
	if err != nil {
		return 0, err
	}
	if RecordedPending(stateDir) != n {
		_ = RecordPending(stateDir, n)
	}
	return n, nil
}
