package testfs

import (
	"os"
	"syscall"
)

// WriteExecutable writes a script or program a test then runs, mode 0755.
// It holds syscall.ForkLock for reading while the file is open for
// writing, as the syscall package asks of code that creates descriptors,
// so that no fork happens in that window: a process another goroutine
// forks then inherits the open descriptor until it execs, and running the
// file meanwhile fails with "text file busy" (ETXTBSY,
// golang.org/issue/22315), a flake of parallel tests.
func WriteExecutable(path string, data []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, data, 0o755)
}
