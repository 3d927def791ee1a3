//go:build !arm64

package usermem

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// hostMemory is the Go memory that plays physical memory in host tests.
var hostMemory []byte

// HostReset is the starting state of a host test of code that reaches
// app memory: physPages pages of Go memory play physical memory (mm.Pages,
// with the direct map at offset 0), and the calling core's address space
// (Cur) is a fresh one with
// appPages pages mapped read-write at the returned address. Host builds
// only.
func HostReset(physPages, appPages int) uintptr {
	mm.PhysOffset = 0
	hostMemory = make([]byte, (physPages+1)*mm.PageSize)
	start := mm.PageUp(uintptr(unsafe.Pointer(&hostMemory[0])))
	mm.Pages = mm.Alloc{}
	mm.Pages.AddRange(start, start+uintptr(physPages)*mm.PageSize)
	mm.Spaces = [mm.MaxSpaces]mm.Space{}
	i := mm.NewSpace(&mm.Pages)
	if i < 0 {
		panic("usermem: host address space")
	}
	current = [mm.MaxCores]*mm.Space{}
	Use(sched.SelfID(), &mm.Spaces[i])
	base, e := Cur().Mmap(0, uintptr(appPages)*mm.PageSize, mm.ProtRead|mm.ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if e != 0 {
		panic("usermem: host mmap: " + e.Error())
	}
	return base
}
