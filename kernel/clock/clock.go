// Package clock owns the kernel's clocks as Linux names them: the
// monotonic clock is the generic timer's virtual counter since reset, the
// real-time clock adds the wall time the RTC gave at boot. Builds on the
// host (with the host's monotonic clock) for the tests of the layers
// above.
package clock

import "golang.org/x/sys/unix"

// WallAtBoot is the Unix time, in nanoseconds, at which the monotonic
// clock read zero. The kernel's start sets it from the PL031 RTC; without
// an RTC it stays 0 and the real-time clock starts at 1970, as Linux's
// does on a board without one.
var WallAtBoot int64

// Realtime is CLOCK_REALTIME in nanoseconds.
func Realtime() int64 { return WallAtBoot + Monotonic() }

// Now reads clock id (clock_gettime(2)'s clockid), or reports false for
// a clock gometal does not have. The CPU-time clocks read the monotonic
// clock: a thread's own CPU time is not accounted.
func Now(id uint64) (int64, bool) { return At(id, Monotonic()) }

// At is what Now(id) returned when the monotonic clock read mono: a
// system call reckons a deadline from the time it was entered, read
// before it took a lock, not from a read made holding one.
func At(id uint64, mono int64) (int64, bool) {
	switch id {
	case unix.CLOCK_MONOTONIC, unix.CLOCK_MONOTONIC_RAW, unix.CLOCK_MONOTONIC_COARSE,
		unix.CLOCK_BOOTTIME, unix.CLOCK_PROCESS_CPUTIME_ID, unix.CLOCK_THREAD_CPUTIME_ID:
		return mono, true
	case unix.CLOCK_REALTIME, unix.CLOCK_REALTIME_COARSE, unix.CLOCK_TAI:
		return WallAtBoot + mono, true
	}
	return 0, false
}

// Sleepable reports whether clock_nanosleep(2) may sleep on clock id,
// one At knows. Linux's clocks that have no nsleep (the raw and coarse
// clocks, a thread's CPU time) answer EOPNOTSUPP (kernel/time/
// posix-timers.c, after the check for an unknown clock).
func Sleepable(id uint64) bool {
	switch id {
	case unix.CLOCK_MONOTONIC_RAW, unix.CLOCK_MONOTONIC_COARSE, unix.CLOCK_REALTIME_COARSE,
		unix.CLOCK_THREAD_CPUTIME_ID:
		return false
	}
	return true
}
