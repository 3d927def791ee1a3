package clock

import "github.com/gometal/gometal/drivers/timer"

// Monotonic is CLOCK_MONOTONIC in nanoseconds: the virtual counter.
func Monotonic() int64 { return timer.Nanos() }
