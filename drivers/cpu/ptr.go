package cpu

import "unsafe"

// ptr converts an address the kernel computed into a pointer. Kernel
// memory is never moved or collected (the Go runtime is not running), so
// holding addresses as uintptr is safe here.
//
//go:nocheckptr
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// Ptr is ptr for other kernel packages.
//
//go:nocheckptr
func Ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
