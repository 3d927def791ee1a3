package linux

import (
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// unlocked is kernel.Personality.Unlocked: the system calls that read or
// change only the calling thread and its core, answered without the
// kernel lock and without saving the app's vector registers
// (kernel/unlocked_arm64.go). The IDs never change while a thread runs.
// A direct call each, not sysTable: TestUnlockedPathUsesNoFP follows the
// calls from here to prove that none touches a vector register.
func unlocked(c *sched.CPU, t *sched.Thread, f *sched.Frame) bool {
	switch f.X[8] {
	case unix.SYS_GETPID:
		f.X[0] = sysGetpid(t, f)
	case unix.SYS_GETPPID:
		f.X[0] = sysGetppid(t, f)
	case unix.SYS_GETTID:
		f.X[0] = sysGettid(t, f)
	case unix.SYS_GETUID:
		f.X[0] = sysGetuid(t, f)
	case unix.SYS_GETEUID:
		f.X[0] = sysGeteuid(t, f)
	case unix.SYS_GETGID:
		f.X[0] = sysGetgid(t, f)
	case unix.SYS_GETEGID:
		f.X[0] = sysGetegid(t, f)
	case unix.SYS_BRK:
		// The break is set when a program is loaded, while its process
		// has one thread, and never moves (sysBrk).
		f.X[0] = sysBrk(t, f)
	case unix.SYS_SCHED_YIELD:
		// With a thread waiting for this core, yielding switches to it:
		// that is Schedule's, under the lock. With none there is nothing
		// to do, as Linux's yield looks at the local run queue only
		// (kernel/sched/core.c, do_sched_yield).
		if sched.HasRunnable(c) {
			return false
		}
		f.X[0] = 0
	default:
		return false
	}
	return true
}
