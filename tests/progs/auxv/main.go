//go:build linux && arm64

// Auxv prints the auxiliary vector the kernel built, read back through
// the runtime (golang.org/x/sys/unix.Auxv), and checks the entries Go and
// libc rely on.
package main

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Keys from include/uapi/linux/auxvec.h.
const (
	atPhdr   = 3
	atPhent  = 4
	atPhnum  = 5
	atPagesz = 6
	atEntry  = 9
	atHwcap  = 16
	atRandom = 25
	atExecfn = 31
)

func main() {
	av, err := unix.Auxv()
	if err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	m := map[uintptr]uintptr{}
	for _, kv := range av {
		m[kv[0]] = kv[1]
	}
	ok := true
	check := func(name string, cond bool) {
		if !cond {
			fmt.Println("FAIL:", name)
			ok = false
		}
	}
	check("AT_PAGESZ = 4096", m[atPagesz] == 4096)
	check("AT_PHENT = 56", m[atPhent] == 56)
	check("AT_PHNUM > 0", m[atPhnum] > 0)
	check("AT_PHDR points at ELF program headers", m[atPhdr] != 0 && *(*uint32)(unsafe.Pointer(m[atPhdr])) == 6) // PT_PHDR first
	check("AT_ENTRY set", m[atEntry] != 0)
	check("AT_HWCAP has FP and ASIMD", m[atHwcap]&3 == 3)
	check("AT_HWCAP without CPUID emulation", m[atHwcap]&(1<<11) == 0)
	rnd := m[atRandom]
	check("AT_RANDOM set", rnd != 0)
	if rnd != 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(rnd)), 16)
		zero := true
		for _, c := range b {
			zero = zero && c == 0
		}
		check("AT_RANDOM bytes are not all zero", !zero)
	}
	if fn := m[atExecfn]; fn != 0 {
		s := unsafe.Slice((*byte)(unsafe.Pointer(fn)), 5)
		check("AT_EXECFN is /init", string(s) == "/init")
	}
	fmt.Printf("auxv: %d entries, pagesz=%d hwcap=%#x phnum=%d\n", len(av), m[atPagesz], m[atHwcap], m[atPhnum])
	if ok {
		fmt.Println("auxv ok")
	}
}
