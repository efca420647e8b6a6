//go:build unix

package testfs

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// WaitGone waits up to two seconds until pid no longer runs, and fails
// the test if it still does. A killed orphan may linger as a zombie where
// the container's init does not reap: that counts as gone.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d of the writer still runs after the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
