// Package clock owns the kernel's clocks as Linux names them: the
// monotonic clock is the generic timer's virtual counter since reset, the
// real-time clock adds the wall time the RTC gave at boot; and the civil
// date arithmetic an RTC that keeps fields needs (civil.go). Builds on
// the host (with the host's monotonic clock) for the tests of the layers
// above.
package clock

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// WallAtBoot is the Unix time, in nanoseconds, at which the monotonic
// clock read zero. The kernel's start sets it from the RTC (a PL031, or a
// DS1307 on a Pi's I2C bus); without one it stays 0 and the real-time
// clock starts at 1970, as Linux's does on a board without one. Setting the clock (Set, Step) moves it;
// read it with Wall, since calls made without the kernel lock read it
// too (a sleep until a wall-clock time).
var WallAtBoot int64

// tai is CLOCK_TAI's lead on CLOCK_REALTIME in seconds: 0 at boot, as
// Linux's, until adjtimex sets it (ADJ_TAI).
var tai int32

// Wall is WallAtBoot, read whole.
func Wall() int64 { return atomic.LoadInt64(&WallAtBoot) }

// TAI is CLOCK_TAI's lead on CLOCK_REALTIME in seconds.
func TAI() int32 { return atomic.LoadInt32(&tai) }

// SetTAI sets it (adjtimex ADJ_TAI).
func SetTAI(s int32) { atomic.StoreInt32(&tai, s) }

// Realtime is CLOCK_REALTIME in nanoseconds.
func Realtime() int64 { return Wall() + Monotonic() }

// SettodSecMax is Linux's TIME_SETTOD_SEC_MAX (include/linux/time64.h):
// the wall clock may be set to any second before it, KTIME_SEC_MAX less
// 30 years of uptime (so that the clock cannot overflow ktime_t during
// a run).
const SettodSecMax = (1<<63-1)/1_000_000_000 - 30*365*86400

// Set makes CLOCK_REALTIME read sec, nsec when the monotonic clock reads
// mono, as Linux's do_settimeofday64. It refuses (false: EINVAL) what
// timespec64_valid_settod refuses (a negative second, nanoseconds out of
// [0, 1e9), a second past SettodSecMax) and a time before the boot: the
// wall clock may not fall below the monotonic clock (wall_to_monotonic
// must stay at or below 0).
func Set(sec, nsec, mono int64) bool {
	if sec < 0 || nsec < 0 || nsec >= 1e9 || sec >= SettodSecMax {
		return false
	}
	ns := sec*1e9 + nsec
	if ns < mono {
		return false
	}
	atomic.StoreInt64(&WallAtBoot, ns-mono)
	return true
}

// Step moves CLOCK_REALTIME by sec seconds and nsec nanoseconds
// (adjtimex's ADJ_SETOFFSET; Linux's timekeeping_inject_offset), at
// monotonic time mono: false (EINVAL) for nsec out of [0, 1e9) or a
// result Set refuses.
func Step(sec, nsec, mono int64) bool {
	if nsec < 0 || nsec >= 1e9 || sec > SettodSecMax || sec < -SettodSecMax {
		return false // (beyond SettodSecMax either way, the result is too)
	}
	now := Wall() + mono
	s, n := now/1e9+sec, now%1e9+nsec
	if n >= 1e9 {
		s, n = s+1, n-1e9
	}
	return Set(s, n, mono)
}

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
	case unix.CLOCK_REALTIME, unix.CLOCK_REALTIME_COARSE:
		return Wall() + mono, true
	case unix.CLOCK_TAI:
		return Wall() + int64(TAI())*1e9 + mono, true
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
