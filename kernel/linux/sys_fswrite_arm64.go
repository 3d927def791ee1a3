package linux

import (
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/usermem"
	"unsafe"

	"github.com/gometal/gometal/kernel/cpio"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Syscalls that change the file system. They act on the tmpfs; anything
// that came in the initramfs answers EROFS.

// createAt makes a new tmpfs node at (dirfd, upath), which must not
// exist yet and whose directory must.
func createAt(dirfd int64, upath uintptr, mode uint32) (int32, unix.Errno) {
	var path [fs.PathMax]byte
	n, _, e := resolveAt(&path, dirfd, upath)
	if e != 0 {
		return -1, e
	}
	return fs.Create(path[:n], mode)
}

func sysMkdirat(t *sched.Thread, f *sched.Frame) uint64 {
	_, e := createAt(int64(f.X[0]), uintptr(f.X[1]), unix.S_IFDIR|uint32(f.X[2])&0o7777&^umask)
	return errno(e)
}

func sysUnlinkat(t *sched.Thread, f *sched.Frame) uint64 {
	var path [fs.PathMax]byte
	n, tail, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	flags := f.X[2]
	if flags&^uint64(unix.AT_REMOVEDIR) != 0 {
		return errno(unix.EINVAL)
	}
	return errno(fs.Unlink(path[:n], tail, flags&unix.AT_REMOVEDIR != 0))
}

func renameCommon(f *sched.Frame, flags uint64) uint64 {
	var from, to [fs.PathMax]byte
	n, ftail, e := resolveAt(&from, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	m, ttail, e := resolveAt(&to, int64(f.X[2]), uintptr(f.X[3]))
	if e != 0 {
		return errno(e)
	}
	// A path that does not end in a name cannot be renamed or replaced
	// (Linux's do_renameat2: EBUSY); one that ends in a slash must be a
	// directory.
	if (ftail|ttail)&(fs.TailDot|fs.TailDotDot) != 0 {
		return errno(unix.EBUSY)
	}
	if (ftail|ttail)&fs.TailDir != 0 {
		if r, ok := fs.LookupAny(from[:n]); ok && !r.IsDir() {
			return errno(unix.ENOTDIR)
		}
	}
	if flags&^uint64(unix.RENAME_NOREPLACE) != 0 {
		return errno(unix.EINVAL)
	}
	if flags&unix.RENAME_NOREPLACE != 0 {
		if _, ok := fs.LookupAny(to[:m]); ok {
			return errno(unix.EEXIST)
		}
	}
	return errno(fs.TmpRename(from[:n], to[:m]))
}

func sysRenameat(t *sched.Thread, f *sched.Frame) uint64  { return renameCommon(f, 0) }
func sysRenameat2(t *sched.Thread, f *sched.Frame) uint64 { return renameCommon(f, f.X[4]) }

func sysSymlinkat(t *sched.Thread, f *sched.Frame) uint64 {
	var target, path [fs.PathMax]byte
	tn, e := usermem.CopyInString(target[:], uintptr(f.X[0]))
	if e != 0 {
		return errno(e)
	}
	if tn == 0 {
		return errno(unix.ENOENT)
	}
	n, _, e := resolveAt(&path, int64(f.X[1]), uintptr(f.X[2]))
	if e != 0 {
		return errno(e)
	}
	return errno(fs.Symlink(path[:n], target[:tn]))
}

// sysLinkat is linkat(2): another name for a tmpfs file. AT_SYMLINK_FOLLOW
// links what a final symlink points to; without it the symlink itself.
func sysLinkat(t *sched.Thread, f *sched.Frame) uint64 {
	flags := f.X[4]
	if flags&^uint64(unix.AT_SYMLINK_FOLLOW|unix.AT_EMPTY_PATH) != 0 {
		return errno(unix.EINVAL)
	}
	var from, to, final [fs.PathMax]byte
	n, tail, e := resolveAt(&from, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	_, fp, _, e := lookupAt(from[:n], tail, flags&unix.AT_SYMLINK_FOLLOW != 0, &final)
	if e != 0 {
		return errno(e)
	}
	m, ttail, e := resolveAt(&to, int64(f.X[2]), uintptr(f.X[3]))
	if e != 0 {
		return errno(e)
	}
	if ttail != 0 {
		if _, ok := fs.LookupAny(to[:m]); ok {
			return errno(unix.EEXIST)
		}
		return errno(unix.ENOENT) // a new name cannot end in "/" (do_linkat)
	}
	return errno(fs.Link(fp, to[:m]))
}

func sysFtruncate(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	size := int64(f.X[1])
	if size < 0 || size > fs.TmpMaxSize {
		return errno(unix.EINVAL)
	}
	switch impl := fl.Impl.(type) {
	case *fs.TmpNode:
		if impl.IsDir() || !fl.Writable() {
			return errno(unix.EINVAL)
		}
		fs.TmpTruncate(impl, size)
		return 0
	case *fs.ArchiveFile:
		if !impl.IsDir() {
			return errno(unix.EROFS)
		}
	}
	return errno(unix.EINVAL)
}

// sysTruncate is truncate(2): ftruncate by path, following symlinks.
func sysTruncate(t *sched.Thread, f *sched.Frame) uint64 {
	var path, final [fs.PathMax]byte
	n, tail, e := resolveAt(&path, unix.AT_FDCWD, uintptr(f.X[0]))
	if e != 0 {
		return errno(e)
	}
	size := int64(f.X[1])
	if size < 0 || size > fs.TmpMaxSize {
		return errno(unix.EINVAL)
	}
	r, _, _, e := lookupAt(path[:n], tail, true, &final)
	switch {
	case e != 0:
		return errno(e)
	case r.IsDir():
		return errno(unix.EISDIR)
	case r.Mode()&cpio.S_IFMT != cpio.S_IFREG:
		return errno(unix.EINVAL)
	case r.Tmp < 0:
		return errno(unix.EROFS) // the initramfs is read-only
	}
	fs.TmpTruncate(&fs.TmpNodes[r.Tmp], size)
	return 0
}

// sysChmodLike accepts permission, ownership and timestamp changes on
// tmpfs nodes (mode bits are kept; owners and times are not enforced).
func sysFchmod(t *sched.Thread, f *sched.Frame) uint64 { return chmodFD(f.X[0], f.X[1]) }

// chmodFD sets the mode of the file descriptor fd refers to.
func chmodFD(fd, mode uint64) uint64 {
	fl, ok := getFD(fd)
	if !ok {
		return errno(unix.EBADF)
	}
	if nd, ok := fl.Impl.(*fs.TmpNode); ok {
		nd.Mode = nd.Mode&unix.S_IFMT | uint32(mode)&0o7777
		return 0
	}
	return errno(unix.EROFS)
}

// pathTmpNode finds the tmpfs node (dirfd X0, path X1) names, following
// a final symlink if follow is set (EROFS for the initramfs's).
func pathTmpNode(f *sched.Frame, follow bool) (int32, uint64) {
	var path [fs.PathMax]byte
	n, tail, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return -1, errno(e)
	}
	var final [fs.PathMax]byte
	r, _, _, e := lookupAt(path[:n], tail, follow, &final)
	if e != 0 {
		return -1, errno(e)
	}
	if r.Tmp < 0 {
		return -1, errno(unix.EROFS)
	}
	return r.Tmp, 0
}

// sysFchmodat is fchmodat(2), which has no flags: it follows symlinks.
func sysFchmodat(t *sched.Thread, f *sched.Frame) uint64 { return chmodAt(f, 0) }

// sysFchmodat2 is fchmodat2 (Linux 6.6), fchmodat with flags; Go's
// os.Root asks it not to follow a final symlink.
func sysFchmodat2(t *sched.Thread, f *sched.Frame) uint64 { return chmodAt(f, f.X[3]) }

func chmodAt(f *sched.Frame, flags uint64) uint64 {
	if flags&^uint64(unix.AT_SYMLINK_NOFOLLOW|unix.AT_EMPTY_PATH) != 0 {
		return errno(unix.EINVAL)
	}
	if flags&unix.AT_EMPTY_PATH != 0 && emptyPath(uintptr(f.X[1])) {
		return chmodFD(f.X[0], f.X[2])
	}
	i, e := pathTmpNode(f, flags&unix.AT_SYMLINK_NOFOLLOW == 0)
	if e != 0 {
		return e
	}
	nd := &fs.TmpNodes[i]
	if nd.Mode&unix.S_IFMT == unix.S_IFLNK {
		return errno(unix.EOPNOTSUPP) // a symlink has no mode of its own (fchmodat2)
	}
	nd.Mode = nd.Mode&unix.S_IFMT | uint32(f.X[2])&0o7777
	return 0
}

// emptyPath reports whether the app's string at addr is "" (AT_EMPTY_PATH
// then means the descriptor itself).
func emptyPath(addr uintptr) bool {
	var b [1]byte
	return usermem.CopyIn(b[:], addr) && b[0] == 0
}

func sysUtimensat(t *sched.Thread, f *sched.Frame) uint64 {
	times, set, e := readUtimes(uintptr(f.X[2]))
	if e != 0 {
		return errno(e)
	}
	i := int32(-1)
	if f.X[1] == 0 { // futimens(fd)
		fl, ok := getFD(f.X[0])
		if !ok {
			return errno(unix.EBADF)
		}
		nd, ok := fl.Impl.(*fs.TmpNode)
		if !ok {
			return errno(unix.EROFS)
		}
		i = nd.Index()
	} else {
		var e uint64
		if i, e = pathTmpNode(f, f.X[3]&unix.AT_SYMLINK_NOFOLLOW == 0); e != 0 {
			return e
		}
	}
	if set[0] {
		fs.TmpNodes[i].Atime = times[0]
	}
	if set[1] {
		fs.TmpNodes[i].Mtime = times[1]
	}
	return 0
}

// utimensat(2)'s special nanosecond values.
const (
	utimeNow  = 1<<30 - 1
	utimeOmit = 1<<30 - 2
)

// readUtimes reads utimensat's two timespecs at addr: the access and
// the modification time, in nanoseconds, and whether each is to be set.
// NULL means both now; each may be UTIME_NOW or UTIME_OMIT.
func readUtimes(addr uintptr) (times [2]int64, set [2]bool, e unix.Errno) {
	now := clock.Realtime()
	if addr == 0 {
		return [2]int64{now, now}, [2]bool{true, true}, 0
	}
	var ts [2]unix.Timespec
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&ts), unsafe.Sizeof(ts)), addr) {
		return times, set, unix.EFAULT
	}
	for k := range ts {
		switch ts[k].Nsec {
		case utimeNow:
			times[k], set[k] = now, true
		case utimeOmit:
		default:
			if ts[k].Nsec < 0 || ts[k].Nsec >= 1e9 {
				return times, set, unix.EINVAL
			}
			times[k], set[k] = ts[k].Sec*1e9+ts[k].Nsec, true
		}
	}
	return times, set, 0
}

// sysFchownat: ownership is not kept (one user), but the path must name
// a tmpfs file, as on Linux a read-only file system answers EROFS.
func sysFchownat(t *sched.Thread, f *sched.Frame) uint64 {
	_, e := pathTmpNode(f, f.X[4]&unix.AT_SYMLINK_NOFOLLOW == 0)
	return e
}

func sysFchown(t *sched.Thread, f *sched.Frame) uint64 {
	if _, ok := getFD(f.X[0]); !ok {
		return errno(unix.EBADF)
	}
	return 0
}
