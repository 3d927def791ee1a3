// Package semihost owns the Arm semihosting calls the kernel makes to the
// host (QEMU -semihosting): ending the run with an exit status, writing a
// host file (the kernel trace), and a raw debug print that works before
// any device is known.
//
// Reference: Arm "Semihosting for AArch32 and AArch64", version 2.0.
package semihost

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
)

const (
	sysOpen   = 0x01 // SYS_OPEN: open a host file (§6.30)
	sysClose  = 0x02 // SYS_CLOSE (§6.2)
	sysWrite0 = 0x04 // SYS_WRITE0: print a NUL-terminated string
	sysWrite  = 0x05 // SYS_WRITE: write to a host file (§6.36)
	sysExit   = 0x18 // SYS_EXIT: end the run

	// modeWB is SYS_OPEN's mode 5, fopen's "wb" (§6.30, table 6-1).
	modeWB = 5

	// adpStoppedApplicationExit with a subcode is the AArch64 way of
	// passing an exit status (§6.5.2); QEMU exits with that status.
	adpStoppedApplicationExit = 0x20026
)

var exitBlock [2]uint64

// Exit ends the run with the given status. It never returns.
func Exit(status int) {
	exitBlock[0] = adpStoppedApplicationExit
	exitBlock[1] = uint64(status)
	cpu.SemihostCall(sysExit, uintptr(unsafe.Pointer(&exitBlock)))
	cpu.Halt()
}

// Write0 prints s, which must end in a NUL byte, on the host's stderr.
func Write0(s *byte) {
	cpu.SemihostCall(sysWrite0, uintptr(unsafe.Pointer(s)))
}

var fileBlock [3]uint64

// Create opens the host file named by name (which must end in a NUL
// byte; n is its length without) for writing, truncating it. It returns
// a handle, or -1.
func Create(name *byte, n int) int64 {
	fileBlock = [3]uint64{uint64(uintptr(unsafe.Pointer(name))), modeWB, uint64(n)}
	return int64(cpu.SemihostCall(sysOpen, uintptr(unsafe.Pointer(&fileBlock))))
}

// Write writes n bytes at p to handle h and reports whether all were
// written (SYS_WRITE answers how many were not).
func Write(h int64, p uintptr, n uint64) bool {
	fileBlock = [3]uint64{uint64(h), uint64(p), n}
	return cpu.SemihostCall(sysWrite, uintptr(unsafe.Pointer(&fileBlock))) == 0
}

// Close closes handle h.
func Close(h int64) {
	fileBlock[0] = uint64(h)
	cpu.SemihostCall(sysClose, uintptr(unsafe.Pointer(&fileBlock)))
}
