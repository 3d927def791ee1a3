package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// wait4 and waitid: a process collects its children's ends (Linux's
// kernel/exit.c: kernel_wait4, kernel_waitid, do_wait). Which children
// a call names and which of them it may reap is proc's (Select,
// FindZombie); a call that finds none yet blocks on its process's
// ChildWait and runs again when a child changes state
// (processExited, notifyParent), or ends for a signal (EINTR, or
// restarted with SA_RESTART as Linux's -ERESTARTSYS is).

// wNoThread is __WNOTHREAD (include/uapi/linux/wait.h): children of
// this thread only; every child here belongs to the process.
const wNoThread = 0x20000000

// childWaitEvents is what a waiter for children waits for on its queue
// (any notification).
const childWaitEvents = ^uint32(0)

// cloneSel turns __WCLONE and __WALL into the children they consider.
func cloneSel(opts uint64) proc.CloneSel {
	switch {
	case opts&unix.WALL != 0:
		return proc.AllChildren
	case opts&unix.WCLONE != 0:
		return proc.CloneChildren
	}
	return proc.NormalChildren
}

// findChild is the search both calls make: a zombie child to report
// (-1: none yet), or the errno to answer (ECHILD: no child is named).
func findChild(t *sched.Thread, which proc.Which, id int32, opts uint64) (int32, unix.Errno) {
	z, matched := proc.FindZombie(lx(t).Proc, which, id, cloneSel(opts))
	if !matched {
		return -1, unix.ECHILD
	}
	return z, 0
}

// blockForChild makes t's wait run again when a child of its process
// changes state.
func blockForChild(t *sched.Thread) {
	sched.BlockOn(t, &sharedOf(t).ChildWait, sched.WaitChild, childWaitEvents, 0, 0)
}

func sysWait4(t *sched.Thread, f *sched.Frame) uint64 {
	opts := f.X[2]
	const valid = unix.WNOHANG | unix.WUNTRACED | unix.WCONTINUED | unix.WALL | unix.WCLONE | wNoThread
	if opts&^uint64(valid) != 0 {
		return errno(unix.EINVAL)
	}
	which, id := proc.Select(int32(f.X[0]), procOf(t).PGID)
	z, e := findChild(t, which, id, opts)
	if e != 0 {
		return errno(e)
	}
	if z < 0 {
		if opts&unix.WNOHANG != 0 {
			return 0
		}
		blockForChild(t)
		return 0
	}
	if st := uintptr(f.X[1]); st != 0 && !usermem.WriteU32(st, uint32(proc.Procs[z].Status)) {
		return errno(unix.EFAULT)
	}
	if ru := uintptr(f.X[3]); ru != 0 && !putRusage(ru) {
		return errno(unix.EFAULT)
	}
	pid := proc.Procs[z].PID
	proc.Reap(z)
	return uint64(pid)
}

func sysWaitid(t *sched.Thread, f *sched.Frame) uint64 {
	const valid = unix.WNOHANG | unix.WEXITED | unix.WSTOPPED | unix.WCONTINUED | unix.WNOWAIT | unix.WALL | unix.WCLONE | wNoThread
	opts := f.X[3]
	if opts&^uint64(valid) != 0 || opts&(unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED) == 0 {
		return errno(unix.EINVAL)
	}
	var which proc.Which
	id := int32(f.X[1])
	switch f.X[0] {
	case unix.P_ALL:
		which = proc.WaitAny
	case unix.P_PGID:
		which = proc.WaitPGID
		if id < 0 {
			return errno(unix.EINVAL)
		}
		if id == 0 {
			id = procOf(t).PGID
		}
	case unix.P_PID:
		which = proc.WaitPID
		if id <= 0 {
			return errno(unix.EINVAL)
		}
	case unix.P_PIDFD:
		return errno(unix.EBADF) // no descriptor is a pidfd yet
	default:
		return errno(unix.EINVAL)
	}
	infop := uintptr(f.X[2])
	z, e := findChild(t, which, id, opts)
	if e != 0 {
		return errno(e)
	}
	if z < 0 || opts&unix.WEXITED == 0 {
		if opts&unix.WNOHANG != 0 {
			// Nothing to report: Linux clears si_signo and si_pid
			// (kernel_waitid's "nothing happened" case writes zeros).
			if infop != 0 && !putWaitInfo(infop, 0, sigInfo{}) {
				return errno(unix.EFAULT)
			}
			return 0
		}
		blockForChild(t)
		return 0
	}
	info, _ := childInfo(z)
	if infop != 0 && !putWaitInfo(infop, sigCHLD, info) {
		return errno(unix.EFAULT)
	}
	if ru := uintptr(f.X[4]); ru != 0 && !putRusage(ru) {
		return errno(unix.EFAULT)
	}
	if opts&unix.WNOWAIT == 0 {
		proc.Reap(z)
	}
	return 0
}

// putWaitInfo writes waitid's siginfo: si_signo, si_errno, si_code, then
// si_pid, si_uid and si_status in the union.
func putWaitInfo(addr uintptr, sig int, info sigInfo) bool {
	var b [siginfoSize]byte
	putSiginfo(b[:], sig, &info)
	return usermem.CopyOut(addr, b[:])
}

// putRusage writes a struct rusage. Per-process CPU time is not counted
// yet: every field is zero.
func putRusage(addr uintptr) bool {
	var ru unix.Rusage
	return usermem.CopyOut(addr, usermem.BytesOf(unsafe.Pointer(&ru), unsafe.Sizeof(ru)))
}
