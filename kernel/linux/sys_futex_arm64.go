package linux

import (
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// futex: FUTEX_WAIT and FUTEX_WAKE (and their bitset forms), all the Go
// runtime uses. Waiters are the threads blocked with sched.WaitFutex on
// the address (sched/waitaddr.go: FIFO, and why no wake-up is lost: the
// compare and the block are one step under sched.StateLock, which every
// waker takes). FUTEX_WAKE normally never gets here: it is answered
// without the kernel lock (lockfree_arm64.go); this one serves the lab's
// tree. There is one address space, so private and shared futexes are
// the same.

func sysFutex(t *sched.Thread, f *sched.Frame) uint64 {
	addr := uintptr(f.X[0])
	op := f.X[1] & futexCmdMask
	val := uint32(f.X[2])
	if addr&3 != 0 {
		return errno(unix.EINVAL)
	}
	switch op {
	// lab:futex begin
	case futexWait, futexWaitBitset:
		// The timeout first: a bad timespec is EFAULT or EINVAL whatever
		// the word holds, as Linux copies it in before it looks.
		var ns int64
		if ts := uintptr(f.X[3]); ts != 0 {
			var e unix.Errno
			if ns, e = readTimespec(ts); e != 0 {
				return errno(e)
			}
			if op == futexWaitBitset {
				// Absolute, on CLOCK_MONOTONIC unless CLOCK_REALTIME.
				clock := uint64(unix.CLOCK_MONOTONIC)
				if f.X[1]&futexClockRealtime != 0 {
					clock = unix.CLOCK_REALTIME
				}
				now, _ := nowNanos(clock)
				ns -= now
			}
		}
		sched.LockState()
		cur, ok := usermem.ReadU32(addr)
		switch {
		case !ok:
			sched.UnlockState()
			return errno(unix.EFAULT)
		case cur != val:
			sched.UnlockState()
			return errno(unix.EAGAIN)
		case f.X[3] != 0 && ns <= 0:
			sched.UnlockState()
			return errno(unix.ETIMEDOUT)
		}
		var deadline uint64
		if f.X[3] != 0 {
			deadline = deadlineAfter(ns)
		}
		sched.WaitOnLocked(t, sched.WaitFutex, addr, deadline, errno(unix.ETIMEDOUT))
		sched.UnlockState()
		return 0
	case futexOpWake, futexWakeBitset:
		return uint64(futexWake(addr, int(int32(val))))
		// lab:futex stub
		// case futexWait, futexWaitBitset, futexOpWake, futexWakeBitset:
		// 	// TODO(lab futex): FUTEX_WAIT blocks t on addr (sched.WaitOnLocked
		// 	// with sched.WaitFutex, between sched.LockState and
		// 	// sched.UnlockState) if *addr still holds val, with the timeout
		// 	// in f.X[3]; FUTEX_WAKE wakes up to val waiters (sched.WakeAddr).
		// 	_, _, _, _ = usermem.ReadU32, readTimespec, futexWake, val
		// 	return errno(unix.ENOSYS)
		// lab:futex end
	}
	return errno(unix.ENOSYS)
}

// futexWake wakes up to n waiters on addr and returns how many woke.
func futexWake(addr uintptr, n int) int { return sched.WakeAddr(sched.WaitFutex, addr, n) }
