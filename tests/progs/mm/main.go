//go:build linux && arm64

// Mm checks the memory syscalls against Linux semantics: demand-zero
// pages, MADV_DONTNEED, mprotect keeping contents, mmap hints and
// MAP_FIXED_NOREPLACE, and a fault on a PROT_NONE page turning into a
// recoverable panic with the faulting address.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"unsafe"

	"golang.org/x/sys/unix"
)

const page = 4096

var failed bool

func check(name string, ok bool) {
	if !ok {
		fmt.Println("FAIL:", name)
		failed = true
	}
}

func main() {
	b, err := unix.Mmap(-1, 0, 16*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		fmt.Println("FAIL: mmap:", err)
		os.Exit(1)
	}
	check("fresh pages are zero", b[0] == 0 && b[15*page+100] == 0)
	for i := range b {
		b[i] = byte(i/page + 1)
	}
	check("madvise DONTNEED", unix.Madvise(b[:8*page], unix.MADV_DONTNEED) == nil)
	check("DONTNEED pages read back zero", b[0] == 0 && b[7*page+4095] == 0)
	check("other pages intact", b[8*page] == 9 && b[15*page] == 16)

	check("mprotect NONE", unix.Mprotect(b[8*page:9*page], unix.PROT_NONE) == nil)
	check("mprotect back to RW", unix.Mprotect(b[8*page:9*page], unix.PROT_READ|unix.PROT_WRITE) == nil)
	check("contents survive PROT_NONE", b[8*page+7] == 9)

	// Raw munmap: unix.Munmap only takes whole mappings it made.
	hole := uintptr(unsafe.Pointer(&b[10*page]))
	_, _, e := unix.Syscall(unix.SYS_MUNMAP, hole, page, 0)
	check("munmap one page", e == 0)
	r, _, e := unix.Syscall6(unix.SYS_MMAP, hole, page, unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED_NOREPLACE, ^uintptr(0), 0)
	check("MAP_FIXED_NOREPLACE into the hole", e == 0 && r == hole)
	_, _, e = unix.Syscall6(unix.SYS_MMAP, hole+page, page, unix.PROT_READ,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED_NOREPLACE, ^uintptr(0), 0)
	check("MAP_FIXED_NOREPLACE over a mapping is EEXIST", e == unix.EEXIST)

	const hint = 0x0000_5000_0000_0000
	r, _, e = unix.Syscall6(unix.SYS_MMAP, hint, page, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS, ^uintptr(0), 0)
	check("a free hint is honoured", e == 0 && r == hint)

	// A fault on a PROT_NONE page: SIGSEGV with si_addr, which Go turns
	// into a panic when SetPanicOnFault is on.
	check("mprotect NONE again", unix.Mprotect(b[12*page:13*page], unix.PROT_NONE) == nil)
	target := uintptr(unsafe.Pointer(&b[12*page+24]))
	func() {
		debug.SetPanicOnFault(true)
		defer debug.SetPanicOnFault(false)
		defer func() {
			r := recover()
			var fe interface{ Addr() uintptr }
			err, _ := r.(error)
			check("fault became a panic", r != nil)
			check("panic carries the fault address", errors.As(err, &fe) && fe.Addr() == target)
		}()
		_ = *(*byte)(unsafe.Pointer(target))
	}()
	if failed {
		os.Exit(1)
	}
	fmt.Println("mm ok")
}
