package linux

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"
)

// Synchronous exceptions from EL0 other than SVC, as Linux answers them
// (arch/arm64/mm/fault.c, arch/arm64/kernel/traps.c): a page fault the
// app's address space can serve is demand paging; anything else is a
// signal to the thread.

// exception is OS.Exception.
func exception(t *sched.Thread, f *sched.Frame, esr, far uint64) {
	switch ec := cpu.EC(esr); ec {
	case cpu.ECDABTLow, cpu.ECIABTLow:
		userFault(t, f, esr, far, ec == cpu.ECIABTLow)
	case cpu.ECPCAlign, cpu.ECSPAlign:
		postFault(t, f, sigBUS, busADRALN, far)
	case cpu.ECBRK:
		postFault(t, f, sigTRAP, trapBRKPT, f.PC)
	case cpu.ECFPExc:
		postFault(t, f, sigFPE, 0, f.PC)
	default: // undefined instruction, trapped system register, ...
		postFault(t, f, sigILL, illILLOPC, f.PC)
	}
}

// si_code values for faults (include/uapi/asm-generic/siginfo.h).
const (
	segvMAPERR = 1
	segvACCERR = 2
	busADRALN  = 1
	busADRERR  = 2
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

// faultAccess is what an abort from EL0 tried: to execute (an
// instruction abort), to write (ISS.WnR), else to read.
func faultAccess(esr uint64, inst bool) mm.Access {
	switch {
	case inst:
		return mm.AccessExec
	case esr&(1<<6) != 0: // ISS.WnR
		return mm.AccessWrite
	}
	return mm.AccessRead
}

// fault is OS.Fault: an abort from EL0 served without the kernel lock
// when the space can serve it (demand paging, copy-on-write), under its
// own lock; false sends it to userFault, under the kernel lock, which
// asks again and answers what the space could not (a signal, the OOM
// killer).
func fault(t *sched.Thread, f *sched.Frame, esr, far uint64) bool {
	tr, perm := faultKind(esr)
	if !tr && !perm {
		return false
	}
	acc := faultAccess(esr, cpu.EC(esr) == cpu.ECIABTLow)
	return usermem.Cur().Fault(uintptr(far), acc) == mm.FaultOK
}

// userFault handles an abort from EL0: demand paging first, a signal if
// the address is not the app's to touch.
func userFault(t *sched.Thread, f *sched.Frame, esr, far uint64, inst bool) {
	acc := faultAccess(esr, inst)
	tr, perm := faultKind(esr)
	if tr || perm {
		switch usermem.Cur().Fault(uintptr(far), acc) {
		case mm.FaultOK:
			return
		case mm.FaultOOM:
			outOfMemory(t, uintptr(far))
			return
		case mm.FaultAccErr:
			postFault(t, f, sigSEGV, segvACCERR, far)
			return
		case mm.FaultBus, mm.FaultLocked:
			// A file page past the file's end (Linux's
			// VM_FAULT_SIGBUS: do_sigbus, BUS_ADRERR).
			postFault(t, f, sigBUS, busADRERR, far)
			return
		}
		postFault(t, f, sigSEGV, segvMAPERR, far)
		return
	}
	// Alignment, external aborts and the like.
	postFault(t, f, sigBUS, busADRALN, far)
}
