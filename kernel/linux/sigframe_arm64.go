package linux

import (
	"github.com/gometal/gometal/kernel/usermem"
	"unsafe"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"
)

// The signal frame, with the Linux arm64 ABI (arch/arm64/kernel/signal.c):
// a pending, unblocked signal with a handler gets an rt_sigframe
// { siginfo (128 bytes); ucontext } on the thread's stack or its
// sigaltstack, and the thread resumes in the handler with X0 = signo,
// X1 = &info, X2 = &uc, X29 = frame record, X30 = the restorer. Go
// registers handlers without SA_RESTORER, so the restorer is the kernel's
// own trampoline page (mov x8, #139; svc #0). rt_sigreturn reads the
// context back from the app's copy, which Go edits to inject asyncPreempt.

func onAltStack(t *sched.Thread, sp uint64) bool {
	return lx(t).AltSize != 0 && uintptr(sp) > lx(t).AltSP && uintptr(sp) <= lx(t).AltSP+lx(t).AltSize
}

// sigframe is the rt_sigframe the kernel builds, then copies to the app.
var sigframe [sigframeSize]byte

func buildSigframe(t *sched.Thread, f *sched.Frame, sig int, info *sigInfo, a *sigaction) bool {
	// lab:sigframe begin
	sp := f.SP
	if a.flags&saOnStack != 0 && lx(t).AltSize != 0 && lx(t).AltFlags&ssDisable == 0 && !onAltStack(t, sp) {
		sp = uint64(lx(t).AltSP + lx(t).AltSize)
	}
	sp = (sp - frameRecordSize) &^ 15
	record := sp
	sp = (sp - sigframeSize) &^ 15

	b := sigframe[:]
	clear(b)
	putSiginfo(b, sig, info)
	uc := b[siginfoSize:]
	// uc_stack describes the alternate stack.
	put64(uc, ucStackOff, uint64(lx(t).AltSP))
	flags := uint32(0)
	if lx(t).AltSize == 0 {
		flags = ssDisable
	} else if onAltStack(t, f.SP) {
		flags = ssOnStack
	}
	put32(uc, ucStackOff+8, flags)
	put64(uc, ucStackOff+16, uint64(lx(t).AltSize))
	// uc_sigmask is the mask sigreturn puts back: the one rt_sigsuspend
	// replaced, if the thread waits there, else the current one.
	oldMask := lx(t).SigMask
	if lx(t).HasSavedMask {
		oldMask = lx(t).SavedMask
		lx(t).HasSavedMask = false
	}
	put64(uc, ucSigmaskOff, oldMask)
	mc := uc[ucMcontextOff:]
	if sigSynchronous&sigBit(sig) != 0 {
		put64(mc, 0, info.Fields[0]) // fault_address
	}
	for i := 0; i < 31; i++ {
		put64(mc, scRegsOff+8*i, f.X[i])
	}
	put64(mc, scSPOff, f.SP)
	put64(mc, scPCOff, f.PC)
	put64(mc, scPstateOff, f.PSTATE)
	fp := mc[scReservedOff:]
	put32(fp, 0, fpsimdMagic)
	put32(fp, 4, fpsimdSize)
	put32(fp, 8, uint32(f.FPSR))
	put32(fp, 12, uint32(f.FPCR))
	for i := 0; i < 64; i++ {
		put64(fp, 16+8*i, f.V[i])
	}
	// The terminating null context header follows (already zero).

	if !usermem.CopyOut(uintptr(sp), b) {
		return false
	}
	rec := [2]uint64{f.X[29], f.X[30]}
	if !usermem.CopyOut(uintptr(record), usermem.BytesOf(unsafe.Pointer(&rec), 16)) {
		return false
	}
	restorer := uint64(sigTrampVA)
	if a.flags&saRestorer != 0 && a.restorer != 0 {
		restorer = a.restorer
	}
	f.X[0] = uint64(sig)
	f.X[1] = sp
	f.X[2] = sp + siginfoSize
	f.X[29] = record
	f.X[30] = restorer
	f.SP = sp
	f.PC = a.handler
	lx(t).SigMask |= a.mask
	if a.flags&saNoDefer == 0 {
		lx(t).SigMask |= sigBit(sig)
	}
	lx(t).SigMask &^= sigUnblockable
	if a.flags&saResetHand != 0 {
		a.handler = sigDFL
	}
	return true
	// lab:sigframe stub
	// // TODO(lab sigframe): build the rt_sigframe below f.SP (or on the
	// // alternate stack), copy it to the app, and point f at the handler
	// // as arch/arm64/kernel/signal.c does; sigframe.go has the layout.
	// _, _ = onAltStack, unsafe.Pointer(nil)
	// return false
	// lab:sigframe end
}

func sysRtSigreturn(t *sched.Thread, f *sched.Frame) uint64 {
	sp := f.SP
	b := sigframe[:sigreturnSize]
	if sp&15 != 0 || !usermem.CopyIn(b, uintptr(sp)) {
		killCurrent(t, f, sigSEGV, uintptr(sp))
		return 0
	}
	restoreSigframe(t, f, b)
	return f.X[0]
}

// sigreturnSize is the part of an rt_sigframe that rt_sigreturn reads:
// the siginfo, the ucontext up to its mcontext's reserved area, and the
// fpsimd record that opens that area (the one record Go's handler
// leaves, and the one the kernel writes).
const sigreturnSize = siginfoSize + ucMcontextOff + scReservedOff + fpsimdSize

// It is a part of the frame: a constant overflow stops the build if not.
const _ = uint(sigframeSize - sigreturnSize)

// restoreSigframe puts back the context an rt_sigframe (b, read from the
// app's stack) holds: the registers, the vector registers if the fpsimd
// record is there, and the signal mask, which it writes under
// SignalLock (signal_arm64.go says why).
func restoreSigframe(t *sched.Thread, f *sched.Frame, b []byte) {
	uc := b[siginfoSize:]
	mc := uc[ucMcontextOff:]
	for i := 0; i < 31; i++ {
		f.X[i] = get64(mc, scRegsOff+8*i)
	}
	f.SP = get64(mc, scSPOff)
	f.PC = get64(mc, scPCOff)
	// Only the condition flags come from the app: it must not be able to
	// return to EL1 or unmask anything by editing pstate.
	f.PSTATE = get64(mc, scPstateOff) & pstateUserMask
	fp := mc[scReservedOff:]
	if get32(fp, 0) == fpsimdMagic {
		f.FPSR = uint64(get32(fp, 8))
		f.FPCR = uint64(get32(fp, 12))
		for i := 0; i < 64; i++ {
			f.V[i] = get64(fp, 16+8*i)
		}
	}
	setSigMask(t, get64(uc, ucSigmaskOff))
}

// makeSigTrampoline builds the restorer page (and the exit stub), which
// every address space maps (mapKernelPages); 0: no memory.
func makeSigTrampoline() uintptr {
	pa := mm.Pages.Get()
	if pa == 0 {
		return 0
	}
	p := mm.PageBytes(pa)
	put32(p[:], 0, sigTrampOpMovX8)
	put32(p[:], 4, sigTrampOpSvc)
	put32(p[:], threadExitVA-sigTrampVA, threadExitOpMovX8)
	put32(p[:], threadExitVA-sigTrampVA+4, sigTrampOpSvc)
	return pa
}
