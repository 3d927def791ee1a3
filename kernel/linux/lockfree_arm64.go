package linux

import (
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// lockFree is kernel.Personality.LockFree: the system calls answered
// without the kernel lock: read and write of an anonymous pipe or an
// eventfd, under the object's own lock, and epoll_pwait on such objects
// (unlockedio_arm64.go); the preemption signal's tgkill and
// rt_sigreturn, under SignalLock (unlockedsignal_arm64.go); and, with the scheduler's
// state locks alone, nanosleep and clock_nanosleep (lockFreeSleep), FUTEX_WAKE and
// FUTEX_WAIT, the calls behind every park and wake-up of an M in the Go
// runtime (notesleep, notewakeup, semasleep, semawakeup). FUTEX_WAKE
// reads no app memory and touches only the futex queues and the run
// queues, which are the state locks' (sched/statelock.go; waitaddr.go
// says why no wake-up is lost): a waiter that lives on the waker's core
// and stays there is woken under its futex queue's lock and that core's
// alone. FUTEX_WAIT reads the word, and its timeout, only where the app
// has them mapped already, and leaves the rest to the kernel lock
// (futexWaitOn says what). The mapping calls take the address space's
// lock alone (lockFreeMM). blocked reports a wait: the core then
// schedules without the kernel lock, as an interrupt does.
func lockFree(c *sched.CPU, t *sched.Thread, f *sched.Frame) (answered, blocked bool) {
	switch f.X[8] {
	case unix.SYS_READ, unix.SYS_WRITE:
		return unlockedIO(c, t, f, f.X[8] == unix.SYS_WRITE)
	case unix.SYS_EPOLL_PWAIT:
		return unlockedEpollWait(c, t, f)
	case unix.SYS_TGKILL:
		return unlockedTgkill(c, t, f), false
	case unix.SYS_RT_SIGRETURN:
		return unlockedSigreturn(c, t, f), false
	case unix.SYS_NANOSLEEP, unix.SYS_CLOCK_NANOSLEEP:
		return lockFreeSleep(t, f)
	case unix.SYS_MMAP, unix.SYS_MUNMAP, unix.SYS_MPROTECT, unix.SYS_MADVISE:
		return lockFreeMM(f), false
	case unix.SYS_FUTEX:
	default:
		return false, false
	}
	// lab:futex begin
	switch f.X[1] & futexCmdMask {
	case futexOpWake, futexWakeBitset:
		addr := uintptr(f.X[0])
		if addr&3 != 0 {
			f.X[0] = errno(unix.EINVAL)
			return true, false
		}
		f.X[0] = uint64(futexWake(addr, int(int32(f.X[2]))))
		return true, false
	case futexWait, futexWaitBitset:
		return lockFreeWait(t, f)
	}
	// lab:futex stub
	// // The lab's futex calls are the ones in sysFutex, under the kernel lock.
	// lab:futex end
	return false, false
}

// beginCall sets up, for a call answered without the kernel lock, what
// syscall sets for every call, for the signal code: the number and the
// first argument a signal that ends the call's wait restarts it from,
// and no interruption yet (settleInterrupted).
func beginCall(t *sched.Thread, f *sched.Frame) {
	t.SysNr, t.OrigX0 = f.X[8], f.X[0]
	lx(t).Interrupted = false
}

// lab:futex begin

// lockFreeWait is FUTEX_WAIT without the kernel lock, or nothing
// (answered false) where futexWaitOn leaves it to the locked way.
func lockFreeWait(t *sched.Thread, f *sched.Frame) (answered, blocked bool) {
	beginCall(t, f)
	r, blocked, ok := futexWaitOn(t, f, false)
	if !ok {
		return false, false
	}
	if !blocked {
		f.X[0] = r // EAGAIN, ETIMEDOUT, EINVAL
	}
	return true, blocked
}

// lab:futex stub
// lab:futex end
