package linux

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"
)

// The Go runtime preempts a goroutine that runs too long by sending its M
// SIGURG (preemptM: tgkill), and the handler returns through
// rt_sigreturn, having edited the frame so that the thread resumes in
// asyncPreempt. With every GC asking each running goroutine to stop, the
// two calls are among the commonest system calls a busy program makes,
// and each touches the signal state of one thread: so both are answered
// here without the kernel lock, under sched.SignalLock (signal_arm64.go
// says how the signal state is shared between the two ways), in the
// common case, and left to the locked way, before anything changed, in
// every other.

// unlockedSignals counts the calls answered here (the stats' signals
// line).
var unlockedSignals struct{ Sends, Returns uint64 }

// unlockedTgkill answers tgkill(2) without the kernel lock when it sends
// a signal to another thread of the app that is running or runnable and
// not in rt_sigtimedwait: the bit is set, and a thread running on
// another core that does not block the signal is sent an SGI, under
// SignalLock and then StateLock, as signalWake decides. A thread that is
// blocked (whose wait the signal may end), the caller itself (who must
// take the signal on this very way out), signal 0, SIGKILL and bad
// arguments go the locked way.
//
// Why the state check suffices: a running or runnable thread that
// blocks afterwards does so under StateLock, after this section, and
// then finds the bit, as every wait checks (the locked system call
// after it blocked, the lock-free ones before); one picked to run does
// too, on its way out (kernel.OS.Pending).
func unlockedTgkill(c *sched.CPU, t *sched.Thread, f *sched.Frame) bool {
	tgid, tid, sig := int64(f.X[0]), int64(f.X[1]), int(f.X[2])
	if tgid != int64(pidOf(t)) || sig == sigCONT || defaultStops(sig) || tid <= 0 || int64(int32(tid)) != tid || int32(tid) == t.TID || sig <= 0 || sig >= nsig || sig == sigKILL {
		return false
	}
	lockSignals()
	sched.LockState()
	target := sched.ByTID(int32(tid))
	ok := target != nil && lx(target).Proc == lx(t).Proc && (target.State == sched.Running || target.State == sched.Runnable) && lx(target).SigWait == 0
	if ok && queueSignal(target, sig, userInfo(t, siTKILL)) == wakeDeliver &&
		target.State == sched.Running && int(target.CPU) != c.ID {
		sigKicks++ // under StateLock, like signalWake's
		sched.Kick(int(target.CPU))
	}
	sched.UnlockState()
	unlockSignals()
	if !ok {
		return false
	}
	atomic.AddUint64(&unlockedSignals.Sends, 1)
	f.X[0] = 0
	return true
}

// sigreturnFrames holds each core's copy of the frame an unlocked
// rt_sigreturn reads (the locked way has sigframe).
var sigreturnFrames [cpu.MaxCPUs][sigreturnSize]byte

// unlockedSigreturn answers rt_sigreturn without the kernel lock when
// the frame is in memory already: it is read with the app's memory
// pinned (mm.Space.Pin: no munmap frees a page meanwhile) and only from
// pages that are present, so no fault is taken; a frame that is not (or
// is misaligned, which kills the app) goes the locked way. The mask it
// puts back may let a pending signal through: the way out then delivers
// it (lockFreeSyscall asks kernel.OS.Pending).
func unlockedSigreturn(c *sched.CPU, t *sched.Thread, f *sched.Frame) bool {
	sp := uintptr(f.SP)
	if sp&15 != 0 || !usermem.Cur().Pin(c.ID) {
		return false
	}
	b := sigreturnFrames[c.ID][:]
	ok := usermem.PeekIn(b, sp)
	usermem.Cur().Unpin(c.ID)
	if !ok {
		return false
	}
	// What syscall sets around every call: none is in progress after
	// this one, which does not block.
	beginCall(t, f)
	t.BlockedCall, t.Retried, t.Progress = false, false, 0
	restoreSigframe(t, f, b)
	atomic.AddUint64(&unlockedSignals.Returns, 1)
	return true
}
