//go:build !arm64

package clock

import "time"

// Host tests: the host's monotonic clock since the test binary started.
var hostStart = time.Now()

// Monotonic is CLOCK_MONOTONIC in nanoseconds.
func Monotonic() int64 { return int64(time.Since(hostStart)) }
