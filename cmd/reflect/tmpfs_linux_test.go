package main

import (
	"os"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// canMountTmpfs is the [tmpfs] condition: whether this process may mount
// a tmpfs (root with CAP_SYS_ADMIN), which diskfull needs.
func canMountTmpfs() bool {
	dir, err := os.MkdirTemp("", "tmpfs-probe-")
	if err != nil {
		return false
	}
	defer os.Remove(dir)
	if syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k") != nil {
		return false
	}
	return syscall.Unmount(dir, 0) == nil
}

// diskfull DIR SIZE mounts a tmpfs of SIZE bytes (e.g. 2M) at DIR, creating
// it, for scripts that fill a disk (guard them with [!tmpfs] skip). It is
// unmounted when the script ends.
func cmdDiskfull(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: diskfull DIR SIZE")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o700))
	ts.Check(syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+args[1]+",mode=0700"))
	ts.Defer(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
}
