package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/mm"
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

// What a wait reports of a child.
const (
	eventNone = iota
	eventExit
	eventStop
	eventCont
)

// Which events a wait takes (wait4's WUNTRACED and WCONTINUED; waitid's
// WEXITED, WSTOPPED, WCONTINUED).
type waitWants struct{ exit, stop, cont bool }

// findChild is the search both calls make: the first child the wait
// names that has something it wants to report (a zombie, a stop or a
// continue not yet collected), or none yet, or the errno to answer
// (ECHILD: no child is named).
func findChild(t *sched.Thread, which proc.Which, id int32, opts uint64, w waitWants) (int32, int, unix.Errno) {
	me := lx(t).Proc
	sel := cloneSel(opts)
	matched := false
	for c := range proc.Procs {
		ci := int32(c)
		if !proc.Eligible(me, ci, which, id, sel) {
			continue
		}
		matched = true
		lp := &lprocs[c]
		switch {
		case proc.Procs[c].State == proc.Zombie:
			if w.exit {
				return ci, eventExit, 0
			}
		case lp.StopReport && w.stop:
			return ci, eventStop, 0
		case lp.ContReport && w.cont:
			return ci, eventCont, 0
		}
	}
	if !matched {
		return -1, eventNone, unix.ECHILD
	}
	return -1, eventNone, 0
}

// eventStatus is the wait status of child c's event, and takes the event
// (unless keep: WNOWAIT); a zombie is reaped by the caller.
func eventStatus(c int32, ev int, keep bool) int32 {
	lp := &lprocs[c]
	switch ev {
	case eventStop:
		if !keep {
			lp.StopReport = false
		}
		return proc.Stopped(int(lp.StopSig))
	case eventCont:
		if !keep {
			lp.ContReport = false
		}
		return proc.Continued
	}
	return proc.Procs[c].Status
}

// blockForChild makes t's wait run again when a child of its process
// changes state.
func blockForChild(t *sched.Thread) {
	sched.BlockOn(t, &sharedOf(t).ChildWait, sched.WaitChild, childWaitEvents, 0, 0)
}

// answerRoom makes the n bytes at addr, where a wait is about to write
// its answer, resident before the wait collects anything (usermem.Prepare):
// false when memory is short for them, and then the OOM killer has done
// its part (a victim killed, or the memory of one on its way back
// reaped) and t waits oomRetryNanos, or for a child's change, and runs
// its call again, as Linux's allocator waits out the victim's exit
// before its copy_to_user would fail. A null or bad address is the
// write's to answer.
func answerRoom(t *sched.Thread, addr, n uintptr) bool {
	if addr == 0 || usermem.Prepare(addr, n) != mm.FaultOOM {
		return true
	}
	outOfMemory(t, addr)
	sched.BlockOn(t, &sharedOf(t).ChildWait, sched.WaitChild, childWaitEvents, deadlineAfter(oomRetryNanos), sched.RetryOnTimeout)
	return false
}

// oomRetryNanos is how long a wait short of memory for its answer waits
// before it tries again: a tick, time for a killed process to exit.
const oomRetryNanos = 1_000_000

func sysWait4(t *sched.Thread, f *sched.Frame) uint64 {
	opts := f.X[2]
	const valid = unix.WNOHANG | unix.WUNTRACED | unix.WCONTINUED | unix.WALL | unix.WCLONE | wNoThread
	if opts&^uint64(valid) != 0 {
		return errno(unix.EINVAL)
	}
	which, id := proc.Select(int32(f.X[0]), procOf(t).PGID)
	want := waitWants{exit: true, stop: opts&unix.WUNTRACED != 0, cont: opts&unix.WCONTINUED != 0}
	z, ev, e := findChild(t, which, id, opts, want)
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
	// The event is collected (the zombie reaped, the report taken)
	// before the status and rusage are written, so that a bad pointer
	// answers EFAULT with it collected all the same, as Linux's
	// kernel_wait4 writes them only after do_wait.
	var usage unix.Rusage
	ru := uintptr(f.X[3])
	if !answerRoom(t, uintptr(f.X[1]), 4) || !answerRoom(t, ru, unsafe.Sizeof(usage)) {
		return 0 // runs again once memory is back
	}
	pid := proc.Procs[z].PID
	if ru != 0 {
		usage = childRusage(z)
	}
	status := eventStatus(z, ev, false)
	if ev == eventExit {
		reapTimes(z)
		proc.Reap(z)
	}
	if st := uintptr(f.X[1]); st != 0 && !usermem.WriteU32(st, uint32(status)) {
		return errno(unix.EFAULT)
	}
	if ru != 0 && !copyRusage(ru, &usage) {
		return errno(unix.EFAULT)
	}
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
	nonblock := false
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
		// The process the descriptor names, by its PID: gometal
		// reuses no PID within a run.
		_, pfd, e := pidfdProcess(f.X[1])
		if e != 0 {
			return errno(e)
		}
		which, id = proc.WaitPID, pfd.PID
		if fl, _ := getFD(f.X[1]); fl.Nonblocking() {
			nonblock = true // PIDFD_NONBLOCK: EAGAIN instead of waiting
		}
	default:
		return errno(unix.EINVAL)
	}
	infop := uintptr(f.X[2])
	want := waitWants{exit: opts&unix.WEXITED != 0, stop: opts&unix.WSTOPPED != 0, cont: opts&unix.WCONTINUED != 0}
	z, ev, e := findChild(t, which, id, opts, want)
	if e != 0 {
		return errno(e)
	}
	if z < 0 {
		if nonblock && opts&unix.WNOHANG == 0 {
			return errno(unix.EAGAIN)
		}
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
	switch ev {
	case eventStop:
		info = sigInfo{Code: cldStopped, Fields: [2]uint64{uint64(uint32(proc.Procs[z].PID)), uint64(lprocs[z].StopSig)}}
	case eventCont:
		info = sigInfo{Code: cldContinued, Fields: [2]uint64{uint64(uint32(proc.Procs[z].PID)), uint64(sigCONT)}}
	}
	// Collected first, then written (the rusage, then the siginfo), as
	// Linux's waitid writes them after kernel_waitid: a bad pointer
	// answers EFAULT with the zombie reaped or the report taken.
	var usage unix.Rusage
	ru := uintptr(f.X[4])
	if !answerRoom(t, ru, unsafe.Sizeof(usage)) || !answerRoom(t, infop, siginfoSize) {
		return 0 // runs again once memory is back
	}
	if ru != 0 {
		usage = childRusage(z)
	}
	keep := opts&unix.WNOWAIT != 0
	eventStatus(z, ev, keep)
	if ev == eventExit && !keep {
		reapTimes(z)
		proc.Reap(z)
	}
	if ru != 0 && !copyRusage(ru, &usage) {
		return errno(unix.EFAULT)
	}
	if infop != 0 && !putWaitInfo(infop, sigCHLD, info) {
		return errno(unix.EFAULT)
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
