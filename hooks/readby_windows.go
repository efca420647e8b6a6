//go:build windows

package hooks

import (
	"bytes"
	"io"
	"os"
	"time"
)

// readFileBy reads f to EOF, or to limit bytes (limit < 0: discard
// everything), and gives up at deadline. Windows has no non-blocking pipe
// reads to poll, so the read runs on a goroutine that is abandoned at the
// deadline; the hook exits soon after, taking it along.
func readFileBy(f *os.File, deadline time.Time, limit int) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var buf bytes.Buffer
		var err error
		if limit < 0 {
			_, err = io.Copy(io.Discard, f)
		} else {
			_, err = io.Copy(&buf, io.LimitReader(f, int64(limit)))
		}
		done <- result{buf.Bytes(), err}
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case r := <-done:
		return r.data, r.err
	case <-timer.C:
		return nil, errReadDeadline
	}
}
