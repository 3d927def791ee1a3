package kernel

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/prof"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"
)

// trap is called by the entry assembly for every exception from EL0 with
// the interrupted context in f (on this core's kernel stack), all of it
// but the FP state (the vector registers, FPSR and FPCR), which is still
// the app's. A system call
// that needs neither the lock nor those registers is answered at once
// (unlocked_arm64.go); anything else first saves them into f (saveFP),
// since the kernel's own Go code uses them as scratch. Then a call that
// needs only the scheduler's lock is answered (lockFreeSyscall), an
// interrupt takes the kernel lock only if it needs it (interrupt), and
// everything else takes the kernel lock. The result tells the way out
// whether to load the FP state back from f.
//
// The entry assembly passes this core's CPU (TPIDR_EL1, which it loads
// as the kernel's g anyway) and ESR_EL1 (the syndrome of a synchronous
// exception; stale for an interrupt, which does not look at it), so
// that the Go side makes no call to read them: under QEMU's TCG each
// call's return is an indirect jump looked up in a hash, and on the way
// to an unlocked getpid those lookups were a fifth of the call.
func trap(f *sched.Frame, c *sched.CPU, esr uint64) (fpSaved bool) {
	if f.Kind != sched.KindIRQ {
		if handled, saved := unlockedSyscall(c, f, esr); handled {
			return saved
		}
	}
	saveFP(f)
	if f.Kind == sched.KindIRQ {
		interrupt(c, f) // irq_arm64.go: the kernel lock only if needed
		return true
	}
	if lockFreeSyscall(c, f, esr) || lockFreeFault(c, f, esr) {
		return true
	}
	trapLocked(c, f, esr)
	return true
}

// saveFP stores the app's FP state (FPSR, FPCR, Q0-Q31) into f
// (entry_arm64.s).
func saveFP(f *sched.Frame)

// trapLocked handles a system call or another synchronous exception
// (esr: its syndrome) under the kernel lock; interrupts go the way of
// interrupt, which takes the lock only if one needs it.
//
//go:noinline
func trapLocked(c *sched.CPU, f *sched.Frame, esr uint64) {
	// The counter before the lock: under QEMU's TCG reading it takes
	// QEMU's global lock (sched.LockAddrToBlockAt), which every other
	// core spinning for the kernel lock would wait for too. The profiler
	// reads it again once the lock is held: the wait is charged apart.
	entered := timer.Now()
	sched.KernelLock.Lock(c.ID)
	c.Heartbeat = entered
	if prof.On() {
		c.Heartbeat = timer.Now()
	}
	t := sched.Current(c)
	if prof.On() {
		profEnter(c, t, f, entered)
	}
	if cpu.EC(esr) == cpu.ECSVC64 {
		profActivity[c.ID] = prof.ArgSyscall + uint32(f.X[8])
		OS.Syscall(c, t, f)
	} else {
		profActivity[c.ID] = prof.ArgFault
		OS.Exception(t, f, esr, cpu.ReadFAR())
	}
	finishTrap(c, f, false)
}

// finishTrap picks the thread to run, delivers its pending signals, arms
// the timer and drops the kernel lock (sched.Release, which makes the
// SGI and timer writes after it); on return the entry code resumes
// whatever f holds.
//
// A core that idled in Schedule and woke for a wake-up SGI alone comes
// back without the kernel lock (sched's idle says why that is safe); it
// takes the lock only if the personality has work for Resume (a pending
// signal), so waking a thread on an idle core never queues for it.
// stateHeld says the caller holds sched.StateLock already (a wait
// without the kernel lock that blocked).
func finishTrap(c *sched.CPU, f *sched.Frame, stateHeld bool) {
	if stateHeld {
		sched.ScheduleLocked(c, f)
	} else {
		sched.Schedule(c, f)
	}
	t := sched.Current(c)
	for {
		useSpace(c, t) // before Resume, which may write a signal frame into it
		locked := sched.HoldsKernel(c)
		if !locked && OS.Pending(t) {
			sched.KernelLock.Lock(c.ID)
			locked = true
		}
		if !locked || !OS.Resume(t, f) {
			break
		}
		// t stops where it is (a stopped process): f, its context, is
		// saved by Schedule, which picks another thread.
		sched.Block(t, sched.WaitStopped, 0, 0)
		sched.Schedule(c, f)
		t = sched.Current(c)
	}
	sched.ArmTimer(c)
	if prof.On() {
		profExit(c)
	}
	sched.Release(c)
}

// useSpace points this core's TTBR0 at the page table of t's address
// space, under the space's ASID, and usermem's copies at the space,
// when t runs in another one than the core's last thread; threads of
// one process switch with no register write. The core holds the space
// until it moves on to another (mm.Space.Hold), so that its tables
// outlive every walk this core may make of them. The translations the
// core cached for the old space stay in its TLB, tagged with that
// space's ASID, which no other space gets before every core has dropped
// its TLB (a new ASID generation, kernel/mm/asid.go): a dead space's
// entries are never used, and a live one's are there when it comes back.
func useSpace(c *sched.CPU, t *sched.Thread) {
	if t == nil {
		return
	}
	s := &mm.Spaces[t.Space]
	if c.UserRoot == s.PT.Root {
		return
	}
	s.Hold(c.ID)
	usermem.Use(c.ID, s)
	switchTTBR0(c, s)
	if c.UserRoot == 0 {
		cpu.TTBR0Walks(true) // off since boot or dropDeadSpace
	}
	c.UserRoot = s.PT.Root
	if old := c.UserSpace - 1; old >= 0 {
		mm.Spaces[old].Drop(c.ID)
		if mm.Spaces[old].Refs == 0 && sched.HoldsKernel(c) {
			// The last thread of a process ran here: once no core
			// holds its space, its pages go back now (ReapSpaces needs
			// the kernel lock), not at the next fork or exec. The next
			// thread is often its parent, whose writes to pages the
			// child shared are then taken over in place instead of
			// copied from a space nobody will run again (as Linux's
			// exit_mmap frees them before the parent's wait returns).
			mm.ReapSpaces()
		}
	}
	c.UserSpace = t.Space + 1
}

// dropDeadSpace is sched.BeforeIdle: a core going idle that still points
// at an address space no process references any more (its last thread
// ran here) lets go of it (leaveSpace) and, if it was the last core to
// hold it, gives its pages back (mm.ReapSpaces, under the kernel lock)
// rather than leaving them for the next fork, exec or OOM kill: a wait
// or an exec that follows an exit finds them free. A reference count
// once 0 stays 0, so reading it without the kernel lock can only keep a
// space a little longer.
func dropDeadSpace(c *sched.CPU) {
	i := c.UserSpace - 1
	if i < 0 || atomic.LoadInt32(&mm.Spaces[i].Refs) != 0 {
		return
	}
	leaveSpace(c)
	if atomic.LoadUint32(&mm.Spaces[i].OnCores) == 0 {
		sched.KernelLock.Lock(c.ID)
		mm.ReapSpaces()
		sched.KernelLock.Unlock()
	}
}

// leaveSpace lets core c go of the address space its TTBR0 points at:
// walks off, which drops its TLB, and the space no longer held here.
func leaveSpace(c *sched.CPU) {
	i := c.UserSpace - 1
	if i < 0 {
		return
	}
	cpu.TTBR0Walks(false)
	c.UserRoot, c.UserSpace = 0, 0
	usermem.Use(c.ID, nil) // useSpace sets it again with the next thread's
	mm.Spaces[i].Drop(c.ID)
}

// LeaveSpace is leaveSpace for the calling core, called by the exit of a
// process's last thread before the process drops its space: the thread
// never returns to EL0, and with no other core holding the space its
// pages come back before the parent hears of the exit, as Linux's
// do_exit runs exit_mm before exit_notify. Under the kernel lock; no
// copy to or from app memory may follow on this core before the next
// thread's useSpace.
func LeaveSpace() { leaveSpace(ThisCPU()) }

func ThisCPU() *sched.CPU { return (*sched.CPU)(cpu.Ptr(getCPU())) }
