package kernel

import (
	"unsafe"

	"gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Kernel access to app memory goes through the app's page table and the
// kernel's direct map, one page at a time, faulting pages in exactly as the
// app's own access would. A bad pointer from the app therefore becomes
// -EFAULT, never a kernel fault.

// app is the one address space (one process for now).
var app mm.Space

// copyOut writes src to app address dst.
func copyOut(dst uintptr, src []byte) bool {
	for len(src) > 0 {
		pa, ok := app.UserPage(dst, mm.AccessWrite)
		if !ok {
			return false
		}
		off := dst & mm.PageMask
		n := copy(mm.PageBytes(pa)[off:], src)
		src = src[n:]
		dst += uintptr(n)
	}
	return true
}

// copyIn reads len(dst) bytes from app address src.
func copyIn(dst []byte, src uintptr) bool {
	for len(dst) > 0 {
		pa, ok := app.UserPage(src, mm.AccessRead)
		if !ok {
			return false
		}
		off := src & mm.PageMask
		n := copy(dst, mm.PageBytes(pa)[off:])
		dst = dst[n:]
		src += uintptr(n)
	}
	return true
}

// userSpan returns the app bytes [addr, addr+n) when they lie in one page,
// for in-place access to small aligned structures.
func userSpan(addr uintptr, n uintptr, acc mm.Access) ([]byte, bool) {
	if n == 0 || addr&mm.PageMask+n > mm.PageSize {
		return nil, false
	}
	pa, ok := app.UserPage(addr, acc)
	if !ok {
		return nil, false
	}
	off := addr & mm.PageMask
	return mm.PageBytes(pa)[off : off+n], true
}

func readU32(addr uintptr) (uint32, bool) {
	if addr&3 != 0 {
		var b [4]byte
		if !copyIn(b[:], addr) {
			return 0, false
		}
		return *(*uint32)(unsafe.Pointer(&b[0])), true
	}
	s, ok := userSpan(addr, 4, mm.AccessRead)
	if !ok {
		return 0, false
	}
	return *(*uint32)(unsafe.Pointer(&s[0])), true
}

func readU64(addr uintptr) (uint64, bool) {
	var b [8]byte
	if !copyIn(b[:], addr) {
		return 0, false
	}
	return *(*uint64)(unsafe.Pointer(&b[0])), true
}

func writeU32(addr uintptr, v uint32) bool {
	b := (*[4]byte)(unsafe.Pointer(&v))
	return copyOut(addr, b[:])
}

func writeU64(addr uintptr, v uint64) bool {
	b := (*[8]byte)(unsafe.Pointer(&v))
	return copyOut(addr, b[:])
}

// copyInString reads a NUL-terminated string of at most len(buf)-1
// bytes into buf and returns its length.
func copyInString(buf []byte, addr uintptr) (int, unix.Errno) {
	for i := range buf {
		pa, ok := app.UserPage(addr+uintptr(i), mm.AccessRead)
		if !ok {
			return 0, unix.EFAULT
		}
		c := mm.PageBytes(pa)[(addr+uintptr(i))&mm.PageMask]
		if c == 0 {
			return i, 0
		}
		buf[i] = c
	}
	return 0, unix.ENAMETOOLONG
}

// bytesOf views a value as bytes for copying to the app.
func bytesOf(p unsafe.Pointer, n uintptr) []byte { return unsafe.Slice((*byte)(p), n) }

// ptrOf is unsafe.Pointer for small kernel values copied to the app.
func ptrOf[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
