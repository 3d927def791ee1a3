package linux

import (
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/tty"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The descriptor calls act on the calling process's descriptor table
// (proc.FDTable): each descriptor refers to an open-file description
// (vfs.File), with a close-on-exec flag of its own. dup, dup3 and
// F_DUPFD make descriptors that share a description, so they share its
// offset, status flags and object, and an epoll registration lasts
// until the last descriptor of its description is closed (vfs.DecRef),
// as on Linux (open(2), epoll(7)).

// maxFDs is RLIMIT_NOFILE (getrlimit reports it).
const maxFDs = proc.MaxFDs

// files is the calling thread's descriptor table (current->files).
func files() *proc.FDTable { return filesOf(current()) }

// filesOf is t's process's descriptor table.
func filesOf(t *sched.Thread) *proc.FDTable { return &proc.FDTables[procOf(t).Files] }

// getFD returns the description descriptor fd refers to.
func getFD(fd uint64) (*vfs.File, bool) {
	ft := files()
	if fd >= maxFDs || ft.Slots[fd].File == 0 {
		return nil, false
	}
	return &vfs.Files[ft.Slots[fd].File-1], true
}

// fileOf returns the description index of open descriptor fd.
func fileOf(fd int) int32 { return files().Slots[fd].File - 1 }

// freeFD returns the lowest free descriptor >= min, or -1.
func freeFD(min int) int {
	fd := files().Lowest(min)
	if uint64(fd) >= nofile() {
		return -1 // past RLIMIT_NOFILE: the caller's EMFILE
	}
	return fd
}

// nofile is the caller's RLIMIT_NOFILE: the first descriptor it may not
// have (never past the table).
func nofile() uint64 { return min(procOf(current()).Limits[unix.RLIMIT_NOFILE].Cur, maxFDs) }

// openFD makes a new description for impl and gives it the lowest free
// descriptor: the usual end of a call that creates a file. With no
// descriptor free it answers EMFILE, and the caller still holds (and must
// drop) its reference to impl's object; with every description in use
// (the table is the system's, the descriptors each process's) it
// answers ENFILE the same way.
func openFD(impl vfs.Impl, flags uint32, cloexec bool) uint64 {
	fd := freeFD(0)
	if fd < 0 {
		return errno(unix.EMFILE)
	}
	fi := vfs.Alloc(impl, flags)
	if fi < 0 {
		return errno(unix.ENFILE) // every description in use (Linux: the file table's limit)
	}
	setFD(fd, fi, cloexec)
	return uint64(fd)
}

// setFD makes free descriptor fd refer to description fi (whose
// reference the caller gives it).
func setFD(fd int, fi int32, cloexec bool) {
	sched.LockObject(&sched.FDLock) // unlockedIO's lookups
	files().Slots[fd] = proc.FDSlot{File: fi + 1, Cloexec: cloexec}
	sched.FDLock.Unlock()
}

// shareFD makes free descriptor fd refer to description fi.
func shareFD(fd int, fi int32, cloexec bool) {
	vfs.IncRef(fi)
	setFD(fd, fi, cloexec)
}

// initConsoleFDs opens the console once, read-write, as descriptors 0, 1
// and 2, as Linux's init gets it (one open of /dev/console, dup'd twice).
func initConsoleFDs() {
	fd := int(openFD(&tty.Console, unix.O_RDWR, false))
	shareFD(fd+1, fileOf(fd), false)
	shareFD(fd+2, fileOf(fd), false)
}

// closeFD frees descriptor fd, and its description with the last
// descriptor that refers to it.
func closeFD(fd int) {
	fi := fileOf(fd)
	dropPosixLocks(procOf(current()).Files, fi)
	sched.LockObject(&sched.FDLock) // unlockedIO's lookups
	files().Slots[fd] = proc.FDSlot{}
	sched.FDLock.Unlock()
	vfs.DecRef(fi)
}

// refFD returns the description descriptor fd refers to, with a
// reference of the caller's, for a call made without the kernel lock
// (unlockedIO): the descriptor may be closed meanwhile, and the description
// lives on until the call drops it (unrefFD).
func refFD(fd uint64) int32 {
	if fd >= maxFDs {
		return -1
	}
	sched.LockObject(&sched.FDLock)
	fi := files().Slots[fd].File - 1
	if fi >= 0 {
		vfs.IncRef(fi)
	}
	sched.FDLock.Unlock()
	return fi
}

// unrefFD drops refFD's reference to description fi, on core c, and
// reports whether it was the last: a close on another core meanwhile
// left the release to it, made here under the kernel lock (taken with
// no other lock held), so the object may be gone.
func unrefFD(c *sched.CPU, fi int32) (last bool) {
	if vfs.PutRef(fi) {
		return false
	}
	sched.KernelLock.Lock(c.ID)
	vfs.DecRef(fi)
	sched.KernelLock.Unlock()
	return true
}

func sysClose(t *sched.Thread, f *sched.Frame) uint64 {
	if _, ok := getFD(f.X[0]); !ok {
		return errno(unix.EBADF)
	}
	closeFD(int(f.X[0]))
	return 0
}

func sysDup(t *sched.Thread, f *sched.Frame) uint64 {
	if _, ok := getFD(f.X[0]); !ok {
		return errno(unix.EBADF)
	}
	n := freeFD(0)
	if n < 0 {
		return errno(unix.EMFILE)
	}
	shareFD(n, fileOf(int(f.X[0])), false)
	return uint64(n)
}

// sysDup3 checks as ksys_dup3 does, in its order: flags, the same
// descriptor twice (EINVAL), a new one past RLIMIT_NOFILE, an old one
// not open (EBADF).
func sysDup3(t *sched.Thread, f *sched.Frame) uint64 {
	nfd := f.X[1]
	switch {
	case f.X[2]&^unix.O_CLOEXEC != 0 || f.X[0] == nfd:
		return errno(unix.EINVAL)
	case nfd >= nofile():
		return errno(unix.EBADF)
	}
	if _, ok := getFD(f.X[0]); !ok {
		return errno(unix.EBADF)
	}
	fi := fileOf(int(f.X[0]))
	vfs.IncRef(fi) // held across the close below, which may be of a dup of it
	if files().Slots[nfd].File != 0 {
		closeFD(int(nfd))
	}
	setFD(int(nfd), fi, f.X[2]&unix.O_CLOEXEC != 0)
	return nfd
}

func sysFcntl(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	fd := int(f.X[0])
	switch f.X[1] {
	case unix.F_GETFD:
		if files().Slots[fd].Cloexec {
			return unix.FD_CLOEXEC
		}
		return 0
	case unix.F_SETFD:
		files().Slots[fd].Cloexec = f.X[2]&unix.FD_CLOEXEC != 0
		return 0
	case unix.F_GETFL:
		return uint64(fl.Flags)
	case unix.F_SETFL:
		// On the description: every dup sees the change (fcntl(2)).
		const changeable = unix.O_NONBLOCK | unix.O_APPEND
		fl.Flags = fl.Flags&^changeable | uint32(f.X[2])&changeable
		return 0
	case unix.F_DUPFD, unix.F_DUPFD_CLOEXEC:
		if f.X[2] >= nofile() {
			return errno(unix.EINVAL) // f_dupfd: past RLIMIT_NOFILE
		}
		n := freeFD(int(f.X[2]))
		if n < 0 {
			return errno(unix.EMFILE)
		}
		shareFD(n, fileOf(fd), f.X[1] == unix.F_DUPFD_CLOEXEC)
		return uint64(n)
	case unix.F_GETLK, unix.F_SETLK, unix.F_SETLKW, unix.F_OFD_GETLK, unix.F_OFD_SETLK, unix.F_OFD_SETLKW:
		return fcntlLock(t, fl, f.X[1], uintptr(f.X[2]))
	}
	return errno(unix.EINVAL)
}
