//go:build unix

package embed

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time. On a loaded machine wall
// time per op mostly measures the neighbours; CPU time per op is steadier
// and is reported next to it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
