package writer

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A writer killed at the drain's timeout is reported with that timeout, not
// with how long the process ran: the clock starts before the process does,
// by hundreds of milliseconds on a loaded machine ("killed after 900ms" for
// a 1s timeout read like a bug and broke a script test under load).
func TestKilledWriterNamesTheTimeout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(WithTimeout(context.Background(), 7*time.Second), 50*time.Millisecond)
	defer cancel()
	_, err := writerProc{path: "/bin/sleep", args: []string{"5"}}.run(ctx)
	if err == nil || !strings.Contains(err.Error(), "sleep killed after 7s: context deadline exceeded") {
		t.Fatalf("run = %v, want it to name the 7s timeout", err)
	}
}
