package linux

import (
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"
	"github.com/gometal/gometal/sched/trace"

	"golang.org/x/sys/unix"
)

// Signals the Linux way, on bare metal (kernel/signal.c and
// arch/arm64/kernel/signal.c are the reference).
//
// Posting makes a signal pending on one thread: the one named by tgkill,
// or for kill any thread that does not block it. When every thread blocks
// it, it waits in the process's own pending set until one unblocks it. A
// target running on another core is sent an SGI, which makes that core
// enter the kernel and deliver on its way back to EL0; this is how the Go
// runtime's preemption request (tgkill SIGURG) becomes an interrupt. A
// target blocked in a syscall is woken with EINTR, and the call is
// restarted after the handler when SA_RESTART says so (sigpolicy.go).
//
// Delivery runs on every return to EL0 (finishTrap): the first deliverable
// signal with a handler gets an rt_sigframe (sigframe_arm64.go); an
// ignored one is dropped; one whose default action terminates ends the app
// with a report.

type sigaction struct {
	handler  uint64
	flags    uint64
	restorer uint64
	mask     uint64
}

// The handler table and the signals pending for the process as a whole
// (those every thread blocked when they were sent; the first thread to
// unblock one takes it) are per process: sighand_arm64.go.

// Counters for the stats switch (printStats).
var (
	sigDelivered   [nsig]uint64 // handler frames built, per signal
	sigKicks       uint64       // SGIs sent so another core delivers a signal (SIGURG: preemption)
	sigInterrupted uint64       // blocking syscalls cut short by a signal
	sigRestarted   uint64       // of those, restarted after the handler (SA_RESTART)
)

// userInfo is the siginfo of a signal t sends (or the kernel sends on
// its behalf, like SIGPIPE): si_pid is t's process, si_uid 0 (root).
func userInfo(t *sched.Thread, code int32) sigInfo {
	return sigInfo{Code: code, Fields: [2]uint64{uint64(uint32(pidOf(t)))}}
}

// Which way each access to the signal state goes. Two system calls
// change it without the kernel lock (unlockedsignal_arm64.go): a tgkill
// to a thread that is running or runnable (the Go runtime's preemption
// request) makes a signal pending on it, and rt_sigreturn puts back its
// caller's mask. So a pending bit is set and taken, a mask that may let
// a signal through is written, and the rt_sigtimedwait set and the
// handler table are changed, under sched.SignalLock (and the kernel lock
// besides, but for those two calls); and each side reads the other's
// half after writing its own: a sender sets the bit and then reads the
// mask, under the lock, and gets the thread to deliver if it may
// (signalWake, an SGI); a thread that unmasks reads the pending sets
// after, and delivers what it finds. Either the sender sees the new
// mask or the thread sees the bit. A mask that only grows (a handler's
// sa_mask, written by buildSigframe as the frame is built) needs no
// lock: a sender that reads the old one sends an SGI to spare. Reads
// that only decide whether to look (signalsPending, the check after a
// blocking call) take none: a bit they miss came with an SGI.

// lockSignals takes sched.SignalLock for the calling core.
func lockSignals() { sched.LockObject(&sched.SignalLock) }

// unlockSignals releases sched.SignalLock.
func unlockSignals() { sched.SignalLock.Unlock() }

// What a signal just made pending (queueSignal) asks of its thread.
const (
	wakeNone    = iota // nothing: blocked, ignored, or not queued
	wakeWaiter         // end its rt_sigtimedwait, which takes it
	wakeDeliver        // deliver it soon (signalWake)
)

// postSignal makes sig pending on t and sees that it is delivered soon.
func postSignal(t *sched.Thread, sig int, info sigInfo) {
	if sig <= 0 || sig >= nsig {
		return
	}
	prepareSignal(lx(t).Proc, sig)
	lockSignals()
	w := queueSignal(t, sig, info)
	unlockSignals()
	wakeFor(t, w)
}

// queueSignal makes sig pending on t and says what t must be asked to
// do (wakeFor, after SignalLock: ending a FIFO open's wait takes a
// pipe's lock, which ranks below it). SignalLock is held.
func queueSignal(t *sched.Thread, sig int, info sigInfo) int {
	bit := sigBit(sig)
	l := lx(t)
	if l.SigWait&bit != 0 && t.State == sched.Blocked && t.Wait == sched.WaitSignal {
		// rt_sigtimedwait takes it on its way out (takeWaited).
		pend(t, l, sig, info)
		return wakeWaiter
	}
	if l.SigMask&bit == 0 && ignored(sig, actionsOf(t)[sig].handler) {
		return wakeNone
	}
	pend(t, l, sig, info)
	if l.SigMask&bit == 0 {
		return wakeDeliver
	}
	return wakeNone
}

// pend makes sig pending on thread t (its Linux state l): a standard
// signal already pending merges with it, a real-time one waits behind
// it (sigqueue_arm64.go).
func pend(t *sched.Thread, l *lthread, sig int, info sigInfo) {
	bit := sigBit(sig)
	if l.SigPending&bit != 0 {
		if isRT(sig) {
			queueBehind(t, 0, sig, info)
		}
		return
	}
	l.SigPending |= bit
	l.SigInfo[sig] = info
}

// wakeFor asks t what queueSignal found it must do (w).
func wakeFor(t *sched.Thread, w int) {
	switch w {
	case wakeWaiter:
		sched.Wake(t, 0)
	case wakeDeliver:
		signalWake(t)
	}
}

// signalWake gets a deliverable signal to t: an SGI to the core it runs
// on, or the end of the wait it is blocked in.
//
// Changes of t's state happen without the kernel lock: a FUTEX_WAKE
// ends a futex wait, a pipe or eventfd written on another core retries
// a file or epoll wait (unlockedio_arm64.go), waits on those begin
// without it, and a core leaving WFI picks a runnable thread and returns
// it to EL0 without delivering signals when it saw none pending (sched's
// idle, kernel.OS.Pending). So the decision and what follows are made
// under sched.StateLock, which all of them hold: a wait is ended once,
// by one of them; and either t was picked first, is Running here and
// gets the SGI, or the picking core's StateLock comes after ours and
// sees the signal we made pending before it. A FIFO's open is the one
// wait only a kernel-lock holder ends (a FIFO's pipe is never written
// without it), and giving its end back takes the pipe's lock, which
// ranks below StateLock: it is ended outside.
func signalWake(t *sched.Thread) {
	if t.State == sched.Blocked && lx(t).FIFOWait != 0 {
		sched.Wake(t, interruptResult(t))
		return
	}
	sched.LockState()
	switch t.State {
	case sched.Blocked:
		// A vfork parent waits for its child whatever comes
		// (TASK_KILLABLE; only its group's end, dieWake, ends it),
		// and a reader for the disk (it comes back soon).
		if t.Wait != sched.WaitNone && !killableOnly(t.Wait) {
			// A futex wait moved no bytes; a file wait may have
			// (t.Progress), and a pipe written without the kernel lock
			// may be retrying it right now: StateLock decides.
			sched.WakeLocked(t, interruptResult(t))
		}
	case sched.Running:
		if int(t.CPU) != kernel.ThisCPU().ID {
			sigKicks++
			sched.Kick(int(t.CPU))
		}
	}
	sched.UnlockState()
}

// killableOnly says whether a wait of kind w is one no signal ends but
// its process's end (Linux's TASK_KILLABLE): a vfork parent's, an
// execve's, a stopped thread's, a read waiting for the disk
// (folio_lock_killable: a disk read is not given up for a handler), and
// an I2C transfer (Linux's waits uninterruptibly; here SIGKILL ends the
// wait and the transfer frees the bus when it ends: I2CAbandon).
func killableOnly(w sched.WaitKind) bool {
	return w == sched.WaitVfork || w == sched.WaitExec || w == sched.WaitStopped || w == sched.WaitDisk || w == sched.WaitDevice
}

// cancelWait ends the wait t's system call just blocked in, for a
// signal already pending: with EINTR (or the bytes a write had moved:
// interruptResult), unless a waker without the kernel lock ended it
// first (a FUTEX_WAKE on another core: the wait returns 0 as woken, as
// on Linux; a Notify from a pipe written under its own lock: the call
// runs again). A FIFO's open is ended only under the kernel lock, and
// interruptResult takes its pipe's lock, so it is cancelled outside
// StateLock.
func cancelWait(t *sched.Thread, f *sched.Frame) {
	if lx(t).FIFOWait != 0 {
		r := interruptResult(t) // before CancelBlock clears the deadline
		sched.CancelBlock(t)
		f.X[0] = r
		return
	}
	sched.LockState()
	if t.State == sched.Blocked && (lx(t).Dying || !killableOnly(t.Wait)) {
		r := interruptResult(t)
		sched.CancelBlockLocked(t)
		f.X[0] = r
	}
	sched.UnlockState()
}

// interruptResult ends t's blocked system call for a signal: with the
// bytes it had already moved (a blocking write that took part of its
// buffer returns that count, as Linux's pipe_write does), or else with
// EINTR, recorded so that the way back to EL0 restarts the call or leaves
// the EINTR (settleInterrupted).
func interruptResult(t *sched.Thread) uint64 {
	dropFIFOWait(t)
	if n := t.Progress; n > 0 {
		t.Progress = 0
		return n
	}
	markInterrupted(t)
	return errno(unix.EINTR)
}

// markInterrupted records that t's syscall ends early for a signal, with
// the time its deadline still had (nanosleep reports it).
func markInterrupted(t *sched.Thread) {
	lx(t).Interrupted = true
	lx(t).IntrLeft = 0
	if now := timer.Now(); t.Deadline > now {
		lx(t).IntrLeft = t.Deadline - now
	}
	sigInterrupted++
}

// postProcessSignal sends sig to process p (kill, the console's
// Ctrl-C): to a thread of it waiting for it in rt_sigtimedwait, else to
// prefer (one of its threads, or nil) if it does not block it, else to
// any of its threads that does not; if all block it, it stays pending
// for the process.
func postProcessSignal(p int32, sig int, info sigInfo, prefer *sched.Thread) {
	prepareSignal(p, sig)
	bit := sigBit(sig)
	lockSignals() // the masks it reads, and the pending set it may write
	var target *sched.Thread
	if prefer != nil && lx(prefer).SigMask&bit == 0 {
		target = prefer
	}
	for i := range sched.Active() {
		o := &sched.Threads[i]
		if !liveIn(o, p) {
			continue
		}
		if o.State == sched.Blocked && o.Wait == sched.WaitSignal && lx(o).SigWait&bit != 0 {
			target = o
			break
		}
		if target == nil && lx(o).SigMask&bit == 0 {
			target = o
		}
	}
	w := wakeNone
	if target != nil {
		w = queueSignal(target, sig, info)
	} else if lprocs[p].Pending&bit == 0 {
		lprocs[p].Pending |= bit
		lprocs[p].Info[sig] = info
	} else if isRT(sig) {
		queueBehind(nil, p, sig, info)
	}
	unlockSignals()
	if target != nil {
		wakeFor(target, w)
	}
}

// postFault posts a synchronous signal for a fault at pc. A fault signal
// that is blocked or ignored cannot be delivered, and Linux then kills the
// process; so does gometal.
func postFault(t *sched.Thread, f *sched.Frame, sig int, code int32, addr uint64) {
	a := &actionsOf(t)[sig]
	if lx(t).SigMask&sigBit(sig) != 0 || a.handler == sigIGN {
		killCurrent(t, f, sig, uintptr(addr))
		return
	}
	postSignal(t, sig, sigInfo{Code: code, Fields: [2]uint64{addr}})
}

// killCurrent ends t's process for a signal with no handler, as Linux
// would (killProcess); PID 1 ends the run with a report a person can act
// on.
func killCurrent(t *sched.Thread, f *sched.Frame, sig int, addr uintptr) {
	if lx(t).Proc == proc.Init {
		killApp(sig, addr, f.PC)
	}
	killProcess(lx(t).Proc, sig)
	f.PC = threadExitVA // t is Dying too: out through exit, on this core
}

// killProcess ends process p for signal sig (SIGKILL, or a signal whose
// default action ends it): every thread leaves, and its parent learns
// the signal from its wait status. PID 1's end ends the run (killApp).
func killProcess(p int32, sig int) {
	if p == proc.Init {
		killApp(sig, 0, 0)
	}
	endGroup(p, proc.Signaled(sig, false), nil)
}

// killApp ends the run for a signal PID 1 has no handler for, with a
// report a person can act on, and exit status 128+sig (what a shell
// reports: 130 for SIGINT).
func killApp(sig int, addr uintptr, pc uint64) {
	kernel.Puts("gometal: app killed by ")
	kernel.Puts(signalName(sig))
	kernel.Puts(" (signal ")
	kernel.PutDec(int64(sig))
	kernel.Puts(") addr=")
	kernel.PutHex(uint64(addr))
	kernel.Puts(" pc=")
	kernel.PutHex(pc)
	kernel.Puts("\n")
	appExit(128 + sig)
}

func signalName(sig int) string {
	switch sig {
	case sigHUP:
		return "SIGHUP"
	case sigINT:
		return "SIGINT"
	case sigQUIT:
		return "SIGQUIT"
	case sigILL:
		return "SIGILL"
	case sigTRAP:
		return "SIGTRAP"
	case sigABRT:
		return "SIGABRT"
	case sigBUS:
		return "SIGBUS"
	case sigFPE:
		return "SIGFPE"
	case sigKILL:
		return "SIGKILL"
	case sigUSR1:
		return "SIGUSR1"
	case sigSEGV:
		return "SIGSEGV"
	case sigUSR2:
		return "SIGUSR2"
	case sigPIPE:
		return "SIGPIPE"
	case sigALRM:
		return "SIGALRM"
	case sigTERM:
		return "SIGTERM"
	case sigURG:
		return "SIGURG"
	case sigSTOP:
		return "SIGSTOP"
	case sigTSTP:
		return "SIGTSTP"
	case sigPROF:
		return "SIGPROF"
	case sigSYS:
		return "SIGSYS"
	}
	if sig >= sigRTMIN {
		return "a real-time signal"
	}
	return "a signal"
}

// signalsPending is the personality's Pending: whether deliverSignals
// has anything to do for t (finish an rt_sigtimedwait, take a signal t
// does not block, settle a call a signal cut short, put back
// rt_sigsuspend's mask).
func signalsPending(t *sched.Thread) bool {
	l := lx(t)
	sh := sharedOf(t)
	return l.SigWait != 0 || (l.SigPending|sh.Pending)&^l.SigMask != 0 || l.Interrupted || l.HasSavedMask || l.Dying || sh.Stopped
}

// deliverSignals runs on every return to EL0: it finishes an
// rt_sigtimedwait, builds the frame for the first deliverable signal with
// a handler, drops ignored ones, and ends the app for ones whose default
// action is to terminate. It also settles a syscall a signal cut short:
// restarted (SA_RESTART, or no handler ran after all) or left with EINTR.
func deliverSignals(t *sched.Thread, f *sched.Frame) (stop bool) {
	l := lx(t) // once: this runs on every return to EL0
	if l.Dying {
		// Its thread group is ending: it calls exit as its next
		// instruction (the trampoline page's exit stub), so it leaves
		// through exit's own path, on its own core.
		f.PC = threadExitVA
		return false
	}
	shared := sharedOf(t)
	if shared.Stopped {
		return true // its process is stopped (jobcontrol_arm64.go)
	}
	if l.SigWait != 0 {
		takeWaited(t, f)
	}
	for {
		// A look without the lock first: this runs on every return to
		// EL0, and a bit set after it came with an SGI.
		if (l.SigPending|shared.Pending)&^l.SigMask == 0 {
			break
		}
		sig, info, ok := dequeueSignal(t, ^l.SigMask)
		if !ok {
			break
		}
		a := &actionsOf(t)[sig]
		if a.handler == sigIGN || a.handler == sigDFL && defaultIgnored(sig) {
			continue
		}
		if a.handler == sigDFL && defaultStops(sig) {
			// SIGTSTP, SIGTTIN and SIGTTOU do nothing in an orphaned
			// group, which nobody would continue; SIGSTOP always
			// stops (Linux's get_signal).
			if sig != sigSTOP && proc.OrphanedGroup(procOf(t).PGID, -1) {
				continue
			}
			stopProcess(t, sig)
			return true
		}
		if a.handler == sigDFL {
			addr := uintptr(0)
			if sigSynchronous&sigBit(sig) != 0 {
				addr = uintptr(info.Fields[0])
			}
			killCurrent(t, f, sig, addr)
			return false
		}
		if l.Interrupted {
			settleInterrupted(t, f, a.flags)
		}
		if t.Retried {
			settleRetry(t, f)
		}
		if !buildSigframe(t, f, sig, &info, a) {
			// No room for the frame: Linux forces SIGSEGV.
			killCurrent(t, f, sigSEGV, uintptr(f.SP))
			return false
		}
		sigDelivered[sig]++
		trace.Record(int(t.CPU), trace.KindSignal, 0, uint16(sig), uint32(t.TID))
		return false
	}
	// No handler runs: a cut-short call that SA_RESTART would restart is
	// restarted (Linux restarts -ERESTARTSYS calls when no handler runs),
	// and rt_sigsuspend's mask is put back.
	if l.Interrupted {
		settleInterrupted(t, f, saRestart)
	}
	if l.HasSavedMask {
		lockSignals()
		l.SigMask = l.SavedMask
		unlockSignals()
		l.HasSavedMask = false
	}
	return false
}

// settleRetry runs before a handler's frame is built for a thread that a
// Notify set to run its system call again (sched.Retry) and that has not
// run it yet: the handler's own system calls must not see the retry
// (t.Retried, t.Progress). A call that had already moved bytes completes
// with that count (the SVC is skipped); any other runs afresh when the
// handler returns, as if the signal had come before the wake-up.
func settleRetry(t *sched.Thread, f *sched.Frame) {
	t.Retried = false
	dropFIFOWait(t) // the open runs afresh, and counts its end again
	if n := t.Progress; n > 0 {
		t.Progress = 0
		f.X[0] = n
		f.PC += sched.SVCSize
	}
}

// settleInterrupted decides, before a handler's frame is built (the frame
// saves the registers sigreturn restores), whether the syscall that a
// signal cut short runs again: PC back to the SVC and X0 back to the first
// argument, as arm64 Linux does; otherwise it returns EINTR, and a
// nanosleep writes the time it had left.
func settleInterrupted(t *sched.Thread, f *sched.Frame, saFlags uint64) {
	lx(t).Interrupted = false
	args := [6]uint64{t.OrigX0, f.X[1], f.X[2], f.X[3], f.X[4], f.X[5]}
	if restartsAfterHandler(t.SysNr, &args, saFlags) {
		f.X[0] = t.OrigX0
		f.PC -= sched.SVCSize
		sigRestarted++
		return
	}
	var rem uintptr
	switch t.SysNr {
	case unix.SYS_NANOSLEEP:
		rem = uintptr(f.X[1])
	case unix.SYS_CLOCK_NANOSLEEP:
		if f.X[1]&unix.TIMER_ABSTIME == 0 {
			rem = uintptr(f.X[3])
		}
	}
	if rem != 0 {
		writeTimespec(rem, timer.TicksToNanos(lx(t).IntrLeft))
	}
}

// takeWaited finishes an rt_sigtimedwait: a signal of the awaited set
// that is pending now is taken off the pending sets, its siginfo written
// to the app and its number returned; if none is (the timeout ran out),
// the call returns what the timeout set (EAGAIN), or EINTR for a signal
// outside the set.
func takeWaited(t *sched.Thread, f *sched.Frame) {
	set := lx(t).SigWait
	lockSignals()
	lx(t).SigWait = 0
	unlockSignals()
	if r, ok := takePending(t, set, lx(t).SigWaitInfo); ok {
		f.X[0] = r
		lx(t).Interrupted = false
	}
}

// takePending removes the first signal of set pending for t (its own
// first, then the process's) and writes its siginfo to infoAddr (if not
// 0). ok is false when none is pending; the result is -EFAULT when the
// siginfo could not be written.
func takePending(t *sched.Thread, set uint64, infoAddr uintptr) (uint64, bool) {
	sig, info, ok := dequeueSignal(t, set)
	if !ok {
		return 0, false
	}
	return writeTaken(sig, &info, infoAddr), true
}

// writeTaken is the result of a signal taken by rt_sigtimedwait: its
// number, its siginfo written to infoAddr (if not 0) first, or -EFAULT
// when that could not be written.
func writeTaken(sig int, info *sigInfo, infoAddr uintptr) uint64 {
	if infoAddr != 0 {
		var b [siginfoSize]byte
		putSiginfo(b[:], sig, info)
		if !usermem.CopyOut(infoAddr, b[:]) {
			return errno(unix.EFAULT)
		}
	}
	return uint64(sig)
}

// dequeueSignal takes the first signal of set pending for t, its own
// before the process's, off its pending set (ok false: none is).
func dequeueSignal(t *sched.Thread, set uint64) (sig int, info sigInfo, ok bool) {
	lockSignals()
	sig, info, ok = dequeueSignalLocked(t, set)
	unlockSignals()
	return sig, info, ok
}

// dequeueSignalLocked is dequeueSignal for a caller that holds
// SignalLock.
func dequeueSignalLocked(t *sched.Thread, set uint64) (sig int, info sigInfo, ok bool) {
	l := lx(t)
	switch {
	case l.SigPending&set != 0:
		sig = nextSignal(l.SigPending & set)
		info = l.SigInfo[sig]
		if !isRT(sig) || !nextQueued(sched.Index(t)+1, 0, sig, &l.SigInfo[sig]) {
			l.SigPending &^= sigBit(sig)
		}
		return sig, info, true
	case sharedOf(t).Pending&set != 0:
		s := sharedOf(t)
		sig = nextSignal(s.Pending & set)
		info = s.Info[sig]
		if !isRT(sig) || !nextQueued(0, lx(t).Proc+1, sig, &s.Info[sig]) {
			s.Pending &^= sigBit(sig)
		}
		return sig, info, true
	}
	return 0, sigInfo{}, false
}

// putSiginfo fills a siginfo: si_signo, si_errno (0), si_code, then the
// union at offset 16.
func putSiginfo(b []byte, sig int, info *sigInfo) {
	put32(b, 0, uint32(sig))
	put32(b, 8, uint32(info.Code))
	put64(b, 16, info.Fields[0])
	put64(b, 24, info.Fields[1])
}
