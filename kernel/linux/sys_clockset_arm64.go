package linux

import (
	"sync/atomic"
	"unsafe"

	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The calls that change clocks: clock_settime(2), settimeofday(2),
// adjtimex(2) and clock_adjtime(2), with Linux's checks in Linux's order
// (kernel/time/posix-timers.c, time.c, timekeeping.c). Only the wall
// clock can be set (CLOCK_REALTIME, and CLOCK_TAI through its lead);
// only root may (CAP_SYS_TIME). What waits for a wall-clock time follows
// it when it moves (clockWasSet).

// ntp is the NTP state adjtimex keeps (ntp.go).
var ntp ntpState

// sysTZ is the time zone settimeofday sets and gettimeofday reports
// (Linux's sys_tz: minutes west of Greenwich, the kind of DST); tzSet
// says it has been set once (do_sys_settimeofday64's firsttime).
var (
	sysTZ [2]int32
	tzSet bool
)

// capSysTime says t may set the clocks (CAP_SYS_TIME: root's).
func capSysTime(t *sched.Thread) bool { return procOf(t).Cred.Privileged() }

// callMono is the monotonic clock at this call's entry (a call under the
// kernel lock reads no counter: entryCounter).
func callMono() int64 { return timer.TicksToNanos(entryCounter()) }

// Which clock a clockid_t names, for the setters (clockid_to_kclock): the
// wall clock, one with no setter, a CPU-time clock (negative, encoding a
// PID or TID), a descriptor's dynamic clock (CLOCKFD), or none.
const (
	clockNone = iota
	clockReal
	clockFixed
	clockCPU
	clockFD
)

// clockFDBits is CLOCKFD (include/linux/posix-timers.h): a negative ID
// whose low three bits are 3 names a descriptor's clock.
const clockFDBits = 3

func clockKind(id int32) int {
	switch {
	case id < 0 && id&7 == clockFDBits:
		return clockFD
	case id < 0:
		return clockCPU
	case id == unix.CLOCK_REALTIME:
		return clockReal
	case id <= unix.CLOCK_TAI && id != 10: // 10: CLOCK_SGI_CYCLE, gone
		return clockFixed
	}
	return clockNone
}

// cpuClockValid says whether a CPU-time clock ID names a clock (Linux's
// pid_for_clock): its kind below CPUCLOCK_MAX, and its PID 0 (the
// caller), a thread of the caller's process (per-thread), or a process.
func cpuClockValid(t *sched.Thread, id int32) bool {
	if id&3 == 3 {
		return false
	}
	pid := ^(id >> 3)
	if pid == 0 {
		return true
	}
	if id&4 != 0 {
		o := sched.ByTID(pid)
		return o != nil && lx(o).Proc == lx(t).Proc
	}
	return proc.ByPID(pid) >= 0
}

func sysClockSettime(t *sched.Thread, f *sched.Frame) uint64 {
	id := int32(f.X[0])
	kind := clockKind(id)
	if kind == clockNone || kind == clockFixed {
		return errno(unix.EINVAL) // no clock_set
	}
	var ts unix.Timespec
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&ts), unsafe.Sizeof(ts)), uintptr(f.X[1])) {
		return errno(unix.EFAULT)
	}
	switch kind {
	case clockCPU:
		// posix_cpu_clock_set: a CPU clock is never set.
		if !cpuClockValid(t, id) {
			return errno(unix.EINVAL)
		}
		return errno(unix.EPERM)
	case clockFD:
		return errno(unix.EINVAL) // no descriptor here is a PTP clock
	}
	return errno(setWallClock(t, &ts, nil))
}

// setWallClock is do_sys_settimeofday64: the time (nil: none) checked,
// then the right to set it, then the time zone (nil: none), then the
// clock.
func setWallClock(t *sched.Thread, ts *unix.Timespec, tz *[2]int32) unix.Errno {
	if ts != nil && (ts.Sec < 0 || ts.Nsec < 0 || ts.Nsec >= 1e9 || ts.Sec >= clock.SettodSecMax) {
		return unix.EINVAL // timespec64_valid_settod
	}
	if !capSysTime(t) {
		return unix.EPERM
	}
	if tz != nil {
		if tz[0] > 15*60 || tz[0] < -15*60 {
			return unix.EINVAL
		}
		sysTZ = *tz
		if !tzSet {
			tzSet = true
			// The first time zone set without a time says the RTC kept
			// local time: the clock moves to UTC (timekeeping_warp_clock).
			if ts == nil && tz[0] != 0 {
				stepWallClock(int64(tz[0])*60, 0)
			}
		}
	}
	if ts == nil {
		return 0
	}
	old := clock.Wall()
	if !clock.Set(ts.Sec, ts.Nsec, callMono()) {
		return unix.EINVAL // before the boot
	}
	ntp.clear()
	clockWasSet(clock.Wall() - old)
	syncRTC()
	return 0
}

// syncRTC writes the wall clock, just set, to the real-time clock (as
// hwclock --systohc would; issue 39), so that the next boot starts from
// it. A time the RTC cannot hold leaves it as it was.
func syncRTC() {
	if kernel.HasRTC() {
		kernel.RTCSet((clock.Wall() + callMono()) / 1e9)
	}
}

// stepWallClock moves the wall clock by sec, nsec (false: EINVAL).
func stepWallClock(sec, nsec int64) bool {
	old := clock.Wall()
	if !clock.Step(sec, nsec, callMono()) {
		return false
	}
	ntp.clear()
	clockWasSet(clock.Wall() - old)
	syncRTC()
	return true
}

func sysSettimeofday(t *sched.Thread, f *sched.Frame) uint64 {
	var ts *unix.Timespec
	var tsv unix.Timespec
	if a := uintptr(f.X[0]); a != 0 {
		var v unix.Timeval
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&v), unsafe.Sizeof(v)), a) {
			return errno(unix.EFAULT)
		}
		if v.Usec > 1e6 || v.Usec < 0 { // (1e6 itself fails below)
			return errno(unix.EINVAL)
		}
		tsv = unix.Timespec{Sec: v.Sec, Nsec: v.Usec * 1000}
		ts = &tsv
	}
	var tz *[2]int32
	var tzv [2]int32
	if a := uintptr(f.X[1]); a != 0 {
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&tzv), 8), a) {
			return errno(unix.EFAULT)
		}
		tz = &tzv
	}
	return errno(setWallClock(t, ts, tz))
}

func sysAdjtimex(t *sched.Thread, f *sched.Frame) uint64 {
	var tx unix.Timex
	b := usermem.BytesOf(unsafe.Pointer(&tx), unsafe.Sizeof(tx))
	if !usermem.CopyIn(b, uintptr(f.X[0])) {
		return errno(unix.EFAULT)
	}
	r := doAdjtimex(t, &tx)
	// Copied back even when it failed, as Linux's adjtimex does.
	if !usermem.CopyOut(uintptr(f.X[0]), b) {
		return errno(unix.EFAULT)
	}
	return r
}

func sysClockAdjtime(t *sched.Thread, f *sched.Frame) uint64 {
	var tx unix.Timex
	b := usermem.BytesOf(unsafe.Pointer(&tx), unsafe.Sizeof(tx))
	if !usermem.CopyIn(b, uintptr(f.X[1])) {
		return errno(unix.EFAULT)
	}
	var r uint64
	switch clockKind(int32(f.X[0])) {
	case clockNone, clockFD:
		r = errno(unix.EINVAL) // no such clock; no descriptor is a PTP clock
	case clockFixed, clockCPU:
		r = errno(unix.EOPNOTSUPP) // no clock_adj
	default:
		r = doAdjtimex(t, &tx)
	}
	if int64(r) >= 0 && !usermem.CopyOut(uintptr(f.X[1]), b) {
		return errno(unix.EFAULT)
	}
	return r
}

// doAdjtimex is Linux's do_adjtimex: check, step the clock for
// ADJ_SETOFFSET, then the NTP state; it answers the clock state.
func doAdjtimex(t *sched.Thread, tx *unix.Timex) uint64 {
	if e := validateTimex(tx, capSysTime(t)); e != 0 {
		return errno(e)
	}
	if tx.Modes&adjSetoffset != 0 {
		if sec, nsec := setoffset(tx); !stepWallClock(sec, nsec) {
			return errno(unix.EINVAL)
		}
	}
	state, tai := ntp.adjtimex(tx, clock.Realtime(), clock.TAI())
	if tai != clock.TAI() {
		clock.SetTAI(tai)
		clockWasSet(0) // CLOCK_TAI's sleepers
	}
	return uint64(state)
}

// clockWasSet tells what depends on the wall clock that it has moved by
// delta ns, as Linux's clock_was_set does: the vDSO's copy of its
// offset; the timerfds armed for a CLOCK_REALTIME time, whose
// expirations move with it (an hrtimer on the realtime base; a relative
// one is on the monotonic base), and those TFD_TIMER_CANCEL_ON_SET
// cancels (timerfd_clock_was_set); and the threads waiting until a wall-clock
// time (clock_nanosleep's TIMER_ABSTIME on CLOCK_REALTIME or CLOCK_TAI,
// FUTEX_WAIT_BITSET with FUTEX_CLOCK_REALTIME), which run their call
// again to reckon their deadline anew (a futex wait then compares the
// word again, which its callers take as a wake-up).
func clockWasSet(delta int64) {
	setVDSOWall(clock.Wall())
	now := entryCounter()
	for i := 0; i < vfs.MaxTimerfds; i++ {
		tf := vfs.TimerfdAt(i)
		if tf == nil || !tf.Realtime {
			continue
		}
		if when := sched.Alarms[i].When; when != 0 && delta != 0 && tf.WallClock {
			left := timer.TicksToNanos(when-min(when, now)) - delta
			next := now + 1 // due at once
			if left > 0 {
				next = deadlineFrom(now, left)
			}
			sched.SetAlarm(i, next, kernel.ThisCPU().ID)
		}
		if delta != 0 {
			tf.ClockWasSet()
		}
	}
	for i := range sched.Active() {
		o := &sched.Threads[i]
		if o.State == sched.Blocked && lx(o).WallWait && (o.Wait == sched.WaitSleep || o.Wait == sched.WaitFutex) {
			sched.Retry(o)
		}
	}
}

// setVDSOWall gives the vDSO's clock_gettime the wall clock's new
// offset, one 64-bit store (a reader sees the old or the new).
func setVDSOWall(off int64) {
	if vdsoPA == 0 {
		return
	}
	page := mm.PageBytes(vdsoPA)
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&page[vdsoDataOff+vdsoDataWallOff])), uint64(off))
}
