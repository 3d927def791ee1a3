package linux

import (
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"unsafe"

	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Signal syscalls: handlers, masks, the alternate stack, sending
// (kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo) and waiting
// (rt_sigpending, rt_sigsuspend, rt_sigtimedwait). Posting and delivery
// are in signal_arm64.go.

// sigsetSize is the only sigset size arm64 Linux accepts (64 signals).
const sigsetSize = 8

func sysRtSigaction(t *sched.Thread, f *sched.Frame) uint64 {
	sig := int(f.X[0])
	if sig <= 0 || sig >= nsig || f.X[3] != sigsetSize {
		return errno(unix.EINVAL)
	}
	if old := uintptr(f.X[2]); old != 0 {
		a := actionsOf(t)[sig]
		if !usermem.CopyOut(old, usermem.BytesOf(unsafe.Pointer(&a), unsafe.Sizeof(a))) {
			return errno(unix.EFAULT)
		}
	}
	if act := uintptr(f.X[1]); act != 0 {
		if sig == sigKILL || sig == sigSTOP {
			return errno(unix.EINVAL)
		}
		var a sigaction
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&a), unsafe.Sizeof(a)), act) {
			return errno(unix.EFAULT)
		}
		a.mask &^= sigUnblockable
		lockSignals() // an unlocked tgkill reads the handler
		actionsOf(t)[sig] = a
		unlockSignals()
	}
	return 0
}

func sysRtSigprocmask(t *sched.Thread, f *sched.Frame) uint64 {
	how, set, old := f.X[0], uintptr(f.X[1]), uintptr(f.X[2])
	if f.X[3] != sigsetSize {
		return errno(unix.EINVAL)
	}
	prev := lx(t).SigMask
	if set != 0 {
		m, ok := usermem.ReadU64(set)
		if !ok {
			return errno(unix.EFAULT)
		}
		next := prev
		switch how {
		case unix.SIG_BLOCK:
			next |= m
		case unix.SIG_UNBLOCK:
			next &^= m
		case unix.SIG_SETMASK:
			next = m
		default:
			return errno(unix.EINVAL)
		}
		setSigMask(t, next)
	}
	if old != 0 && !usermem.WriteU64(old, prev) {
		setSigMask(t, prev)
		return errno(unix.EFAULT)
	}
	return 0
}

// setSigMask makes m (less what cannot be blocked) t's signal mask,
// under SignalLock: a signal it lets through is then either seen pending
// by t on its way out (deliverSignals) or sent by a sender that saw the
// new mask (signal_arm64.go).
func setSigMask(t *sched.Thread, m uint64) {
	lockSignals()
	lx(t).SigMask = m &^ sigUnblockable
	unlockSignals()
}

const minSigStackSize = 5120 // MINSIGSTKSZ on arm64

func sysSigaltstack(t *sched.Thread, f *sched.Frame) uint64 {
	ss, old := uintptr(f.X[0]), uintptr(f.X[1])
	if old != 0 {
		o := stackT{SP: lx(t).AltSP, Size: lx(t).AltSize}
		if lx(t).AltSize == 0 {
			o.Flags = ssDisable
		} else if onAltStack(t, f.SP) {
			o.Flags = ssOnStack
		}
		if !usermem.CopyOut(old, usermem.BytesOf(unsafe.Pointer(&o), unsafe.Sizeof(o))) {
			return errno(unix.EFAULT)
		}
	}
	if ss != 0 {
		var n stackT
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&n), unsafe.Sizeof(n)), ss) {
			return errno(unix.EFAULT)
		}
		if onAltStack(t, f.SP) {
			return errno(unix.EPERM)
		}
		switch n.Flags {
		case ssDisable:
			lx(t).AltSP, lx(t).AltSize = 0, 0
		case 0:
			if n.Size < minSigStackSize {
				return errno(unix.ENOMEM)
			}
			lx(t).AltSP, lx(t).AltSize = n.SP, n.Size
		default:
			return errno(unix.EINVAL)
		}
	}
	return 0
}

// Sending.

// validSignal says whether sig may be sent (0 only probes).
func validSignal(sig int) bool { return sig >= 0 && sig < nsig }

// checkTgid validates a thread-group id: a live process's, or ESRCH.
func checkTgid(tgid int64) uint64 {
	if tgid <= 0 || int64(int32(tgid)) != tgid {
		return errno(unix.EINVAL)
	}
	if p := proc.ByPID(int32(tgid)); p < 0 || proc.Procs[p].State != proc.Live {
		return errno(unix.ESRCH)
	}
	return 0
}

// send posts a valid signal to process p (target nil) or to one of its
// threads, for t (nil: the kernel's own). Signal 0 only checks that the
// target exists; SIGKILL cannot be caught, blocked or ignored, and ends
// the process at once.
func send(t *sched.Thread, p int32, target *sched.Thread, sig int, info sigInfo) uint64 {
	switch {
	case sig == 0:
	case sig == sigKILL:
		killProcess(p, sig)
	case target == nil:
		prefer := t
		if t != nil && lx(t).Proc != p {
			prefer = nil
		}
		postProcessSignal(p, sig, info, prefer)
	default:
		postSignal(target, sig, info)
	}
	return 0
}

// kill(2): pid > 0 is that process; 0 the caller's process group; -1
// every process but PID 1 and the caller; below -1 the group -pid. A
// PID nobody has, or a group with no process in it, is ESRCH; a
// zombie's PID succeeds and changes nothing, as on Linux (its threads
// are gone).
func sysKill(t *sched.Thread, f *sched.Frame) uint64 {
	pid, sig := int32(f.X[0]), int(f.X[1])
	if !validSignal(sig) {
		return errno(unix.EINVAL)
	}
	info := userInfo(t, siUSER)
	if pid > 0 {
		p := proc.ByPID(pid)
		if p < 0 {
			return errno(unix.ESRCH)
		}
		if proc.Procs[p].State != proc.Live {
			return 0 // a zombie: nothing to signal, and no error
		}
		return send(t, p, nil, sig, info)
	}
	if pid == -1<<31 {
		return errno(unix.ESRCH) // -INT_MIN has no positive group (kill_something_info)
	}
	if pid != -1 {
		group := -pid
		if pid == 0 {
			group = procOf(t).PGID
		}
		if !killGroup(group, sig, info, t) {
			return errno(unix.ESRCH)
		}
		return 0
	}
	me := lx(t).Proc
	found := false
	for i := range proc.Procs {
		p := int32(i)
		if proc.Procs[i].State != proc.Live || p == me || p == proc.Init {
			continue
		}
		found = true
		send(t, p, nil, sig, info)
	}
	if !found {
		return errno(unix.ESRCH)
	}
	return 0
}

// killGroup sends sig to every live process of group pgid, for t (nil:
// the kernel: the console's signals) and says whether there was one
// (Linux's __kill_pgrp_info). The caller's own process comes last: a
// SIGKILL to it must not stop the sending before the others have
// theirs; in it, t takes the signal if it does not block it.
func killGroup(pgid int32, sig int, info sigInfo, t *sched.Thread) bool {
	me := int32(-1)
	if t != nil {
		me = lx(t).Proc
	}
	found := false
	for i := range proc.Procs {
		p := int32(i)
		if proc.Procs[i].State != proc.Live || proc.Procs[i].PGID != pgid {
			continue
		}
		found = true
		if p != me {
			send(t, p, nil, sig, info)
		}
	}
	if me >= 0 && proc.Procs[me].PGID == pgid {
		send(t, me, nil, sig, info)
	}
	return found
}

// threadSignal sends sig to thread tid with info; tgid, if not 0, is the
// process it must belong to.
func threadSignal(t *sched.Thread, tgid, tid int64, sig int, info sigInfo) uint64 {
	if tid <= 0 || int64(int32(tid)) != tid || !validSignal(sig) {
		return errno(unix.EINVAL)
	}
	target := sched.ByTID(int32(tid))
	if target == nil || tgid != 0 && int64(pidOf(target)) != tgid {
		return errno(unix.ESRCH)
	}
	return send(t, lx(target).Proc, target, sig, info)
}

func sysTkill(t *sched.Thread, f *sched.Frame) uint64 {
	return threadSignal(t, 0, int64(f.X[0]), int(f.X[1]), userInfo(t, siTKILL))
}

func sysTgkill(t *sched.Thread, f *sched.Frame) uint64 {
	if e := checkTgid(int64(f.X[0])); e != 0 {
		return e
	}
	return threadSignal(t, int64(f.X[0]), int64(f.X[1]), int(f.X[2]), userInfo(t, siTKILL))
}

// readQueuedInfo reads the siginfo rt_sigqueueinfo passes: the app
// chooses si_code and the union (si_pid, si_uid, si_value), within
// impersonates' limits.
func readQueuedInfo(addr uintptr) (sigInfo, uint64) {
	var b [siginfoSize]byte
	if !usermem.CopyIn(b[:], addr) {
		return sigInfo{}, errno(unix.EFAULT)
	}
	return sigInfo{Code: int32(get32(b[:], 8)), Fields: [2]uint64{get64(b[:], 16), get64(b[:], 24)}}, 0
}

// impersonates says a queued siginfo sent to tid claims to come from the
// kernel (si_code >= 0) or from tgkill (SI_TKILL), which Linux allows a
// thread only towards itself: "Not even root can pretend to send signals
// from the kernel. Nor can they impersonate a kill()/tgkill(), which adds
// source info" (do_rt_sigqueueinfo, do_rt_tgsigqueueinfo; EPERM). Itself
// is its thread ID, even for rt_sigqueueinfo's process ID.
func impersonates(t *sched.Thread, info *sigInfo, tid int64) bool {
	return (info.Code >= 0 || info.Code == siTKILL) && int64(t.TID) != tid
}

func sysRtSigqueueinfo(t *sched.Thread, f *sched.Frame) uint64 {
	pid, sig := int64(f.X[0]), int(f.X[1])
	info, e := readQueuedInfo(uintptr(f.X[2]))
	if e != 0 {
		return e
	}
	if impersonates(t, &info, int64(int32(pid))) {
		return errno(unix.EPERM)
	}
	// As kill_proc_info: no such process first, then a bad signal.
	p := proc.ByPID(int32(pid))
	if int32(pid) <= 0 || p < 0 || proc.Procs[p].State != proc.Live {
		return errno(unix.ESRCH)
	}
	if !validSignal(sig) {
		return errno(unix.EINVAL)
	}
	if isRT(sig) && sigQueueFull() {
		return errno(unix.EAGAIN) // RLIMIT_SIGPENDING reached
	}
	return send(t, p, nil, sig, info)
}

func sysRtTgsigqueueinfo(t *sched.Thread, f *sched.Frame) uint64 {
	info, e := readQueuedInfo(uintptr(f.X[3]))
	if e != 0 {
		return e
	}
	if int32(f.X[0]) <= 0 || int32(f.X[1]) <= 0 {
		return errno(unix.EINVAL) // only for one thread
	}
	if impersonates(t, &info, int64(int32(f.X[1]))) {
		return errno(unix.EPERM)
	}
	if e := checkTgid(int64(f.X[0])); e != 0 {
		return e
	}
	return threadSignal(t, int64(f.X[0]), int64(f.X[1]), int(f.X[2]), info)
}

// Waiting.

// readSigset reads a sigset argument of the given size: EINVAL for a size
// other than arm64's, EFAULT for a bad address.
func readSigset(addr uintptr, size uint64) (uint64, uint64) {
	if size != sigsetSize {
		return 0, errno(unix.EINVAL)
	}
	m, ok := usermem.ReadU64(addr)
	if !ok {
		return 0, errno(unix.EFAULT)
	}
	return m, 0
}

// sysRtSigpending reports the signals pending for the thread or the
// process that it blocks (an unblocked one would have been delivered).
func sysRtSigpending(t *sched.Thread, f *sched.Frame) uint64 {
	if f.X[1] != sigsetSize {
		return errno(unix.EINVAL)
	}
	if !usermem.WriteU64(uintptr(f.X[0]), (lx(t).SigPending|sharedOf(t).Pending)&lx(t).SigMask) {
		return errno(unix.EFAULT)
	}
	return 0
}

// sysRtSigsuspend replaces the mask and waits for a signal whose handler
// runs; it returns EINTR, and the old mask comes back when that handler
// returns (buildSigframe puts it in uc_sigmask).
func sysRtSigsuspend(t *sched.Thread, f *sched.Frame) uint64 {
	m, e := readSigset(uintptr(f.X[0]), f.X[1])
	if e != 0 {
		return e
	}
	lx(t).SavedMask, lx(t).HasSavedMask = lx(t).SigMask, true
	setSigMask(t, m)
	// No deadline: only a signal ends it. A signal already pending and
	// now unblocked ends it at once (syscall's check after the handler).
	sched.Block(t, sched.WaitSignal, 0, 0)
	return 0
}

// sysRtSigtimedwait takes a pending signal of the set, or waits for one
// until the timeout (EAGAIN). Signals of the set arriving meanwhile are
// taken, not handled, even if unblocked (postSignal wakes the waiter).
func sysRtSigtimedwait(t *sched.Thread, f *sched.Frame) uint64 {
	set, e := readSigset(uintptr(f.X[0]), f.X[3])
	if e != 0 {
		return e
	}
	set &^= sigUnblockable
	var deadline uint64
	poll := false
	if ts := uintptr(f.X[2]); ts != 0 {
		ns, e := readTimespec(ts)
		if e != 0 {
			return errno(e)
		}
		poll = ns == 0
		deadline = deadlineAfter(ns)
	}
	// Take a pending one, or say what this thread waits for, in one
	// SignalLock section: an unlocked tgkill (which leaves a thread
	// waiting for signals to the locked way) either came before and its
	// signal is taken here, or comes after and sees SigWait.
	lockSignals()
	sig, info, ok := dequeueSignalLocked(t, set)
	if !ok && !poll {
		lx(t).SigWait = set
		lx(t).SigWaitInfo = uintptr(f.X[1])
	}
	unlockSignals()
	switch {
	case ok:
		return writeTaken(sig, &info, uintptr(f.X[1]))
	case poll:
		return errno(unix.EAGAIN)
	}
	sched.Block(t, sched.WaitSignal, deadline, errno(unix.EAGAIN))
	return 0
}
