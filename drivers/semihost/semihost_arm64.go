// Package semihost owns the Arm semihosting calls the kernel makes to the
// host (QEMU -semihosting): ending the run with an exit status, and a raw
// debug print that works before any device is known.
//
// Reference: Arm "Semihosting for AArch32 and AArch64", version 2.0.
package semihost

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
)

const (
	sysWrite0 = 0x04 // SYS_WRITE0: print a NUL-terminated string
	sysExit   = 0x18 // SYS_EXIT: end the run

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
