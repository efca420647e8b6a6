//go:build !unix

package embed

import "time"

// cpuTime is not measured where getrusage is missing.
func cpuTime() time.Duration { return 0 }
