package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/prof"
	"github.com/gometal/gometal/sched"
	"github.com/gometal/gometal/sched/trace"
)

// A few system calls need no kernel lock: they read or change only the
// calling thread and its own core (getpid, gettid, sched_yield when no
// other thread waits for this core; the personality's Unlocked picks
// them). trap answers them here, before sched.KernelLock, so a core
// making them never waits for, nor holds up, the other cores, and before
// the app's FP state is saved (saveFP), so they cost the general
// registers' save and restore only.
//
// What the locked way out does besides (finishTrap) has nothing to do
// for such a call:
//   - Schedule: the thread stays Running here. A thread another core puts
//     on this core's queue, or a change of this thread's affinity, comes
//     with a wake-up SGI (sched.enqueue, Kick), taken as soon as the ERET
//     unmasks interrupts, and that entry schedules.
//   - Signal delivery: a signal posted to a thread running on another core
//     comes with the same SGI (linux.signalWake).
//   - The timer: a call that does not block moves no deadline, so it stays
//     armed for what it was (the slice's end at the latest).
//
// Everything written here is this core's own: its CPU struct and
// counters, its trace ring, its profiler tables. Nothing on this path may
// use a vector register before saveFP: the app's are still in them
// (TestUnlockedPathUsesNoFP checks the compiled code).

// unlockedSyscall answers f's system call (esr: the exception's
// syndrome) without the lock if the personality says it may. handled
// reports whether it did; fpSaved,
// whether the app's FP state is now in f (the profiler's
// bookkeeping needs them as scratch), so the way out restores them.
func unlockedSyscall(c *sched.CPU, f *sched.Frame, esr uint64) (handled, fpSaved bool) {
	t, ok := svcEntry(c, esr)
	if !ok {
		return false, false
	}
	entered := profEntry()
	nr := f.X[8]
	if !OS.Unlocked(c, t, f) {
		return false, false
	}
	c.Stats.Unlocked++
	answered(c, t, nr, false)
	if prof.On() {
		saveFP(f)
		profUnlocked(c, t, f, entered, prof.ArgSyscall+uint32(nr))
		profExit(c)
		return true, true
	}
	return true, false
}

// svcEntry begins both ways of answering a system call without the
// kernel lock: ok reports whether the exception is an SVC at all; t is
// the calling thread. Small enough to inline (answered says why that
// matters); the caller reads profEntry next.
func svcEntry(c *sched.CPU, esr uint64) (t *sched.Thread, ok bool) {
	if cpu.EC(esr) != cpu.ECSVC64 {
		return nil, false
	}
	return sched.Current(c), true
}

// profEntry is the counter at a call's entry when profiling, or 0: only
// the profiler's bookkeeping needs it, and a counter read is not free
// under QEMU's TCG.
func profEntry() uint64 {
	if !prof.On() {
		return 0
	}
	return profNow()
}

//go:noinline
func profNow() uint64 { return timer.Now() }

// answered records a system call answered without the kernel lock: the
// core's last call (for lock-stuck reports) and its entry and exit in
// the kernel trace (blocked: the thread waits, as the locked way marks
// it).
func answered(c *sched.CPU, t *sched.Thread, nr uint64, blocked bool) {
	c.LastSyscall = nr
	if trace.On() {
		traceAnswered(c, t, nr, blocked)
	}
}

// traceAnswered records an answered call's entry and exit in the kernel
// trace. Apart from answered, so that answered inlines into the paths
// that call it: under QEMU's TCG each call's return is an indirect
// jump, looked up in a hash, and the getpid path made nine of them.
func traceAnswered(c *sched.CPU, t *sched.Thread, nr uint64, blocked bool) {
	var b uint8
	if blocked {
		b = 1
	}
	trace.Record(c.ID, trace.KindSyscall, 0, uint16(nr), uint32(t.TID))
	trace.Record(c.ID, trace.KindSysret, b, uint16(nr), uint32(t.TID))
}

// profUnlocked charges the sampling periods that ended before an entry
// handled without the kernel lock (a call answered so, an interrupt): no
// lock was waited for, so they were the app's; profExit then charges
// those since to activity (prof.Arg*).
func profUnlocked(c *sched.CPU, t *sched.Thread, f *sched.Frame, entered uint64, activity uint32) {
	c.Heartbeat = entered
	profEnter(c, t, f, entered)
	profActivity[c.ID] = activity
}

// lockFreeSyscall answers f's system call if the personality can
// without the kernel lock (a futex wake-up or wait, a pipe's read or
// write, a preemption signal's tgkill or rt_sigreturn). A call that
// does not block leaves the thread running and the timer as it was, like
// an unlocked call, unless the thread has a signal to take now; a thread it makes runnable on another core gets its
// SGI here, since no Release follows. A wait goes on as an interrupt
// does (finishTrap): Schedule picks the next thread, or the waiter
// itself if a waker got there first, with no kernel lock unless that
// thread has a signal to take. It reports whether it answered. Like an
// unlocked call it reads the counter only for the profiler, so a thread
// it wakes is stamped with this core's last kernel entry (Heartbeat, at
// most a slice old), which only the 10 s starvation watchdog reads.
// Never inlined: it runs after saveFP (TestUnlockedPathUsesNoFP tells
// the code before saveFP from the code after by function).
//
//go:noinline
func lockFreeSyscall(c *sched.CPU, f *sched.Frame, esr uint64) bool {
	t, ok := svcEntry(c, esr)
	if !ok {
		return false
	}
	entered := profEntry()
	nr := f.X[8]
	handled, blocked := OS.LockFree(c, t, f)
	if !handled {
		return false
	}
	c.Stats.LockFree++
	answered(c, t, nr, blocked)
	if prof.On() {
		profUnlocked(c, t, f, entered, prof.ArgSyscall+uint32(nr))
	}
	// A call that blocked schedules, in the state-lock section it
	// blocked in; so does one after which the thread has a signal to
	// take (an rt_sigreturn that put back a mask letting one through):
	// finishTrap takes the kernel lock for it.
	if blocked || OS.Pending(t) {
		if !prof.On() && !blocked {
			// Schedule's clock (a wait read it before it took the state
			// locks: sched.LockQueueToBlock)
			c.Heartbeat = timer.Now()
		}
		finishTrap(c, f, blocked) // and profExit, and Release's kicks
		return true
	}
	sched.SendKicks(c)
	if prof.On() {
		profExit(c)
	}
	return true
}

// lockFreeFault serves a page fault from EL0 without the kernel lock,
// if the personality can under the address space's lock alone (demand
// paging, copy-on-write: kernel/mm/space.go), so that the threads of
// one process fault in parallel and a fault never waits for another
// process's system calls. It reports whether it did; a fault it could
// not serve goes the locked way (a signal, memory out). A thread with a
// signal to take then gets it as after a lock-free call.
//
//go:noinline
func lockFreeFault(c *sched.CPU, f *sched.Frame, esr uint64) bool {
	ec := cpu.EC(esr)
	if ec != cpu.ECDABTLow && ec != cpu.ECIABTLow || OS.Fault == nil {
		return false
	}
	t := sched.Current(c)
	if t == nil {
		return false
	}
	entered := profEntry()
	if !OS.Fault(t, f, esr, cpu.ReadFAR()) {
		return false
	}
	c.Stats.Faults++
	if prof.On() {
		profUnlocked(c, t, f, entered, prof.ArgFault)
	}
	if OS.Pending(t) {
		if !prof.On() {
			c.Heartbeat = timer.Now() // Schedule's clock
		}
		finishTrap(c, f, false)
		return true
	}
	if prof.On() {
		profExit(c)
	}
	return true
}
