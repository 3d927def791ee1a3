package linux

import (
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// futex: FUTEX_WAIT and FUTEX_WAKE (and their bitset forms), all the Go
// runtime uses. Waiters are the threads blocked with sched.WaitFutex on
// the address (sched/waitaddr.go: FIFO, and why no wake-up is lost: the
// compare and the block are one step under the address's futex queue
// lock, or every core's state lock, which every waker meets).
// FUTEX_WAKE normally never gets here: it is answered
// without the kernel lock (lockfree_arm64.go); this one serves the lab's
// tree. A futex is keyed by its address in the caller's address space
// (sched/waitaddr.go); there is no shared memory between processes, so
// private and shared futexes are the same.

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
		r, _, _ := futexWaitOn(t, f, true)
		return r
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

// lab:futex begin

// futexWaitOn blocks t on f's address if the word there still holds f's
// value, with f's timeout, and reports whether it blocked; the result r
// is the call's if it did not (a thread that blocked gets its own from
// its waker or its timeout). Under the kernel lock (locked) it reads the app's memory
// as any call does. Without it (lockfree_arm64.go) it reads only pages
// already mapped (usermem.PeekIn) and gives up, ok false, before it
// changes anything, where the locked way must decide: a page to fault in,
// or a signal pending for t, which that way delivers or lets end the
// wait (syscall's pending check). The pending check runs under this
// core's state lock (sched.LockAddrToBlockAt), and signalWake decides
// under every core's, so a signal posted by another core is either seen
// here or finds t blocked and ends the wait. A wait without the kernel
// lock that blocked returns with this core's state lock held, for
// Schedule.
func futexWaitOn(t *sched.Thread, f *sched.Frame, locked bool) (r uint64, blocked, ok bool) {
	addr := uintptr(f.X[0])
	op := f.X[1] & futexCmdMask
	val := uint32(f.X[2])
	// The counter the deadline is reckoned from, and without the kernel
	// lock Schedule's clock too (sched.LockAddrToBlockAt).
	now := callCounter(locked)
	// The timeout first: a bad timespec is EFAULT or EINVAL whatever
	// the word holds, as Linux copies it in before it looks.
	var ns int64
	lx(t).WallWait = false
	if ts := uintptr(f.X[3]); ts != 0 {
		var e unix.Errno
		if ns, e = copyTimespec(ts, locked); e == unix.EFAULT && !locked {
			return 0, false, false
		}
		if e != 0 {
			return errno(e), false, true
		}
		if op == futexWaitBitset {
			// Absolute, on CLOCK_MONOTONIC unless CLOCK_REALTIME.
			clock := uint64(unix.CLOCK_MONOTONIC)
			if f.X[1]&futexClockRealtime != 0 {
				clock = unix.CLOCK_REALTIME
				lx(t).WallWait = true // the clock may be set meanwhile (clockWasSet)
			}
			ns, _ = leftUntil(clock, ns, now)
		}
	}
	// The deadline before the compare, as Linux arms its timer before it
	// queues.
	var deadline uint64
	if f.X[3] != 0 && ns > 0 {
		deadline = deadlineFrom(now, ns)
	}
	var cur uint32
	var mapped bool
	if locked {
		sched.LockState()
		cur, mapped = usermem.ReadU32(addr)
	} else {
		sched.LockAddrToBlockAt(now, addr)
		if cur, mapped = usermem.PeekU32(addr); !mapped || signalsPending(t) {
			sched.UnlockState()
			return 0, false, false
		}
	}
	switch {
	case !mapped:
		sched.UnlockState()
		return errno(unix.EFAULT), false, true
	case cur != val:
		sched.UnlockState()
		return errno(unix.EAGAIN), false, true
	case f.X[3] != 0 && ns <= 0:
		sched.UnlockState()
		return errno(unix.ETIMEDOUT), false, true
	}
	sched.WaitOnLocked(t, sched.WaitFutex, addr, deadline, errno(unix.ETIMEDOUT))
	if locked {
		sched.UnlockState()
	} // else the lock-free way schedules in this section (kernel.Personality.LockFree)
	return 0, true, true
}

// lab:futex stub
// lab:futex end

// futexWake wakes up to n waiters on addr and returns how many woke.
func futexWake(addr uintptr, n int) int { return sched.WakeAddr(sched.WaitFutex, addr, n) }
