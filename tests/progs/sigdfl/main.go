//go:build linux && arm64

// Sigdfl puts SIGSEGV back to its default action behind the Go runtime's
// back and then faults: the kernel must end the app itself, with a report
// naming the signal, the address and the PC, and status 128+11.
package main

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sigaction as the arm64 kernel reads it: handler, flags, restorer, mask.
type sigaction struct {
	handler, flags, restorer, mask uint64
}

func main() {
	var sa sigaction // SIG_DFL
	if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(unix.SIGSEGV), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0); e != 0 {
		fmt.Println("FAIL: rt_sigaction:", e)
		os.Exit(1)
	}
	fmt.Println("faulting at 0x18")
	*(*int)(unsafe.Pointer(uintptr(0x18))) = 1
	fmt.Println("FAIL: still running")
}
