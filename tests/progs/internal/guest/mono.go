//go:build linux

package guest

import (
	"time"

	"golang.org/x/sys/unix"
)

// Mono reads CLOCK_MONOTONIC. A program that may set the wall clock
// times itself with it rather than with time.Now: a time.Time keeps its
// monotonic reading only while the wall clock is between 1885 and 2157,
// and past that time.Since follows the wall clock wherever it is set.
func Mono() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}
