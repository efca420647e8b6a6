package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/reflectkb/reflect/index"
)

// A change that reached the disk but not the index (another process's
// update outlasted the wait) is reported on stderr and is not a failure;
// any other error stays an error and prints nothing.
func TestNotIndexedYet(t *testing.T) {
	var stderr bytes.Buffer
	f := &Factory{IO: &Streams{Err: &stderr}}
	busy := fmt.Errorf("%w (index/update.lock held for over 1m0s)", index.ErrBusy)
	if err := f.notIndexedYet(busy, "saved /kb/documents/lrn-x.md, not indexed yet"); err != nil {
		t.Fatalf("notIndexedYet(ErrBusy) = %v, want nil", err)
	}
	want := "reflect: saved /kb/documents/lrn-x.md, not indexed yet: another process is updating the index " +
		"(index/update.lock held for over 1m0s); the next search or 'reflect reindex' catches up\n"
	if got := stderr.String(); got != want {
		t.Errorf("stderr = %q\nwant     %q", got, want)
	}

	stderr.Reset()
	other := errors.New("disk full")
	if err := f.notIndexedYet(other, "saved x"); err != other {
		t.Errorf("notIndexedYet(other) = %v, want it back", err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr for another error: %q", stderr.String())
	}
}
