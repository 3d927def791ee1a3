package linux

import (
	"github.com/gometal/gometal/kernel/usermem"
	"unsafe"

	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Clocks are kernel/clock's; nowNanos reads one for a syscall.
func nowNanos(id uint64) (int64, bool) { return clock.Now(id) }

func writeTimespec(addr uintptr, ns int64) bool {
	ts := unix.NsecToTimespec(ns)
	return usermem.CopyOut(addr, usermem.BytesOf(unsafe.Pointer(&ts), unsafe.Sizeof(ts)))
}

// readTimespec reads and validates a timespec (EINVAL for a bad one).
func readTimespec(addr uintptr) (int64, unix.Errno) { return copyTimespec(addr, true) }

// copyTimespec is readTimespec, or without the kernel lock (locked
// false) the same over usermem.PeekIn: EFAULT then means only that the
// timespec's page is not mapped now.
func copyTimespec(addr uintptr, locked bool) (int64, unix.Errno) {
	var ts unix.Timespec
	b := usermem.BytesOf(unsafe.Pointer(&ts), unsafe.Sizeof(ts))
	if locked && !usermem.CopyIn(b, addr) || !locked && !usermem.PeekIn(b, addr) {
		return 0, unix.EFAULT
	}
	ns, ok := timespecNanos(ts)
	if !ok {
		return 0, unix.EINVAL
	}
	return ns, 0
}

// timespecNanos validates a timespec value and converts it to
// nanoseconds.
func timespecNanos(ts unix.Timespec) (int64, bool) {
	if ts.Sec < 0 || ts.Nsec < 0 || ts.Nsec >= 1e9 {
		return 0, false
	}
	if ts.Sec > 1<<33 { // far beyond any run: treat as forever
		return 1 << 62, true
	}
	return ts.Sec*1e9 + ts.Nsec, true
}

func sysClockGettime(t *sched.Thread, f *sched.Frame) uint64 {
	ns, ok := cpuClockNanos(t, f.X[0])
	if !ok {
		ns, ok = nowNanos(f.X[0])
	}
	if !ok {
		return errno(unix.EINVAL)
	}
	if !writeTimespec(uintptr(f.X[1]), ns) {
		return errno(unix.EFAULT)
	}
	return 0
}

func sysClockGetres(t *sched.Thread, f *sched.Frame) uint64 {
	if _, ok := nowNanos(f.X[0]); !ok {
		return errno(unix.EINVAL)
	}
	if f.X[1] == 0 {
		return 0
	}
	res := int64(1e9 / timer.Freq())
	if res == 0 {
		res = 1
	}
	if !writeTimespec(uintptr(f.X[1]), res) {
		return errno(unix.EFAULT)
	}
	return 0
}

// sysGettimeofday writes the time and, if asked, the time zone
// settimeofday set (Linux's sys_tz, zero until then).
func sysGettimeofday(t *sched.Thread, f *sched.Frame) uint64 {
	if f.X[0] != 0 {
		ns, _ := nowNanos(unix.CLOCK_REALTIME)
		tv := unix.NsecToTimeval(ns)
		if !usermem.CopyOut(uintptr(f.X[0]), usermem.BytesOf(unsafe.Pointer(&tv), unsafe.Sizeof(tv))) {
			return errno(unix.EFAULT)
		}
	}
	if f.X[1] != 0 && !usermem.CopyOut(uintptr(f.X[1]), usermem.BytesOf(unsafe.Pointer(&sysTZ), 8)) {
		return errno(unix.EFAULT)
	}
	return 0
}

// entryCounter is the counter at this system call's entry, read before
// the kernel lock was taken (kernel.trapLocked). A call under the kernel
// lock reckons its deadline, and an absolute time's distance, from it
// rather than reading the counter holding the lock: under QEMU's TCG the
// read takes QEMU's global lock, which every core waiting for the
// kernel lock would then wait for too (docs/ARCHITECTURE.md). A call
// made without the kernel lock reads the counter itself, before its
// locks.
func entryCounter() uint64 { return kernel.ThisCPU().Heartbeat }

// callCounter is the counter a call reckons its deadline from: its
// entry under the kernel lock (locked), else a read made now, which the
// caller makes before it takes any lock.
func callCounter(locked bool) uint64 {
	if locked {
		return entryCounter()
	}
	return timer.Now()
}

// deadlineAfter is the counter deadline ns after this call's entry (a
// call under the kernel lock).
func deadlineAfter(ns int64) uint64 { return deadlineFrom(entryCounter(), ns) }

// deadlineFrom is the counter deadline ns after the counter read now,
// rounded up to a whole tick, so that a wait never ends before its time
// (never 0, which means no deadline).
func deadlineFrom(now uint64, ns int64) uint64 {
	ticks := timer.NanosToTicks(ns)
	if timer.TicksToNanos(ticks) < ns {
		ticks++
	}
	return max(now+ticks, 1)
}

// leftUntil is how many nanoseconds an absolute time abs on clock id
// lies after the counter read now (false: no such clock).
func leftUntil(id uint64, abs int64, now uint64) (int64, bool) {
	at, ok := clock.At(id, timer.TicksToNanos(now))
	return abs - at, ok
}

// timerSlackNanos is how much later than asked a sleep may end: Linux's
// default timer slack, 50 µs (init_task's timer_slack_ns), which its
// nanosleep and clock_nanosleep add to every sleep of a thread that is
// not real-time (kernel/time/hrtimer.c, hrtimer_nanosleep). The Go
// runtime's short sleeps rely on it: a spinning M about to steal a P's
// next goroutine first sleeps usleep(3) "to give pp a chance to
// schedule runnext" (runtime/proc.go, runqgrab), written for a chan
// handoff of ~50 ns; under QEMU's TCG a handoff takes a few µs, and an
// exact 3 µs sleep let the steal win and bounce the pair between cores.
// A thread may change its own (prctl PR_SET_TIMERSLACK).
const timerSlackNanos = 50_000

// slack is t's timer slack in ns, bounded so that a sleep's length plus
// it stays an int64 (a thread may set any value).
func slack(t *sched.Thread) int64 { return int64(min(lx(t).TimerSlack, maxSlackNanos)) }

// maxSlackNanos bounds slack: a day, far beyond any use.
const maxSlackNanos = 24 * 3600 * 1e9

// sysSleep is nanosleep and clock_nanosleep under the kernel lock: for
// a request lockFreeSleep leaves to it (its timespec not mapped yet, a
// signal to take first).
func sysSleep(t *sched.Thread, f *sched.Frame) uint64 {
	ns, e := sleepRequest(f, entryCounter(), true)
	if e != 0 {
		return errno(e)
	}
	if ns > 0 {
		lx(t).WallWait = untilWallTime(f)
		sched.Block(t, sched.WaitSleep, deadlineAfter(ns+slack(t)), 0)
	}
	return 0
}

// lockFreeSleep is nanosleep and clock_nanosleep without the kernel
// lock: a sleep touches only the calling thread and its core's state
// (a deadline, no queue), so it blocks under that core's state lock
// alone (sched.LockToSleepAt), as a futex wait does under its queue's
// and its core's. The Go runtime sleeps this way in every spinning M
// that finds a P about to run its next goroutine (runqgrab's
// usleep(3)), and sysmon between its looks; under the kernel lock those
// sleeps queued behind, and held up, every locked call. A request it
// cannot answer so (the timespec's page not mapped now, a signal
// pending) goes the locked way (answered false).
func lockFreeSleep(t *sched.Thread, f *sched.Frame) (answered, blocked bool) {
	beginCall(t, f)    // a signal that ends the sleep restarts it, or writes the time it had left
	now := timer.Now() // before the lock (LockToSleepAt)
	ns, e := sleepRequest(f, now, false)
	switch {
	case e == unix.EFAULT:
		return false, false
	case e != 0:
		f.X[0] = errno(e)
		return true, false
	case ns <= 0:
		f.X[0] = 0
		return true, false
	}
	lx(t).WallWait = untilWallTime(f)
	sched.LockToSleepAt(now)
	if signalsPending(t) {
		sched.UnlockState()
		return false, false
	}
	sched.SleepLocked(t, deadlineFrom(now, ns+slack(t)))
	return true, true // the lock-free way schedules in this section
}

// untilWallTime says f's sleep lasts until a wall-clock time: a
// clock_nanosleep with TIMER_ABSTIME on CLOCK_REALTIME or CLOCK_TAI,
// which must end when that clock reaches it even if the clock is set
// meanwhile (clockWasSet).
func untilWallTime(f *sched.Frame) bool {
	return f.X[8] == unix.SYS_CLOCK_NANOSLEEP && f.X[1]&unix.TIMER_ABSTIME != 0 &&
		(f.X[0] == unix.CLOCK_REALTIME || f.X[0] == unix.CLOCK_TAI)
}

// sleepRequest is how long f's nanosleep or clock_nanosleep asks to
// sleep, from the counter value now (its entry); 0 or less: not at all.
// As Linux, clock_nanosleep checks the clock before it reads the
// timespec (EINVAL for an unknown one, EOPNOTSUPP for one it cannot
// sleep on), and a bad timespec is EFAULT or EINVAL. locked: under the
// kernel lock (else EFAULT means only that the timespec's page is not
// mapped now: copyTimespec).
func sleepRequest(f *sched.Frame, now uint64, locked bool) (int64, unix.Errno) {
	if f.X[8] == unix.SYS_NANOSLEEP {
		return copyTimespec(uintptr(f.X[0]), locked)
	}
	at, ok := clock.At(f.X[0], timer.TicksToNanos(now))
	if !ok {
		return 0, unix.EINVAL
	}
	if !clock.Sleepable(f.X[0]) {
		return 0, unix.EOPNOTSUPP
	}
	ns, e := copyTimespec(uintptr(f.X[2]), locked)
	if e == 0 && f.X[1]&unix.TIMER_ABSTIME != 0 {
		ns -= at
	}
	return ns, e
}
