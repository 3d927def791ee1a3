package kernel

import (
	"gometal/drivers/cpu"
	"gometal/drivers/gic"
	"gometal/drivers/timer"
	"gometal/kernel/mm"
	"gometal/kernel/usermem"
	"gometal/sched"
)

// trap is called by the entry assembly for every exception from EL0 with
// the interrupted context in f (on this core's kernel stack).
func trap(f *sched.Frame) {
	c := thisCPU()
	sched.KernelLock.Lock(c.ID)
	c.Heartbeat = timer.Now()
	t := sched.Current(c)
	if f.Kind == sched.KindIRQ {
		handleIRQs(c)
	} else {
		esr := cpu.ReadESR()
		far := cpu.ReadFAR()
		switch ec := (esr >> 26) & 0x3F; ec {
		case ecSVC64:
			syscall(c, t, f)
		case ecDABTLow, ecIABTLow:
			userFault(t, f, esr, far, ec == ecIABTLow)
		case ecPCAlign, ecSPAlign:
			postFault(t, f, sigBUS, busADRALN, far)
		case ecBRK:
			postFault(t, f, sigTRAP, trapBRKPT, f.PC)
		case ecFPExc:
			postFault(t, f, sigFPE, 0, f.PC)
		default: // undefined instruction, trapped system register, ...
			postFault(t, f, sigILL, illILLOPC, f.PC)
		}
	}
	finishTrap(c, f)
}

// finishTrap picks the thread to run, delivers its pending signals, arms
// the timer and drops the kernel lock; on return the entry code resumes
// whatever f holds.
func finishTrap(c *sched.CPU, f *sched.Frame) {
	sched.Schedule(c, f)
	// A signal that cannot be delivered ends the whole app (killApp
	// never returns), so the thread chosen above always resumes.
	deliverSignals(sched.Current(c), f)
	useAppTable(c)
	sched.ArmTimer(c)
	sched.KernelLock.Unlock()
}

// useAppTable points this core's TTBR0 at the app's page table the first
// time the core runs one of its threads (there is one address space, so
// it never changes after that).
func useAppTable(c *sched.CPU) {
	if c.UserRoot == usermem.App.PT.Root {
		return
	}
	cpu.WriteTTBR0(uint64(usermem.App.PT.Root))
	cpu.TTBR0Walks(true) // also drops this core's stale TLB entries
	c.UserRoot = usermem.App.PT.Root
}

func thisCPU() *sched.CPU { return (*sched.CPU)(cpu.Ptr(getCPU())) }

// si_code values for faults (include/uapi/asm-generic/siginfo.h).
const (
	segvMAPERR = 1
	segvACCERR = 2
	busADRALN  = 1
	trapBRKPT  = 1
	illILLOPC  = 1
	siTKILL    = -6
	siUSER     = 0
	siKERNEL   = 0x80
)

// Data/instruction fault status codes (ESR ISS DFSC/IFSC[5:0]).
func faultKind(esr uint64) (translation, permission bool) {
	fsc := esr & 0x3F
	return fsc >= 0x04 && fsc <= 0x07, fsc >= 0x0C && fsc <= 0x0F
}

// userFault handles an abort from EL0: demand paging first, a signal if
// the address is not the app's to touch.
func userFault(t *sched.Thread, f *sched.Frame, esr, far uint64, inst bool) {
	acc := mm.AccessRead
	if inst {
		acc = mm.AccessExec
	} else if esr&(1<<6) != 0 { // ISS.WnR
		acc = mm.AccessWrite
	}
	tr, perm := faultKind(esr)
	if tr || perm {
		switch usermem.App.Fault(uintptr(far), acc) {
		case mm.FaultOK:
			return
		case mm.FaultOOM:
			appOutOfMemory(uintptr(far))
			return
		case mm.FaultAccErr:
			postFault(t, f, sigSEGV, segvACCERR, far)
			return
		}
		postFault(t, f, sigSEGV, segvMAPERR, far)
		return
	}
	// Alignment, external aborts and the like.
	postFault(t, f, sigBUS, busADRALN, far)
}

// IRQ handling: drain the GIC. The wake-up SGI needs no work of its own:
// it only made this core enter the kernel, where Schedule looks at its
// run queue and deliverSignals at the thread's pending signals.
func handleIRQs(c *sched.CPU) {
	for {
		iar := gic.Ack()
		id := iar & 0x3FF
		if id == gic.Spurious {
			return
		}
		switch {
		case id == timerIRQ:
			c.Stats.Ticks++
			sched.StopTimer(c) // re-armed by ArmTimer on the way out
			now := c.Heartbeat
			sched.ExpireTimers(now)
			watchdog(c, now)
		case id == gic.SGIWake:
			c.Stats.SGIsIn++
		case consoleIRQ(id):
			c.Stats.UARTIRQs++
		}
		gic.EOI(iar)
		if id == gic.SGIWake {
			stopIfStopping()
		}
	}
}

// idleIRQ is sched's hook for a core that woke from WFI.
func idleIRQ(c *sched.CPU) { handleIRQs(c) }
