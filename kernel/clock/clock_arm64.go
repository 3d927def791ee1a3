package clock

import "gometal/drivers/timer"

// Monotonic is CLOCK_MONOTONIC in nanoseconds: the virtual counter.
func Monotonic() int64 { return timer.Nanos() }
