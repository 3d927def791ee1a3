package linux

import (
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// lockFree is kernel.Personality.LockFree: the system calls answered with
// the scheduler's StateLock alone, not the kernel lock. Today that is
// FUTEX_WAKE, the call behind every cross-core wake-up of the Go runtime
// (notewakeup, semawakeup): it reads no app memory and touches only the
// futex queues and the run queues, which are StateLock's
// (sched/waitaddr.go says why no wake-up is lost). FUTEX_WAIT stays under
// the kernel lock: it reads the app's memory, which the kernel lock
// keeps mapped.
func lockFree(c *sched.CPU, t *sched.Thread, f *sched.Frame) bool {
	if f.X[8] != unix.SYS_FUTEX {
		return false
	}
	// lab:futex begin
	switch f.X[1] & futexCmdMask {
	case futexOpWake, futexWakeBitset:
		addr := uintptr(f.X[0])
		if addr&3 != 0 {
			f.X[0] = errno(unix.EINVAL)
			return true
		}
		f.X[0] = uint64(futexWake(addr, int(int32(f.X[2]))))
		return true
	}
	// lab:futex stub
	// // The lab's FUTEX_WAKE is the one in sysFutex, under the kernel lock.
	// lab:futex end
	return false
}
