package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
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
func sysMsync(t *sched.Thread, f *sched.Frame) uint64    { return mapCall(f, true) }

// sysMremap is mremap(2) (mm.Space.Mremap), on the locked way: it may
// move a file mapping. Go's runtime does not call it, x/sys/unix's
// Mremap does.
func sysMremap(t *sched.Thread, f *sched.Frame) uint64 {
	a, e := usermem.Cur().Mremap(uintptr(f.X[0]), uintptr(f.X[1]), uintptr(f.X[2]), int(f.X[3]), uintptr(f.X[4]))
	if e != 0 {
		return errno(e)
	}
	return uint64(a)
}

// initFileMaps lets the address spaces reach the files they map: a
// VMA's use of its file is an open's (fs.Hold, and of its mount), and a
// fault on a file mapping finds its page in the page cache (fs.MapPage).
func initFileMaps() {
	mm.FileRef = fileRef
	mm.FilePage = fs.MapPage
	mm.FileCached = fs.CachedPage
	mm.DevicePage = devicePage
}

func fileRef(file, mnt int32, delta int) {
	if delta > 0 {
		fbMapRef(file, 1)
		fs.Hold(file)
		fs.UseMount(mnt)
		return
	}
	// A shared mapping's stores go to the store before the mapping's
	// use of the file ends (Linux writes dirty pages back at the latest
	// when the file's last use goes; an error is the next fsync's).
	fs.WriteBackMapped(file)
	fbMapRef(file, -1)
	fs.Drop(file)
	fs.UnuseMount(mnt)
}

// mapFile answers mmap with a descriptor (Linux's do_mmap and
// shmem_mmap): a regular file of a file system with pages (tmpfs, the
// initramfs) is mapped through its page cache; MAP_SHARED of /dev/zero
// is anonymous memory (shared only until a fork: anonymous shared
// memory is not built); anything else cannot be mapped (ENODEV, as
// Linux answers for a file with no mmap operation).
func mapFile(s *mm.Space, f *sched.Frame, p mm.Prot, flags int) uint64 {
	fl, ok := getFD(f.X[4])
	if !ok {
		return errno(unix.EBADF)
	}
	off := uintptr(f.X[5])
	if off&mm.PageMask != 0 {
		return errno(unix.EINVAL)
	}
	shared := isShared(flags)
	n, isInode := fl.Impl.(*fs.Inode)
	switch {
	case fl.Impl == vfs.Impl(&fbDevImpl):
		return mapFB(s, f, fl, p, flags)
	case fl.Impl == vfs.Impl(&memDevImpl) && devRdev(fl) == devZero:
		// Linux's mmap_zero: a private mapping is anonymous memory, a
		// shared one anonymous shared memory.
		if shared {
			return mapAnonShared(s, uintptr(f.X[0]), uintptr(f.X[1]), p, flags)
		}
		a, e := s.MmapOr(uintptr(f.X[0]), uintptr(f.X[1]), p, flags|unix.MAP_ANONYMOUS, true)
		if e != 0 {
			return errno(e)
		}
		return uint64(a)
	case !isInode || n.Mode&unix.S_IFMT != unix.S_IFREG || n.Synth.Kind != 0:
		return errno(unix.ENODEV)
	case !fl.Readable():
		return errno(unix.EACCES)
	case off+mm.PageUp(uintptr(f.X[1])) < off || off+mm.PageUp(uintptr(f.X[1])) > maxFileSize:
		// Past what a file offset can be (file_mmap_ok); a mapping
		// may still reach past the end, and past fs.MaxSize: a touch
		// there is SIGBUS.
		return errno(unix.EOVERFLOW)
	}
	v := mm.VMA{Prot: p, File: n.Index(), Mnt: fs.MountOf(fl), Off: off}
	if shared {
		v.Flags |= mm.VMAShared
		if !fl.Writable() || fl.Flags&unix.O_APPEND != 0 {
			if p&mm.ProtWrite != 0 {
				return errno(unix.EACCES)
			}
			v.Flags |= mm.VMANoWrite
		}
		if v.Flags&mm.VMANoWrite == 0 && fs.WriterOf(n.Index()) != nil {
			if fs.Supers[n.Super].Type == fs.Type9p {
				// A share's shared mapping that may write is EINVAL,
				// as Linux's v9fs answers without cache=mmap
				// (generic_file_readonly_mmap).
				return errno(unix.EINVAL)
			}
			// ext4: the mapping's stores reach the disk when written
			// back (msync, fsync, the mapping's end).
			fs.MappedForWrite(n.Index())
		}
	}
	a, e := s.MmapVMA(uintptr(f.X[0]), uintptr(f.X[1]), v, flags, true)
	if e != 0 {
		return errno(e)
	}
	return uint64(a)
}

// maxFileSize is Linux's MAX_LFS_FILESIZE on 64-bit: the largest file
// offset.
const maxFileSize = 1<<63 - 1

// mapType is the mmap flags' type field (Linux's MAP_TYPE).
const mapType = 0x0f

func isShared(flags int) bool {
	return flags&mapType == unix.MAP_SHARED || flags&mapType == unix.MAP_SHARED_VALIDATE
}

// mapAnonShared maps anonymous shared memory: pages of an unnamed file
// (fs.NewAnonFile, Linux's shmem_zero_setup), which a fork's copy of the
// mapping shares instead of copying.
func mapAnonShared(s *mm.Space, hint, length uintptr, p mm.Prot, flags int) uint64 {
	if length == 0 || mm.PageUp(length) < length {
		return errno(unix.EINVAL)
	}
	i, e := fs.NewAnonFile(int64(mm.PageUp(length)))
	if e != 0 {
		return errno(unix.ENOMEM)
	}
	v := mm.VMA{Prot: p, Flags: mm.VMAShared | mm.VMAAnonShared, File: i, Mnt: fs.RootMount}
	a, e := s.MmapVMA(hint, length, v, flags&^unix.MAP_ANONYMOUS, true)
	fs.DropUnused(i) // the VMA's use keeps it, if it was made
	if e != 0 {
		return errno(e)
	}
	return uint64(a)
}

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
		case flags&(unix.MAP_PRIVATE|unix.MAP_SHARED) == 0:
			return errno(unix.EINVAL)
		case flags&unix.MAP_ANONYMOUS == 0:
			return mapFile(s, f, p, flags) // on the locked way only (lockFreeMM)
		case isShared(flags):
			if !wait {
				return errno(mm.ErrBusy) // a file is made: the locked way
			}
			return mapAnonShared(s, a0, a1, p, flags)
		}
		a, e := s.MmapOr(a0, a1, p, flags, wait)
		if e != 0 {
			return errno(e)
		}
		return uint64(a)
	case unix.SYS_MUNMAP:
		return errno(s.MunmapOr(a0, a1, wait))
	case unix.SYS_MSYNC:
		return errno(msync(s, a0, a1, int(f.X[2])))
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

// msync checks its arguments as Linux's does and has nothing to write:
// every file that can be mapped keeps its data in memory (tmpfs, the
// initramfs), whose MAP_SHARED pages are the file's own pages.
// EINVAL: unaligned, unknown flags, or both MS_SYNC and MS_ASYNC; ENOMEM:
// part of the range is not mapped (msync(2)).
func msync(s *mm.Space, addr, length uintptr, flags int) unix.Errno {
	if addr&mm.PageMask != 0 || flags&^(unix.MS_ASYNC|unix.MS_SYNC|unix.MS_INVALIDATE) != 0 ||
		flags&unix.MS_ASYNC != 0 && flags&unix.MS_SYNC != 0 {
		return unix.EINVAL
	}
	end := mm.PageUp(addr + length)
	if end < addr {
		return unix.ENOMEM
	}
	s.Lock()
	mapped := s.VMAs.Covers(addr, end)
	// The files of the shared mappings in the range, which write back
	// (a few: the rest are written back at fsync or the mapping's end).
	var files [8]int32
	nf := 0
	for k := 0; k < s.VMAs.Len() && nf < len(files); k++ {
		v := s.VMAs.At(k)
		if v.Start < end && addr < v.End && v.File > 0 && v.Flags&mm.VMAShared != 0 && v.Flags&mm.VMANoWrite == 0 {
			files[nf] = v.File
			nf++
		}
	}
	s.Unlock()
	if !mapped {
		return unix.ENOMEM
	}
	for k := 0; k < nf; k++ {
		// MS_ASYNC starts the write-back (done at once here); MS_SYNC
		// also waits for it to be durable.
		if e := fs.WriteBackMapped(files[k]); e != 0 {
			return e
		}
		if flags&unix.MS_SYNC != 0 {
			if e := fs.SyncStored(files[k], false); e != 0 {
				return e
			}
		}
	}
	return 0
}

// lockFreeMM answers mmap, munmap, mprotect and madvise without the
// kernel lock (kernel.Personality.LockFree): anonymous memory is the
// address space's alone, its VMAs, page table and resident count are
// changed under the space's lock (mm.Space.MmapOr and kin take it), and
// the frames go back to the page allocator under its own. None of them
// allocates a frame, so none can run out of memory and need the OOM
// killer, which is the locked way's. What the kernel lock still keeps
// from them: a file mapping (a use of a file, taken and given back
// with the file layer's Hold and Drop: the locked way makes one, and a
// munmap, mprotect or MAP_FIXED over one answers mm.ErrBusy without the
// kernel lock, so that the locked way removes it; a fault on one goes
// the locked way too, mm.FaultLocked, to reach the page cache), a fork copying the space (CopySpace takes
// the space's lock before it reads the VMAs), an exec (which replaces
// the space only once the process has one thread left) and an exit
// (the space is torn down once no core holds it, and the caller's core
// holds it). Kernel copies into the space made under the kernel lock
// pin it (mm.Space.PinPage), so that a removal here does not free a
// frame they write; a removal that would have to wait for a pin goes
// the locked way (mm.ErrBusy), which may wait.
func lockFreeMM(f *sched.Frame) bool {
	if f.X[8] == unix.SYS_MMAP && (int(f.X[3])&unix.MAP_ANONYMOUS == 0 || isShared(int(f.X[3]))) {
		return false // a file to map, or to make (anonymous shared memory)
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
