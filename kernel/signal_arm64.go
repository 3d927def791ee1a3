package kernel

import (
	"unsafe"

	"gometal/kernel/mm"
	"gometal/sched"

	"golang.org/x/sys/unix"
)

// Signal delivery with the Linux arm64 ABI (arch/arm64/kernel/signal.c):
// on the way back to EL0 a pending, unblocked signal with a handler gets an
// rt_sigframe { siginfo (128 bytes); ucontext } on the thread's stack or
// its sigaltstack, and the thread resumes in the handler with X0 = signo,
// X1 = &info, X2 = &uc, X29 = frame record, X30 = the restorer. Go
// registers handlers without SA_RESTORER, so the restorer is the kernel's
// own trampoline page (mov x8, #139; svc #0).

const nsig = 65

type sigaction struct {
	handler  uint64
	flags    uint64
	restorer uint64
	mask     uint64
}

var sigActions [nsig]sigaction

var signalsDelivered uint64

func sigBit(sig int) uint64 { return 1 << uint(sig-1) }

// postSignal makes sig pending on t.
func postSignal(t *sched.Thread, sig int, code int32, addr uintptr) {
	if sig <= 0 || sig >= nsig {
		return
	}
	t.SigPending |= sigBit(sig)
	t.SigInfo[sig] = sched.SigInfo{Code: code, Addr: addr, PID: appPID}
	// A thread blocked in an interruptible wait gets EINTR (Linux would
	// restart some calls under SA_RESTART; the Go runtime retries them).
	if t.SigMask&sigBit(sig) != 0 {
		return
	}
	switch t.State {
	case sched.Blocked:
		sched.Wake(t, errno(unix.EINTR))
	case sched.Running:
		// Running on another core: an SGI makes it enter the kernel,
		// and it delivers the signal on its way back to EL0.
		sched.Kick(int(t.CPU))
	}
}

// postFault posts a synchronous signal for a fault at pc. A fault signal
// that is blocked or ignored cannot be delivered, and Linux then kills the
// process; so does gometal.
func postFault(t *sched.Thread, f *sched.Frame, sig int, code int32, addr uint64) {
	a := &sigActions[sig]
	if t.SigMask&sigBit(sig) != 0 || a.handler == sigIGN {
		killApp(sig, uintptr(addr), f.PC)
		return
	}
	postSignal(t, sig, code, uintptr(addr))
}

// killApp ends the app for a signal with no handler, like Linux would,
// with a report a person can act on, and exit status 128+sig.
func killApp(sig int, addr uintptr, pc uint64) {
	puts("gometal: app killed by ")
	puts(signalName(sig))
	puts(" (signal ")
	putDec(int64(sig))
	puts(") addr=")
	putHex(uint64(addr))
	puts(" pc=")
	putHex(pc)
	puts("\n")
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
	}
	return "a signal"
}

// deliverSignals runs on every return to EL0: it builds the frame for the
// first deliverable signal with a handler, drops ignored ones, and ends
// the app for ones whose default action is to terminate.
func deliverSignals(t *sched.Thread, f *sched.Frame) {
	for {
		deliverable := t.SigPending &^ t.SigMask
		if deliverable == 0 {
			return
		}
		sig := 1
		for deliverable&1 == 0 {
			deliverable >>= 1
			sig++
		}
		t.SigPending &^= sigBit(sig)
		a := &sigActions[sig]
		switch {
		case a.handler == sigIGN:
			continue
		case a.handler == sigDFL:
			if sigDefaultIgnore&sigBit(sig) != 0 {
				continue
			}
			killApp(sig, t.SigInfo[sig].Addr, f.PC)
			return
		}
		if !buildSigframe(t, f, sig, a) {
			// No room for the frame: Linux forces SIGSEGV.
			killApp(sigSEGV, uintptr(f.SP), f.PC)
			return
		}
		signalsDelivered++
		return
	}
}

func onAltStack(t *sched.Thread, sp uint64) bool {
	return t.AltSize != 0 && uintptr(sp) > t.AltSP && uintptr(sp) <= t.AltSP+t.AltSize
}

// sigframe is the rt_sigframe the kernel builds, then copies to the app.
var sigframe [sigframeSize]byte

func put64(b []byte, off int, v uint64) { *(*uint64)(unsafe.Pointer(&b[off])) = v }
func put32(b []byte, off int, v uint32) { *(*uint32)(unsafe.Pointer(&b[off])) = v }
func get64(b []byte, off int) uint64    { return *(*uint64)(unsafe.Pointer(&b[off])) }
func get32(b []byte, off int) uint32    { return *(*uint32)(unsafe.Pointer(&b[off])) }

func buildSigframe(t *sched.Thread, f *sched.Frame, sig int, a *sigaction) bool {
	sp := f.SP
	if a.flags&saOnStack != 0 && t.AltSize != 0 && t.AltFlags&ssDisable == 0 && !onAltStack(t, sp) {
		sp = uint64(t.AltSP + t.AltSize)
	}
	sp = (sp - frameRecordSize) &^ 15
	record := sp
	sp = (sp - sigframeSize) &^ 15

	b := sigframe[:]
	clear(b)
	// siginfo: si_signo, si_errno, si_code, then the union at 16.
	si := &t.SigInfo[sig]
	put32(b, 0, uint32(sig))
	put32(b, 8, uint32(si.Code))
	if sigSynchronous&sigBit(sig) != 0 {
		put64(b, 16, uint64(si.Addr)) // si_addr
	} else {
		put32(b, 16, uint32(si.PID)) // si_pid, si_uid = 0
	}
	uc := b[siginfoSize:]
	// uc_stack describes the alternate stack.
	put64(uc, ucStackOff, uint64(t.AltSP))
	flags := uint32(0)
	if t.AltSize == 0 {
		flags = ssDisable
	} else if onAltStack(t, f.SP) {
		flags = ssOnStack
	}
	put32(uc, ucStackOff+8, flags)
	put64(uc, ucStackOff+16, uint64(t.AltSize))
	put64(uc, ucSigmaskOff, t.SigMask)
	mc := uc[ucMcontextOff:]
	put64(mc, 0, uint64(si.Addr)) // fault_address
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

	if !copyOut(uintptr(sp), b) {
		return false
	}
	rec := [2]uint64{f.X[29], f.X[30]}
	if !copyOut(uintptr(record), bytesOf(unsafe.Pointer(&rec), 16)) {
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
	t.SigMask |= a.mask
	if a.flags&saNoDefer == 0 {
		t.SigMask |= sigBit(sig)
	}
	t.SigMask &^= sigUnblockable
	if a.flags&saResetHand != 0 {
		a.handler = sigDFL
	}
	return true
}

func sysRtSigreturn(t *sched.Thread, f *sched.Frame) uint64 {
	sp := f.SP
	b := sigframe[:]
	if sp&15 != 0 || !copyIn(b, uintptr(sp)) {
		killApp(sigSEGV, uintptr(sp), f.PC)
		return 0
	}
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
	t.SigMask = get64(uc, ucSigmaskOff) &^ sigUnblockable
	return f.X[0]
}

func sysRtSigaction(t *sched.Thread, f *sched.Frame) uint64 {
	sig := int(f.X[0])
	if sig <= 0 || sig >= nsig || f.X[3] != 8 {
		return errno(unix.EINVAL)
	}
	if old := uintptr(f.X[2]); old != 0 {
		a := sigActions[sig]
		if !copyOut(old, bytesOf(unsafe.Pointer(&a), unsafe.Sizeof(a))) {
			return errno(unix.EFAULT)
		}
	}
	if act := uintptr(f.X[1]); act != 0 {
		if sig == sigKILL || sig == sigSTOP {
			return errno(unix.EINVAL)
		}
		var a sigaction
		if !copyIn(bytesOf(unsafe.Pointer(&a), unsafe.Sizeof(a)), act) {
			return errno(unix.EFAULT)
		}
		a.mask &^= sigUnblockable
		sigActions[sig] = a
	}
	return 0
}

func sysRtSigprocmask(t *sched.Thread, f *sched.Frame) uint64 {
	how, set, old := f.X[0], uintptr(f.X[1]), uintptr(f.X[2])
	if f.X[3] != 8 {
		return errno(unix.EINVAL)
	}
	prev := t.SigMask
	if set != 0 {
		m, ok := readU64(set)
		if !ok {
			return errno(unix.EFAULT)
		}
		switch how {
		case unix.SIG_BLOCK:
			t.SigMask |= m
		case unix.SIG_UNBLOCK:
			t.SigMask &^= m
		case unix.SIG_SETMASK:
			t.SigMask = m
		default:
			return errno(unix.EINVAL)
		}
		t.SigMask &^= sigUnblockable
	}
	if old != 0 && !writeU64(old, prev) {
		t.SigMask = prev
		return errno(unix.EFAULT)
	}
	return 0
}

const minSigStackSize = 5120 // MINSIGSTKSZ on arm64

func sysSigaltstack(t *sched.Thread, f *sched.Frame) uint64 {
	ss, old := uintptr(f.X[0]), uintptr(f.X[1])
	if old != 0 {
		o := stackT{SP: t.AltSP, Size: t.AltSize}
		if t.AltSize == 0 {
			o.Flags = ssDisable
		} else if onAltStack(t, f.SP) {
			o.Flags = ssOnStack
		}
		if !copyOut(old, bytesOf(unsafe.Pointer(&o), unsafe.Sizeof(o))) {
			return errno(unix.EFAULT)
		}
	}
	if ss != 0 {
		var n stackT
		if !copyIn(bytesOf(unsafe.Pointer(&n), unsafe.Sizeof(n)), ss) {
			return errno(unix.EFAULT)
		}
		if onAltStack(t, f.SP) {
			return errno(unix.EPERM)
		}
		switch n.Flags {
		case ssDisable:
			t.AltSP, t.AltSize = 0, 0
		case 0:
			if n.Size < minSigStackSize {
				return errno(unix.ENOMEM)
			}
			t.AltSP, t.AltSize = n.SP, n.Size
		default:
			return errno(unix.EINVAL)
		}
	}
	return 0
}

// Process-directed and thread-directed kill.

func sysKill(t *sched.Thread, f *sched.Frame) uint64 {
	pid, sig := int64(f.X[0]), int(f.X[1])
	if sig < 0 || sig >= nsig {
		return errno(unix.EINVAL)
	}
	if pid != appPID && pid != 0 && pid != -1 {
		return errno(unix.ESRCH)
	}
	if sig == 0 {
		return 0
	}
	if sig == sigKILL {
		killApp(sig, 0, f.PC)
		return 0
	}
	// Any thread that does not block it; prefer the caller.
	target := t
	if t.SigMask&sigBit(sig) != 0 {
		for i := range sched.Active() {
			o := &sched.Threads[i]
			if (o.State == sched.Runnable || o.State == sched.Blocked || o.State == sched.Running) && o.SigMask&sigBit(sig) == 0 {
				target = o
				break
			}
		}
	}
	postSignal(target, sig, siUSER, 0)
	return 0
}

func threadSignal(t *sched.Thread, tid int64, sig int) uint64 {
	if sig < 0 || sig >= nsig || tid <= 0 {
		return errno(unix.EINVAL)
	}
	target := sched.ByTID(int32(tid))
	if target == nil {
		return errno(unix.ESRCH)
	}
	if sig == 0 {
		return 0
	}
	if sig == sigKILL {
		killApp(sig, 0, 0)
	}
	postSignal(target, sig, siTKILL, 0)
	return 0
}

func sysTkill(t *sched.Thread, f *sched.Frame) uint64 {
	return threadSignal(t, int64(f.X[0]), int(f.X[1]))
}

func sysTgkill(t *sched.Thread, f *sched.Frame) uint64 {
	if int64(f.X[0]) != appPID {
		return errno(unix.ESRCH)
	}
	return threadSignal(t, int64(f.X[1]), int(f.X[2]))
}

// mapSigTrampoline installs the restorer page.
func mapSigTrampoline() bool {
	pa := mm.Pages.Get()
	if pa == 0 {
		return false
	}
	p := mm.PageBytes(pa)
	put32(p[:], 0, sigTrampOpMovX8)
	put32(p[:], 4, sigTrampOpSvc)
	return app.MapFixedPage(sigTrampVA, pa, mm.ProtRead|mm.ProtExec)
}
