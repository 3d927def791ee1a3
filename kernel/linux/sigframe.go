package linux

import "golang.org/x/sys/unix"

// Layout constants from the arm64 uapi headers; abi_test.go checks them
// against golang.org/x/sys/unix.
// stackT is the arm64 stack_t (include/uapi/asm-generic/signal.h);
// golang.org/x/sys/unix does not define it for Linux.
type stackT struct {
	SP    uintptr
	Flags int32
	_     int32
	Size  uintptr
}

// sigaltstack flags (include/uapi/linux/signal.h).
const (
	ssOnStack = 1
	ssDisable = 2
)

const (
	siginfoSize     = 128
	ucMcontextOff   = 176 // offsetof(struct ucontext, uc_mcontext)
	scRegsOff       = 8
	scSPOff         = 256
	scPCOff         = 264
	scPstateOff     = 272
	scReservedOff   = 288
	scReservedSize  = 4096
	ucontextSize    = ucMcontextOff + scReservedOff + scReservedSize
	fpsimdMagic     = 0x46508001
	fpsimdSize      = 528
	ucSigmaskOff    = 40
	ucStackOff      = 16
	sigframeSize    = siginfoSize + ucontextSize
	frameRecordSize = 16
	pstateUserMask  = 0xF0000000 // NZCV: all the app may set through sigreturn
	sigTrampVA      = 0x0000_FFFF_FFFF_E000
	sigTrampOpMovX8 = 0xD2801168 // mov x8, #139 (rt_sigreturn)
	sigTrampOpSvc   = 0xD4000001 // svc #0
	// The trampoline page's second stub: a thread whose group is ending
	// returns to it and calls exit (deliverSignals, Dying).
	threadExitVA      = sigTrampVA + 16
	threadExitOpMovX8 = 0xD2800BA8 // mov x8, #93 (exit)
	sigDefaultIgnore  = 1<<(sigCHLD-1) | 1<<(sigURG-1) | 1<<(sigWINCH-1) | 1<<(sigCONT-1)
	sigUnblockable    = 1<<(sigKILL-1) | 1<<(sigSTOP-1)
	sigSynchronous    = 1<<(sigSEGV-1) | 1<<(sigBUS-1) | 1<<(sigILL-1) | 1<<(sigFPE-1) | 1<<(sigTRAP-1)
	sigDFL            = 0
	sigIGN            = 1
)

// Signal numbers as ints (x/sys/unix types them as syscall.Signal).
const (
	sigABRT  = int(unix.SIGABRT)
	sigALRM  = int(unix.SIGALRM)
	sigBUS   = int(unix.SIGBUS)
	sigCHLD  = int(unix.SIGCHLD)
	sigCONT  = int(unix.SIGCONT)
	sigFPE   = int(unix.SIGFPE)
	sigHUP   = int(unix.SIGHUP)
	sigILL   = int(unix.SIGILL)
	sigINT   = int(unix.SIGINT)
	sigKILL  = int(unix.SIGKILL)
	sigPIPE  = int(unix.SIGPIPE)
	sigQUIT  = int(unix.SIGQUIT)
	sigPROF  = int(unix.SIGPROF)
	sigSEGV  = int(unix.SIGSEGV)
	sigSTOP  = int(unix.SIGSTOP)
	sigSYS   = int(unix.SIGSYS)
	sigTERM  = int(unix.SIGTERM)
	sigTRAP  = int(unix.SIGTRAP)
	sigTSTP  = int(unix.SIGTSTP)
	sigTTIN  = int(unix.SIGTTIN)
	sigTTOU  = int(unix.SIGTTOU)
	sigURG   = int(unix.SIGURG)
	sigUSR1  = int(unix.SIGUSR1)
	sigUSR2  = int(unix.SIGUSR2)
	sigWINCH = int(unix.SIGWINCH)
	sigRTMIN = 32 // the kernel's SIGRTMIN; glibc reserves 32 and 33 for itself
)

// sigaction flags (include/uapi/asm-generic/signal.h); missing from
// x/sys/unix for Linux.
const (
	saNoCldStop = 0x00000001
	saNoCldWait = 0x00000002
	saSigInfo   = 0x00000004
	saOnStack   = 0x08000000
	saRestart   = 0x10000000
	saNoDefer   = 0x40000000
	saResetHand = 0x80000000
	saRestorer  = 0x04000000
)
