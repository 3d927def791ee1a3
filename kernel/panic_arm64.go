package kernel

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/sched"
)

// ExitKernelPanic is the exit status of a run that ended in a kernel
// panic; qemu/ recognises the report and symbolizes its addresses.
const ExitKernelPanic = 125

var vectorNames = [16]string{
	"sync from EL1 with SP0", "IRQ from EL1 with SP0", "FIQ from EL1 with SP0", "SError from EL1 with SP0",
	"synchronous exception in the kernel", "IRQ in the kernel", "FIQ in the kernel", "SError in the kernel",
	"sync from EL0", "IRQ from EL0", "FIQ from EL0", "SError from EL0",
	"sync from AArch32", "IRQ from AArch32", "FIQ from AArch32", "SError from AArch32",
}

// kernelFault runs on the core's fault stack after an exception inside the
// kernel. It prints the report qemu/ symbolizes, then ends the run.
func kernelFault(f *sched.Frame) {
	reason := "unexpected exception"
	if f.Kind < 16 {
		reason = vectorNames[f.Kind]
	}
	esr := cpu.ReadESR()
	if cpu.EC(esr) == cpu.ECDABTCur && cpu.ReadFAR() < 0x10000 {
		reason = "nil dereference in the kernel (or a Go runtime call such as a failed bounds check or morestack)"
	}
	panicReport(reason, f, esr, cpu.ReadFAR())
}

// Panic stops the kernel with a message from kernel code.
func Panic(msg string) {
	var f sched.Frame
	f.PC = callerPC()
	f.X[29] = callerFP()
	panicReport(msg, &f, 0, 0)
}

// panicking holds 1 + the number of the core that is reporting a panic.
// The panic path takes no lock (the kernel lock may be what is stuck);
// a second core that panics meanwhile stops quietly instead of mixing
// its report into the first.
var panicking atomic.Int32

// claimPanic makes this core the one that reports; other cores halt.
func claimPanic() {
	me := int32(1)
	if c := (*sched.CPU)(cpu.Ptr(getCPU())); c != nil {
		me += int32(c.ID)
	}
	if !panicking.CompareAndSwap(0, me) && panicking.Load() != me {
		cpu.Halt()
	}
}

func panicReport(msg string, f *sched.Frame, esr, far uint64) {
	panicHead(msg)
	panicBody(f, esr, far)
}

// panicHead starts a panic report: the line the host's symbolizer looks
// for (qemu/run.go), after which it annotates every kernel address up to
// the report's blank line.
func panicHead(msg string) {
	claimPanic()
	Puts("\ngometal: kernel panic: ")
	Puts(msg)
}

// panicBody ends a panic report with the core, the registers and the
// backtrace of f, and ends the run.
func panicBody(f *sched.Frame, esr, far uint64) {
	c := (*sched.CPU)(cpu.Ptr(getCPU()))
	Puts("\n  core=")
	if c != nil {
		PutDec(int64(c.ID))
		Puts(" thread=")
		PutDec(int64(c.Current))
	}
	Puts("\n  pc=")
	PutHex(f.PC)
	Puts(" lr=")
	PutHex(f.X[30])
	Puts(" sp=")
	PutHex(f.SP)
	Puts("\n  esr=")
	PutHex(esr)
	Puts(" far=")
	PutHex(far)
	Puts("\n  backtrace:")
	// Walk the frame-pointer chain (Go on arm64 keeps one: the caller's
	// FP is at [FP], the return address at [FP+8]).
	fp := uintptr(f.X[29])
	for i := 0; i < 16 && fp >= cpu.KernBase && fp&7 == 0; i++ {
		ret := *(*uint64)(cpu.Ptr(fp + 8))
		if ret == 0 {
			break
		}
		Puts(" ")
		PutHex(ret)
		next := *(*uintptr)(cpu.Ptr(fp))
		if next <= fp {
			break
		}
		fp = next
	}
	Puts("\n\n")
	Exit(ExitKernelPanic)
}

func callerPC() uint64
func callerFP() uint64
func getCPU() uintptr
func vectorsAddr() uintptr
func enterUser(f uintptr)
func kernelText() uintptr
func kernelEnd() uintptr
