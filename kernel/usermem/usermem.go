// Package usermem owns the kernel's access to app memory: copies in and
// out through the app's page table, faulting pages in as the app's own
// access would, so that a bad pointer from the app becomes EFAULT and
// never a kernel fault; and kernel buffers lent at an address no app has,
// for the copies between two files (lend.go). Host tests run it over an
// mm.Space in Go memory.
package usermem

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// current[i] is the address space of the thread core i runs or is
// about to resume: the kernel copies to and from it for that thread's
// system calls, faults and signal frames (Use, Cur).
var current [mm.MaxCores]*mm.Space

// Use makes s the address space core works in (the kernel core calls it
// as it switches the core's TTBR0 to the thread it resumes).
func Use(core int, s *mm.Space) { current[core] = s }

// Cur is the address space of the thread this core works for: as Linux's
// current->mm, the only one a system call reaches through its pointers.
func Cur() *mm.Space { return current[sched.SelfID()] }

// CopyOut writes src to app address dst.
func CopyOut(dst uintptr, src []byte) bool {
	if isLent(dst) {
		b, ok := lentSpan(dst, uintptr(len(src)))
		copy(b, src)
		return ok
	}
	return CopyOutTo(Cur(), dst, src)
}

// CopyOutTo writes src to address dst of address space s, which need
// not be the one this core works in (execve builds the new program's
// stack from the old program's memory).
func CopyOutTo(s *mm.Space, dst uintptr, src []byte) bool {
	core := sched.SelfID()
	for len(src) > 0 {
		pa, pinned, ok := s.PinPage(core, dst, mm.AccessWrite)
		if !ok {
			return false
		}
		off := dst & mm.PageMask
		n := copy(mm.PageBytes(pa)[off:], src)
		unpin(s, core, pinned)
		src = src[n:]
		dst += uintptr(n)
	}
	return true
}

// CopyIn reads len(dst) bytes from app address src.
func CopyIn(dst []byte, src uintptr) bool {
	if isLent(src) {
		b, ok := lentSpan(src, uintptr(len(dst)))
		copy(dst, b)
		return ok
	}
	return CopyInFrom(Cur(), dst, src)
}

// CopyInFrom reads len(dst) bytes from address src of address space s.
func CopyInFrom(s *mm.Space, dst []byte, src uintptr) bool {
	core := sched.SelfID()
	for len(dst) > 0 {
		pa, pinned, ok := s.PinPage(core, src, mm.AccessRead)
		if !ok {
			return false
		}
		off := src & mm.PageMask
		n := copy(dst, mm.PageBytes(pa)[off:])
		unpin(s, core, pinned)
		dst = dst[n:]
		src += uintptr(n)
	}
	return true
}

// Prepare makes the n bytes at app address addr resident and writable
// now, faulting each page in as the app's own write would, and answers
// how the first page that could not be made so failed (mm.FaultOK: all
// are ready). A call that collects something before it writes its
// answer (wait4 and waitid reap the zombie first) prepares the answer's
// pages beforehand: a page the kernel has to allocate then cannot lose
// the answer to a memory shortage, which Linux's page allocator waits
// out (its OOM killer frees the victim's memory before the copy
// fails). Any other failure is left to the write, which answers EFAULT
// as Linux's put_user does.
func Prepare(addr, n uintptr) mm.FaultResult {
	if n == 0 || isLent(addr) {
		return mm.FaultOK
	}
	s := Cur()
	for p := mm.PageDown(addr); p < addr+n && p >= mm.PageDown(addr); p += mm.PageSize {
		if _, ok := s.PresentPage(p, mm.AccessWrite); ok {
			continue
		}
		if r := s.Fault(p, mm.AccessWrite); r != mm.FaultOK {
			return r
		}
	}
	return mm.FaultOK
}

// unpin ends a copy's pin of s (mm.Space.PinPage), if it took one.
func unpin(s *mm.Space, core int, pinned bool) {
	if pinned {
		s.Unpin(core)
	}
}

func ReadU32(addr uintptr) (uint32, bool) {
	var b [4]byte
	if !CopyIn(b[:], addr) {
		return 0, false
	}
	return *(*uint32)(unsafe.Pointer(&b[0])), true
}

func ReadU64(addr uintptr) (uint64, bool) {
	var b [8]byte
	if !CopyIn(b[:], addr) {
		return 0, false
	}
	return *(*uint64)(unsafe.Pointer(&b[0])), true
}

func WriteU32(addr uintptr, v uint32) bool {
	b := (*[4]byte)(unsafe.Pointer(&v))
	return CopyOut(addr, b[:])
}

func WriteU64(addr uintptr, v uint64) bool {
	b := (*[8]byte)(unsafe.Pointer(&v))
	return CopyOut(addr, b[:])
}

// CopyInString reads a NUL-terminated string of at most len(buf)-1
// bytes into buf and returns its length.
func CopyInString(buf []byte, addr uintptr) (int, unix.Errno) {
	s, core := Cur(), sched.SelfID()
	for i := 0; i < len(buf); {
		// A page at a time: one pin, one look-up for all its bytes.
		at := addr + uintptr(i)
		pa, pinned, ok := s.PinPage(core, at, mm.AccessRead)
		if !ok {
			return 0, unix.EFAULT
		}
		page := mm.PageBytes(pa)[at&mm.PageMask:]
		n := min(len(page), len(buf)-i)
		end := -1
		for k, c := range page[:n] {
			if c == 0 {
				end = k
				break
			}
		}
		if end >= 0 {
			copy(buf[i:], page[:end])
			unpin(s, core, pinned)
			return i + end, 0
		}
		copy(buf[i:], page[:n])
		unpin(s, core, pinned)
		i += n
	}
	return 0, unix.ENAMETOOLONG
}

// PeekIn reads len(dst) bytes from app address src if every page of them
// is mapped now, without faulting any in (mm.Space.PresentPage), and so
// without the kernel lock; false means only "not without it": the
// caller goes the locked way (CopyIn), which faults pages in or answers
// EFAULT. A write to app memory has no such way: it could land in a
// frame a munmap on another core has just freed.
func PeekIn(dst []byte, src uintptr) bool {
	for len(dst) > 0 {
		pa, ok := Cur().PresentPage(src, mm.AccessRead)
		if !ok {
			return false
		}
		n := copy(dst, mm.PageBytes(pa)[src&mm.PageMask:])
		dst = dst[n:]
		src += uintptr(n)
	}
	return true
}

// PeekU32 is PeekIn of the aligned word at addr.
func PeekU32(addr uintptr) (uint32, bool) {
	if addr&3 != 0 {
		return 0, false
	}
	pa, ok := Cur().PresentPage(addr, mm.AccessRead)
	if !ok {
		return 0, false
	}
	return *(*uint32)(unsafe.Pointer(&mm.PageBytes(pa)[addr&mm.PageMask])), true
}

// PeekU64 is PeekIn of the eight bytes at addr.
func PeekU64(addr uintptr) (uint64, bool) {
	var b [8]byte
	if !PeekIn(b[:], addr) {
		return 0, false
	}
	return *(*uint64)(unsafe.Pointer(&b[0])), true
}

// BytesOf views a value as bytes for copying to the app.
func BytesOf(p unsafe.Pointer, n uintptr) []byte { return unsafe.Slice((*byte)(p), n) }

// PtrOf is unsafe.Pointer for small kernel values copied to the app.
func PtrOf[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
