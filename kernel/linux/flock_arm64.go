package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/locks"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Advisory locks: fcntl's F_GETLK, F_SETLK, F_SETLKW and their F_OFD_
// forms, and flock(2), over kernel/locks (fs/locks.c's fcntl_getlk,
// fcntl_setlk, do_lock_file_wait and flock_lock_inode_wait).

// lockInode is the inode a description's locks are on; -1 for a
// description of no inode here (a pipe, a socket: locks on those are
// EINVAL, where Linux would lock the object's inode).
func lockInode(fl *vfs.File) int32 { return fs.InodeOf(fl) }

// fcntlLock answers fcntl(fd, cmd, struct flock *) for the lock
// commands.
func fcntlLock(t *sched.Thread, fl *vfs.File, cmd uint64, arg uintptr) uint64 {
	var lk unix.Flock_t
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&lk), unsafe.Sizeof(lk)), arg) {
		return errno(unix.EFAULT)
	}
	inode := lockInode(fl)
	if inode < 0 {
		return errno(unix.EINVAL)
	}
	ofd := cmd == unix.F_OFD_GETLK || cmd == unix.F_OFD_SETLK || cmd == unix.F_OFD_SETLKW
	if ofd && lk.Pid != 0 {
		return errno(unix.EINVAL) // fcntl_setlk: an OFD lock names no pid
	}
	start, end, e := lockRange(fl, inode, &lk)
	if e != 0 {
		return errno(e)
	}
	owner, pid := locks.TableOwner(procOf(t).Files), pidOf(t)
	if ofd {
		owner, pid = locks.DescOwner(fl.Index()), -1
	}
	switch cmd {
	case unix.F_GETLK, unix.F_OFD_GETLK:
		if lk.Type != unix.F_RDLCK && lk.Type != unix.F_WRLCK {
			return errno(unix.EINVAL)
		}
		if l := locks.Conflict(inode, locks.Record, owner, lk.Type, start, end); l != nil {
			lk.Type, lk.Whence, lk.Start, lk.Pid = l.Type, unix.SEEK_SET, l.Start, l.Pid
			lk.Len = 0
			if l.End != locks.EOF {
				lk.Len = l.End - l.Start + 1
			}
		} else {
			lk.Type = unix.F_UNLCK
		}
		if !usermem.CopyOut(arg, usermem.BytesOf(unsafe.Pointer(&lk), unsafe.Sizeof(lk))) {
			return errno(unix.EFAULT)
		}
		return 0
	}
	switch lk.Type {
	case unix.F_RDLCK:
		if !fl.Readable() {
			return errno(unix.EBADF)
		}
	case unix.F_WRLCK:
		if !fl.Writable() {
			return errno(unix.EBADF)
		}
	case unix.F_UNLCK:
	default:
		return errno(unix.EINVAL)
	}
	wait := cmd == unix.F_SETLKW || cmd == unix.F_OFD_SETLKW
	return setLock(t, inode, locks.Record, owner, pid, lk.Type, start, end, wait, !ofd, unix.EAGAIN)
}

// setLock takes (or drops) a lock, waiting while another owner's
// conflicts if wait is set: the call runs again when any lock goes
// (locks.Waiters). A POSIX owner about to wait for one that waits for
// it gets EDEADLK instead (checkDeadlock). busy is the answer to a
// conflict without waiting.
func setLock(t *sched.Thread, inode int32, c locks.Class, owner uint64, pid int32, typ int16, start, end int64,
	wait, checkDeadlock bool, busy unix.Errno) uint64 {
	if checkDeadlock {
		locks.Waiting(owner, 0)
	}
	e := locks.Set(inode, c, owner, pid, typ, start, end)
	if typ == unix.F_UNLCK || e == 0 {
		locks.Wake() // a lock dropped or replaced may be what others wait for
	}
	if e != unix.EAGAIN {
		return errno(e)
	}
	if !wait {
		return errno(busy)
	}
	blocker := locks.Conflict(inode, c, owner, typ, start, end)
	if checkDeadlock && blocker != nil && locks.IsTable(blocker.Owner) {
		if locks.WouldDeadlock(owner, blocker.Owner) {
			return errno(unix.EDEADLK)
		}
		if !locks.Waiting(owner, blocker.Owner) {
			return errno(unix.ENOLCK)
		}
	}
	sched.BlockOn(t, &locks.Waiters.Q, sched.WaitFile, unix.EPOLLIN, 0, 0)
	return 0
}

// lockRange turns a struct flock's whence, start and len into the byte
// range [start, end] (flock_to_posix_lock): a negative len reaches
// back from start, 0 runs to the end of the file; EINVAL for a start
// before 0 or a bad whence, EOVERFLOW past the largest offset.
func lockRange(fl *vfs.File, inode int32, lk *unix.Flock_t) (start, end int64, e unix.Errno) {
	switch lk.Whence {
	case unix.SEEK_SET:
	case unix.SEEK_CUR:
		start = fl.Pos
	case unix.SEEK_END:
		start = fs.Inodes[inode].Size
	default:
		return 0, 0, unix.EINVAL
	}
	if lk.Start > locks.EOF-start {
		return 0, 0, unix.EOVERFLOW
	}
	start += lk.Start
	if start < 0 {
		return 0, 0, unix.EINVAL
	}
	switch {
	case lk.Len > 0:
		if lk.Len-1 > locks.EOF-start {
			return 0, 0, unix.EOVERFLOW
		}
		end = start + lk.Len - 1
	case lk.Len < 0:
		end = start - 1
		start += lk.Len
		if start < 0 {
			return 0, 0, unix.EINVAL
		}
	default:
		end = locks.EOF
	}
	return start, end, 0
}

// sysFlock is flock(2): a shared or exclusive lock on the whole file,
// the description's, converted in place (Linux drops the old lock
// before waiting for the new one, and so does this); EWOULDBLOCK with
// LOCK_NB.
func sysFlock(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if f.X[1]&lockMand != 0 {
		return 0 // LOCK_MAND: ignored since Linux 5.15, with a warning, and so here
	}
	var typ int16
	switch f.X[1] &^ unix.LOCK_NB {
	case unix.LOCK_SH:
		typ = unix.F_RDLCK
	case unix.LOCK_EX:
		typ = unix.F_WRLCK
	case unix.LOCK_UN:
		typ = unix.F_UNLCK
	default:
		return errno(unix.EINVAL)
	}
	inode := lockInode(fl)
	if inode < 0 {
		return errno(unix.EINVAL)
	}
	owner := locks.DescOwner(fl.Index())
	wait := f.X[1]&unix.LOCK_NB == 0
	if typ != unix.F_UNLCK && locks.Conflict(inode, locks.Flock, owner, typ, 0, locks.EOF) != nil {
		locks.Set(inode, locks.Flock, owner, -1, unix.F_UNLCK, 0, locks.EOF) // flock_lock_inode drops a lock being converted first
	}
	return setLock(t, inode, locks.Flock, owner, -1, typ, 0, locks.EOF, wait, false, unix.EWOULDBLOCK)
}

// dropPosixLocks is a close of description fi by table files: its
// POSIX locks on the file go (locks_remove_posix, from filp_close).
func dropPosixLocks(files int32, fi int32) {
	if inode := lockInode(&vfs.Files[fi]); inode >= 0 && locks.Release(inode, locks.TableOwner(files)) {
		locks.Wake()
	}
}

// dropTableLocks is the end of descriptor table files: every POSIX
// lock it held goes.
func dropTableLocks(files int32) {
	if locks.Release(-1, locks.TableOwner(files)) {
		locks.Wake()
	}
}

// tableIndex is ft's slot in proc.FDTables.
func tableIndex(ft *proc.FDTable) int32 {
	return int32((uintptr(unsafe.Pointer(ft)) - uintptr(unsafe.Pointer(&proc.FDTables[0]))) / unsafe.Sizeof(proc.FDTables[0]))
}

// lockMand is LOCK_MAND (include/uapi/asm-generic/fcntl.h), which
// flock(2) no longer honours.
const lockMand = 32
