//go:build linux && arm64

// Fpstate checks that every thread keeps its own FP control and status
// registers (FPCR, FPSR), and its own TLS register (TPIDR_EL0, which the
// kernel writes back only when it differs from what the core holds:
// kernel/entry_arm64.s), across every way into the kernel and back: a
// system call answered before any lock (getpid, which leaves the FP
// state in the registers), one that blocks and switches threads (a
// futex wait behind time.Sleep, a pipe read), sched_yield, and the
// preemption signal. Eight threads, each locked to its goroutine, set a
// rounding mode and sticky flags of their own, more threads than cores,
// so the cores switch between them all the time; a kernel that lost or
// mixed up the registers shows as another thread's mode, or a cleared
// flag. The mode is also seen to act: 1/3 rounds up under RP (+inf).
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// FPCR and FPSR fields (Arm ARM C5.2.8, C5.2.9).
const (
	fpcrRModeShift = 22 // RMode: 0 RN, 1 RP, 2 RM, 3 RZ
	fpcrRModeMask  = 3 << fpcrRModeShift
	fpsrIOC        = 1 << 0 // invalid operation
	fpsrDZC        = 1 << 1 // divide by zero
	fpsrOFC        = 1 << 2 // overflow
	fpsrUFC        = 1 << 3 // underflow
	fpsrIXC        = 1 << 4 // inexact
)

// fpRegs reads FPCR and FPSR; setFPRegs writes them (fpstate_arm64.s).
func fpRegs() (fpcr, fpsr uint64)
func setFPRegs(fpcr, fpsr uint64)

// tls reads TPIDR_EL0; setTLS writes it. A Go program without cgo
// leaves the register to its threads (the runtime keeps g in R28).
func tls() uint64
func setTLS(v uint64)

// rounds are each thread's trips through the kernel.
const (
	threads = 8
	rounds  = 300
)

// divide is not inlined, so the compiler cannot fold the division: it
// runs, in the calling thread's rounding mode.
//
//go:noinline
func divide(a, b float64) float64 { return a / b }

func main() {
	var p [2]int
	if err := unix.Pipe2(p[:], 0); err != nil {
		fmt.Println("FAIL pipe2:", err)
		os.Exit(1)
	}
	var wg sync.WaitGroup
	errs := make(chan string, threads)
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread() // the registers are the thread's
			mode := uint64(i%4) << fpcrRModeShift
			flags := uint64(1 << (i % 4)) // IOC, DZC, OFC or UFC
			c, s := fpRegs()
			setFPRegs(c&^fpcrRModeMask|mode, s|flags)
			myTLS := uint64(0x7e1500000000 + i)
			setTLS(myTLS)
			if i%4 == 1 && divide(1, 3) != 0x1.5555555555556p-02 {
				errs <- fmt.Sprintf("thread %d: 1/3 under RP = %x, not rounded up", i, divide(1, 3))
				return
			}
			buf := make([]byte, 1)
			for r := 0; r < rounds; r++ {
				var how string
				switch r % 4 {
				case 0:
					how = "getpid"
					syscall.Getpid()
				case 1:
					how = "sleep"
					time.Sleep(50 * time.Microsecond)
				case 2:
					how = "sched_yield"
					syscall.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
				case 3:
					how = "pipe"
					unix.Write(p[1], buf)
					unix.Read(p[0], buf)
				}
				// Runtime code may add flags of its own (they are sticky);
				// ours must stay, and the mode must be ours.
				if c, s := fpRegs(); c&fpcrRModeMask != mode || s&flags != flags {
					errs <- fmt.Sprintf("thread %d round %d after %s: FPCR=%#x FPSR=%#x, want mode %#x flags %#x", i, r, how, c, s, mode, flags)
					return
				}
				if v := tls(); v != myTLS {
					errs <- fmt.Sprintf("thread %d round %d after %s: TPIDR_EL0=%#x, want %#x", i, r, how, v, myTLS)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	failed := false
	for e := range errs {
		fmt.Println("FAIL", e)
		failed = true
	}
	if failed {
		os.Exit(1)
	}
	fmt.Printf("fpstate ok: %d threads x %d rounds kept their FPCR, FPSR and TPIDR_EL0\n", threads, rounds)
}
