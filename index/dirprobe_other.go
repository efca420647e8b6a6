//go:build !linux

package index

import (
	"os"
	"time"
)

// listDigest needs inode numbers from the listing, which only the Linux
// implementation reads: elsewhere a targeted update never moves
// docs_stamp, and the next Refresh scans.
func listDigest(dir string, mine map[string]bool) (uint64, int, map[string]uint64, error) {
	return 0, 0, nil, errNoInodes
}

// stampTick is a generous bound on the coarse clock's tick.
func stampTick() time.Duration { return 20 * time.Millisecond }

// inodeOf is unused where listDigest fails.
func inodeOf(fi os.FileInfo) uint64 { return 0 }
