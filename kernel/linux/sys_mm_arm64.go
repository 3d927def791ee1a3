package linux

import (
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

func protOf(p uint64) (mm.Prot, bool) {
	if p&^uint64(unix.PROT_READ|unix.PROT_WRITE|unix.PROT_EXEC) != 0 {
		return 0, false
	}
	return mm.Prot(p), true // PROT_* bits equal mm.Prot bits
}

func sysMmap(t *sched.Thread, f *sched.Frame) uint64 {
	addr, length, prot, flags := uintptr(f.X[0]), uintptr(f.X[1]), f.X[2], int(f.X[3])
	p, ok := protOf(prot)
	if !ok {
		return errno(unix.EINVAL)
	}
	if flags&unix.MAP_ANONYMOUS == 0 {
		return errno(unix.ENODEV) // file mappings are not supported yet
	}
	if flags&(unix.MAP_PRIVATE|unix.MAP_SHARED) == 0 {
		return errno(unix.EINVAL)
	}
	a, e := usermem.Cur().Mmap(addr, length, p, flags)
	if e != 0 {
		return errno(e)
	}
	return uint64(a)
}

func sysMunmap(t *sched.Thread, f *sched.Frame) uint64 {
	return errno(usermem.Cur().Munmap(uintptr(f.X[0]), uintptr(f.X[1])))
}

func sysMprotect(t *sched.Thread, f *sched.Frame) uint64 {
	p, ok := protOf(f.X[2])
	if !ok {
		return errno(unix.EINVAL)
	}
	return errno(usermem.Cur().Mprotect(uintptr(f.X[0]), uintptr(f.X[1]), p))
}

func sysMadvise(t *sched.Thread, f *sched.Frame) uint64 {
	switch f.X[2] {
	case unix.MADV_DONTNEED, unix.MADV_FREE, unix.MADV_REMOVE:
		return errno(usermem.Cur().DontNeed(uintptr(f.X[0]), uintptr(f.X[1])))
	case unix.MADV_NORMAL, unix.MADV_RANDOM, unix.MADV_SEQUENTIAL, unix.MADV_WILLNEED,
		unix.MADV_HUGEPAGE, unix.MADV_NOHUGEPAGE, unix.MADV_COLLAPSE, unix.MADV_DONTDUMP, unix.MADV_DODUMP:
		if f.X[0]&mm.PageMask != 0 {
			return errno(unix.EINVAL)
		}
		return 0 // advice only
	}
	return errno(unix.EINVAL)
}

// brk: there is no heap segment; report the current break and refuse to
// move it, which is how Linux answers a brk it cannot grow. Go never uses
// brk on linux/arm64.
func sysBrk(t *sched.Thread, f *sched.Frame) uint64 { return uint64(usermem.Cur().Brk) }
