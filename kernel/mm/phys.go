package mm

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
)

// PhysOffset is added to a physical address to reach it: cpu.KernBase in
// the kernel (the TTBR1 direct map); tests set 0 and use Go memory.
var PhysOffset uintptr = cpu.KernBase

const (
	PageSize  = 4096
	PageShift = 12
	PageMask  = PageSize - 1
)

//go:nocheckptr
func pageWords(pa uintptr) *[512]uint64 {
	return (*[512]uint64)(addrPtr(pa + PhysOffset))
}

//go:nocheckptr
func PageBytes(pa uintptr) *[PageSize]byte {
	return (*[PageSize]byte)(addrPtr(pa + PhysOffset))
}

func PageDown(a uintptr) uintptr { return a &^ PageMask }
func PageUp(a uintptr) uintptr   { return (a + PageMask) &^ PageMask }

// addrPtr turns a computed address into a pointer (kernel memory never
// moves: the Go runtime is not running).
func addrPtr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
