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

func sysMmap(t *sched.Thread, f *sched.Frame) uint64     { return mapCall(f, true) }
func sysMunmap(t *sched.Thread, f *sched.Frame) uint64   { return mapCall(f, true) }
func sysMprotect(t *sched.Thread, f *sched.Frame) uint64 { return mapCall(f, true) }
func sysMadvise(t *sched.Thread, f *sched.Frame) uint64  { return mapCall(f, true) }

// mapCall answers mmap, munmap, mprotect or madvise (f.X[8]) on the
// caller's address space. Without wait (no kernel lock held:
// lockFreeMM) it answers errno(mm.ErrBusy), having changed nothing,
// where it would wait for a core pinned on the space.
func mapCall(f *sched.Frame, wait bool) uint64 {
	s := usermem.Cur()
	a0, a1 := uintptr(f.X[0]), uintptr(f.X[1])
	switch f.X[8] {
	case unix.SYS_MMAP:
		flags := int(f.X[3])
		p, ok := protOf(f.X[2])
		switch {
		case !ok:
			return errno(unix.EINVAL)
		case flags&unix.MAP_ANONYMOUS == 0:
			return errno(unix.ENODEV) // file mappings are not supported yet
		case flags&(unix.MAP_PRIVATE|unix.MAP_SHARED) == 0:
			return errno(unix.EINVAL)
		}
		a, e := s.MmapOr(a0, a1, p, flags, wait)
		if e != 0 {
			return errno(e)
		}
		return uint64(a)
	case unix.SYS_MUNMAP:
		return errno(s.MunmapOr(a0, a1, wait))
	case unix.SYS_MPROTECT:
		p, ok := protOf(f.X[2])
		if !ok {
			return errno(unix.EINVAL)
		}
		return errno(s.MprotectOr(a0, a1, p, wait))
	}
	switch f.X[2] { // madvise
	case unix.MADV_DONTNEED, unix.MADV_FREE, unix.MADV_REMOVE:
		return errno(s.DontNeedOr(a0, a1, wait))
	case unix.MADV_NORMAL, unix.MADV_RANDOM, unix.MADV_SEQUENTIAL, unix.MADV_WILLNEED,
		unix.MADV_HUGEPAGE, unix.MADV_NOHUGEPAGE, unix.MADV_COLLAPSE, unix.MADV_DONTDUMP, unix.MADV_DODUMP:
		if f.X[0]&mm.PageMask != 0 {
			return errno(unix.EINVAL)
		}
		return 0 // advice only
	}
	return errno(unix.EINVAL)
}

// lockFreeMM answers mmap, munmap, mprotect and madvise without the
// kernel lock (kernel.Personality.LockFree): anonymous memory is the
// address space's alone, its VMAs, page table and resident count are
// changed under the space's lock (mm.Space.MmapOr and kin take it), and
// the frames go back to the page allocator under its own. None of them
// allocates a frame, so none can run out of memory and need the OOM
// killer, which is the locked way's. What the kernel lock still keeps
// from them: a file mapping (a reference to a file: the locked way
// answers it, today ENODEV), a fork copying the space (CopySpace takes
// the space's lock before it reads the VMAs), an exec (which replaces
// the space only once the process has one thread left) and an exit
// (the space is torn down once no core holds it, and the caller's core
// holds it). Kernel copies into the space made under the kernel lock
// pin it (mm.Space.PinPage), so that a removal here does not free a
// frame they write; a removal that would have to wait for a pin goes
// the locked way (mm.ErrBusy), which may wait.
func lockFreeMM(f *sched.Frame) bool {
	if f.X[8] == unix.SYS_MMAP && int(f.X[3])&unix.MAP_ANONYMOUS == 0 {
		return false
	}
	r := mapCall(f, false)
	if r == errno(mm.ErrBusy) {
		return false
	}
	f.X[0] = r
	return true
}

// brk: there is no heap segment; report the current break and refuse to
// move it, which is how Linux answers a brk it cannot grow. Go never uses
// brk on linux/arm64.
func sysBrk(t *sched.Thread, f *sched.Frame) uint64 { return uint64(usermem.Cur().Brk) }
