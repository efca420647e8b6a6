//go:build !linux

package main

import "github.com/rogpeppe/go-internal/testscript"

// canMountTmpfs is the [tmpfs] condition: false here, where there is no
// tmpfs to mount, so the scripts that fill a disk skip.
func canMountTmpfs() bool { return false }

// diskfull needs a tmpfs mount, which only Linux has: the scripts using it
// are guarded with [!tmpfs] skip.
func cmdDiskfull(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("diskfull: mounting a tmpfs needs Linux; guard the script with [!tmpfs] skip")
}
