package linux

import (
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/sched"
)

// Stopping and continuing a process (Linux's kernel/signal.c:
// do_signal_stop, prepare_signal's SIGCONT, do_notify_parent_cldstop).
// A stop signal whose action is the default (SIGSTOP always) stops the
// whole process: the thread that takes it stops on its way back to EL0,
// and every other one is woken or kicked into the kernel to stop there
// too (a system call it was blocked in restarts once it goes on, as
// after a signal with no handler). The stopped threads wait in
// sched.WaitStopped until SIGCONT, which is acted on when it is sent,
// blocked or not, and wakes each with its own X0. The parent hears of
// both (SIGCHLD with CLD_STOPPED or CLD_CONTINUED unless SA_NOCLDSTOP,
// and wait4's WUNTRACED / WCONTINUED, waitid's WSTOPPED / WCONTINUED).

// sigStops are the signals whose default action is to stop (signal(7)).
const sigStops = 1<<(sigSTOP-1) | 1<<(sigTSTP-1) | 1<<(sigTTIN-1) | 1<<(sigTTOU-1)

func defaultStops(sig int) bool { return sigStops&sigBit(sig) != 0 }

// stopProcess stops t's process for sig, which t has just taken with
// its default action.
func stopProcess(t *sched.Thread, sig int) {
	p := lx(t).Proc
	lp := &lprocs[p]
	if lp.Stopped || lp.Exiting {
		return
	}
	lp.Stopped, lp.StopSig = true, int32(sig)
	lp.StopReport, lp.ContReport = true, false
	procStats.Stops++
	for i := range sched.Active() {
		o := &sched.Threads[i]
		if o != t && liveIn(o, p) {
			signalWake(o)
		}
	}
	notifyParentStop(p, cldStopped, sig)
}

// prepareSignal acts on a signal as it is sent to process p (Linux's
// prepare_signal): a stop signal drops a pending SIGCONT, and SIGCONT
// drops pending stop signals and continues a stopped process, whether
// or not it is blocked or caught.
func prepareSignal(p int32, sig int) {
	switch {
	case sig == sigCONT:
		dropPending(p, sigStops)
		continueProcess(p)
	case defaultStops(sig):
		dropPending(p, sigBit(sigCONT))
	}
}

// dropPending takes the signals of set off every pending set of p.
func dropPending(p int32, set uint64) {
	lockSignals()
	lprocs[p].Pending &^= set
	for i := range sched.Active() {
		o := &sched.Threads[i]
		if liveIn(o, p) {
			lx(o).SigPending &^= set
		}
	}
	unlockSignals()
}

// continueProcess lets a stopped p go on: each stopped thread is woken
// with the X0 it stopped with.
func continueProcess(p int32) {
	lp := &lprocs[p]
	if !lp.Stopped {
		return
	}
	lp.Stopped = false
	lp.StopReport, lp.ContReport = false, true
	for i := range sched.Active() {
		o := &sched.Threads[i]
		if o.State == sched.Blocked && o.Wait == sched.WaitStopped && lx(o).Proc == p {
			sched.Wake(o, o.Ctx.X[0])
		}
	}
	notifyParentStop(p, cldContinued, sigCONT)
}

// notifyParentStop tells p's parent that p stopped or went on: SIGCHLD
// unless its handler has SA_NOCLDSTOP, and a wake-up of its waits.
func notifyParentStop(p int32, code int32, sig int) {
	parent := proc.Procs[p].Parent
	if parent == proc.NoParent {
		return
	}
	act := &sigHands[proc.Procs[parent].SigHand].Actions[sigCHLD]
	if act.flags&saNoCldStop == 0 {
		info := sigInfo{Code: code, Fields: [2]uint64{uint64(uint32(proc.Procs[p].PID)), uint64(sig)}}
		postProcessSignal(parent, sigCHLD, info, nil)
	}
	lprocs[parent].ChildWait.Notify(childWaitEvents)
}
