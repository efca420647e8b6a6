//go:build !unix

package vector

import "time"

// cpuTime is not measured where getrusage is missing.
func cpuTime() time.Duration { return 0 }
