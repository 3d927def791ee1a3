//go:build linux && arm64

package main

// The calls that change clocks: clock_settime, settimeofday, adjtimex,
// clock_adjtime, with every clock ID (good, unknown, a process's or a
// thread's CPU clock, a descriptor's), and good, bad and garbage
// timespecs, timevals, timezones and timexes. The wall clock may end up
// anywhere: nothing in the fuzz reads it. Its timers and sleeps are the
// runtime's, on CLOCK_MONOTONIC, and it times itself with guest.Mono,
// not time.Since, which follows the wall clock once that is past 2157
// (a time.Time then keeps no monotonic reading).

import (
	"math/rand/v2"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// clockID is a clock_* call's clockid_t: the fixed clocks, unknown
// numbers, and the encoded ones (include/linux/posix-timers.h): a
// process's or thread's CPU clock (CPUCLOCK_PROF, _VIRT, _SCHED) and a
// descriptor's dynamic clock (CLOCKFD).
func clockID(r *rand.Rand) uintptr {
	switch r.IntN(6) {
	case 0:
		pid := []int{0, os.Getpid(), int(max(kid(r), 0)), 1 << 22}[r.IntN(4)]
		return uintptr(int32(^pid<<3 | r.IntN(3)))
	case 1:
		tid := []int{0, unix.Gettid(), 1 << 22}[r.IntN(3)]
		return uintptr(int32(^tid<<3 | 4 | r.IntN(3)))
	case 2:
		return uintptr(int32(^int(scratchFD[r.IntN(len(scratchFD))])<<3 | 3))
	case 3:
		return uintptr(r.Uint32())
	}
	return uintptr(r.IntN(24) - 8)
}

// seconds and nanos: valid, at the edges, and out of range.
func seconds(r *rand.Rand) int64 {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return -1 - r.Int64N(1<<40)
	case 2:
		return 1<<62 + r.Int64N(1<<40)
	case 3:
		return int64(r.Uint64())
	}
	return r.Int64N(1 << 34) // to the year 2514
}

func nanos(r *rand.Rand, unit int64) int64 {
	switch r.IntN(6) {
	case 0:
		return unit
	case 1:
		return -1
	case 2:
		return int64(r.Uint64())
	}
	return r.Int64N(unit)
}

// timexModes: ADJ_* bits (include/uapi/linux/timex.h), several at once,
// the single-shot forms, or anything.
func timexModes(r *rand.Rand) uint32 {
	switch r.IntN(5) {
	case 0:
		return 0 // read only
	case 1:
		return []uint32{0x8001, 0xa001}[r.IntN(2)] // ADJ_OFFSET_SINGLESHOT, ADJ_OFFSET_SS_READ
	case 2:
		return r.Uint32()
	}
	bits := []uint32{0x0001, 0x0002, 0x0004, 0x0008, 0x0010, 0x0020, 0x0080, 0x0100, 0x1000, 0x2000, 0x4000}
	var m uint32
	for _, b := range bits {
		if r.IntN(3) == 0 {
			m |= b
		}
	}
	return m
}

// fillTimex writes a timex with random modes and values, often within
// what the modes allow.
func fillTimex(r *rand.Rand, t *unix.Timex) {
	pick := func(lo, hi int64) int64 {
		if r.IntN(4) == 0 {
			return int64(r.Uint64())
		}
		return lo + r.Int64N(hi-lo+1)
	}
	*t = unix.Timex{
		Modes:    timexModes(r),
		Offset:   pick(-500_000_000, 500_000_000),
		Freq:     pick(-32_768_000, 32_768_000), // ±500 ppm in 2^-16 ppm
		Maxerror: pick(0, 16_000_000),
		Esterror: pick(0, 16_000_000),
		Status:   int32(pick(0, 0xffff)),
		Constant: pick(-1, 12),
		Tick:     pick(8_000, 12_000),
		Tai:      int32(pick(-1, 100)),
	}
	t.Time.Sec = seconds(r) % (1 << 20)
	t.Time.Usec = nanos(r, 1_000_000_000)
}

// clockCall is one clock-changing call, its arguments in s (the fuzz's
// or a child's copy).
func clockCall(r *rand.Rand, s *procState) (uintptr, [6]uintptr) {
	ptr := func(p unsafe.Pointer) uintptr {
		switch r.IntN(8) {
		case 0:
			return 0
		case 1:
			return badPtr(r)
		case 2:
			return addr(r)
		}
		return uintptr(p)
	}
	switch r.IntN(4) {
	case 0:
		s.ts = unix.Timespec{Sec: seconds(r), Nsec: nanos(r, 1_000_000_000)}
		return unix.SYS_CLOCK_SETTIME, [6]uintptr{clockID(r), ptr(unsafe.Pointer(&s.ts))}
	case 1:
		s.tv = unix.Timeval{Sec: seconds(r), Usec: nanos(r, 1_000_000)}
		s.tz = [2]int32{int32(r.IntN(2000) - 1000), int32(r.IntN(4))}
		return unix.SYS_SETTIMEOFDAY, [6]uintptr{ptr(unsafe.Pointer(&s.tv)), ptr(unsafe.Pointer(&s.tz))}
	case 2:
		fillTimex(r, &s.timex)
		return unix.SYS_ADJTIMEX, [6]uintptr{ptr(unsafe.Pointer(&s.timex))}
	}
	fillTimex(r, &s.timex)
	return unix.SYS_CLOCK_ADJTIME, [6]uintptr{clockID(r), ptr(unsafe.Pointer(&s.timex))}
}

func clockKind(r *rand.Rand, s *procState) {
	nr, a := clockCall(r, s)
	raw(nr, a[:]...)
}
