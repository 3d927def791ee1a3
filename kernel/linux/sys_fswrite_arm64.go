package linux

import (
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"unsafe"

	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Syscalls that change the file system (kernel/fs), the initramfs's
// files as well as the app's: the root file system is writable, as
// Linux's initramfs is.

// createAt makes a new inode at (dirfd, upath), which must not exist yet
// and whose directory must.
func createAt(dirfd int64, upath uintptr, mode uint32) (int32, unix.Errno) {
	var w fs.Walk
	if e := resolveAt(&w, dirfd, upath, fs.ForCreate); e != 0 {
		return -1, e
	}
	return fs.Create(&w, mode)
}

func sysMkdirat(t *sched.Thread, f *sched.Frame) uint64 {
	_, e := createAt(int64(f.X[0]), uintptr(f.X[1]), unix.S_IFDIR|uint32(f.X[2])&0o7777&^fsCtx().Umask)
	return errno(e)
}

func sysUnlinkat(t *sched.Thread, f *sched.Frame) uint64 {
	flags := f.X[2]
	if flags&^uint64(unix.AT_REMOVEDIR) != 0 {
		return errno(unix.EINVAL)
	}
	var w fs.Walk
	if e := resolveAt(&w, int64(f.X[0]), uintptr(f.X[1]), fs.ForCreate); e != 0 {
		return errno(e)
	}
	return errno(fs.Unlink(&w, flags&unix.AT_REMOVEDIR != 0))
}

func renameCommon(f *sched.Frame, flags uint64) uint64 {
	var from, to fs.Walk
	if e := resolveAt(&from, int64(f.X[0]), uintptr(f.X[1]), fs.ForCreate); e != 0 {
		return errno(e)
	}
	if e := resolveAt(&to, int64(f.X[2]), uintptr(f.X[3]), fs.ForCreate); e != 0 {
		return errno(e)
	}
	if flags&^uint64(unix.RENAME_NOREPLACE) != 0 {
		return errno(unix.EINVAL)
	}
	if flags&unix.RENAME_NOREPLACE != 0 && to.Node >= 0 && from.Node >= 0 {
		return errno(unix.EEXIST)
	}
	return errno(fs.Rename(&from, &to))
}

func sysRenameat(t *sched.Thread, f *sched.Frame) uint64  { return renameCommon(f, 0) }
func sysRenameat2(t *sched.Thread, f *sched.Frame) uint64 { return renameCommon(f, f.X[4]) }

func sysSymlinkat(t *sched.Thread, f *sched.Frame) uint64 {
	var target [fs.PathMax]byte
	tn, e := usermem.CopyInString(target[:], uintptr(f.X[0]))
	if e != 0 {
		return errno(e)
	}
	if tn == 0 {
		return errno(unix.ENOENT)
	}
	var w fs.Walk
	if e := resolveAt(&w, int64(f.X[1]), uintptr(f.X[2]), fs.ForCreate); e != 0 {
		return errno(e)
	}
	return errno(fs.Symlink(&w, target[:tn]))
}

// sysLinkat is linkat(2): another name for a file. AT_SYMLINK_FOLLOW
// links what a final symlink points to; without it the symlink itself.
func sysLinkat(t *sched.Thread, f *sched.Frame) uint64 {
	flags := f.X[4]
	if flags&^uint64(unix.AT_SYMLINK_FOLLOW|unix.AT_EMPTY_PATH) != 0 {
		return errno(unix.EINVAL)
	}
	var wf fs.WalkFlags
	if flags&unix.AT_SYMLINK_FOLLOW != 0 {
		wf = fs.Follow
	}
	var from, to fs.Walk
	i, e := lookupAt(&from, int64(f.X[0]), uintptr(f.X[1]), wf)
	if e != 0 {
		return errno(e)
	}
	if e := resolveAt(&to, int64(f.X[2]), uintptr(f.X[3]), fs.ForCreate); e != 0 {
		return errno(e)
	}
	return errno(fs.Link(i, &to))
}

func sysFtruncate(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	size := int64(f.X[1])
	if size < 0 {
		return errno(unix.EINVAL)
	}
	nd, ok := fl.Impl.(*fs.Inode)
	if !ok || nd.IsDir() || !fl.Writable() {
		return errno(unix.EINVAL)
	}
	if size > fs.FileMax(nd.Super) {
		return errno(unix.EFBIG) // inode_newsize_ok: past s_maxbytes
	}
	return errno(fs.Truncate(nd, size))
}

// sysFallocate is fallocate(2): mode 0 and FALLOC_FL_KEEP_SIZE on a
// regular file (fs.Fallocate), the errors as Linux's vfs_fallocate
// orders them; the other modes (punching holes, zeroing, collapsing)
// are EOPNOTSUPP.
func sysFallocate(t *sched.Thread, f *sched.Frame) uint64 {
	mode, off, length := f.X[1], int64(f.X[2]), int64(f.X[3])
	fl, ok := getFD(f.X[0])
	switch {
	case !ok:
		return errno(unix.EBADF)
	case off < 0 || length <= 0:
		return errno(unix.EINVAL)
	case mode&^unix.FALLOC_FL_KEEP_SIZE != 0:
		return errno(unix.EOPNOTSUPP)
	case !fl.Writable():
		return errno(unix.EBADF)
	}
	nd, ok := fl.Impl.(*fs.Inode)
	switch {
	case ok && nd.IsDir():
		return errno(unix.EISDIR)
	case fl.Impl.Kind() == vfs.KindPipe:
		return errno(unix.ESPIPE)
	case !ok || nd.Mode&unix.S_IFMT != unix.S_IFREG || nd.Synth.Kind != 0:
		return errno(unix.ENODEV)
	}
	return errno(fs.Fallocate(nd, off, length, mode != 0))
}

// sysTruncate is truncate(2): ftruncate by path, following symlinks.
func sysTruncate(t *sched.Thread, f *sched.Frame) uint64 {
	size := int64(f.X[1])
	var w fs.Walk
	i, e := lookupAt(&w, unix.AT_FDCWD, uintptr(f.X[0]), fs.Follow)
	switch {
	case e != 0:
		return errno(e)
	case size < 0:
		return errno(unix.EINVAL)
	case fs.Inodes[i].IsDir():
		return errno(unix.EISDIR)
	case fs.Inodes[i].Mode&unix.S_IFMT != unix.S_IFREG:
		return errno(unix.EINVAL)
	case fs.ReadOnlyAt(w.NodePath()) != 0:
		return errno(unix.EROFS) // do_sys_truncate: mnt_want_write
	case size > fs.FileMax(fs.Inodes[i].Super):
		return errno(unix.EFBIG) // inode_newsize_ok: past s_maxbytes
	}
	return errno(fs.Truncate(&fs.Inodes[i], size))
}

// sysChmodLike accepts permission, ownership and timestamp changes on
// inodes (mode bits are kept; owners and times are not enforced).
func sysFchmod(t *sched.Thread, f *sched.Frame) uint64 { return chmodFD(f.X[0], f.X[1]) }

// chmodFD sets the mode of the file descriptor fd refers to.
func chmodFD(fd, mode uint64) uint64 {
	fl, ok := getFD(fd)
	if !ok {
		return errno(unix.EBADF)
	}
	if nd, ok := fl.Impl.(*fs.Inode); ok {
		if e := readOnlyFile(fl, nd); e != 0 {
			return errno(e)
		}
		return setMode(nd, mode)
	}
	return 0 // the console and the anonymous files take it and keep nothing
}

// setMode sets nd's permission bits, in its store first when it has a
// writable one.
func setMode(nd *fs.Inode, mode uint64) uint64 {
	a := fs.Attr{Valid: fs.AttrMode, Mode: uint32(mode) & 0o7777}
	if e := fs.SetattrStored(nd.Index(), &a); e != 0 {
		return errno(e)
	}
	nd.Mode = nd.Mode&unix.S_IFMT | a.Mode
	return 0
}

// readOnlyFile is EROFS when description fl's inode nd is on a
// read-only mount or instance: a change of its attributes (chmod,
// chown, utimes through a descriptor) is refused as Linux's
// mnt_want_write_file refuses it.
func readOnlyFile(fl *vfs.File, nd *fs.Inode) unix.Errno {
	return fs.ReadOnlyAt(fs.Path{Mnt: fs.MountOf(fl), Ino: nd.Index()})
}

// pathAttr finds what (dirfd X0, path X1) names for a change of its
// attributes: EROFS on a read-only mount (mnt_want_write), after the
// lookup's own errors.
func pathAttr(f *sched.Frame, follow bool) (int32, uint64) {
	var wf fs.WalkFlags
	if follow {
		wf = fs.Follow
	}
	var w fs.Walk
	i, e := lookupAt(&w, int64(f.X[0]), uintptr(f.X[1]), wf)
	if e != 0 {
		return -1, errno(e)
	}
	if e := fs.ReadOnlyAt(w.NodePath()); e != 0 {
		return -1, errno(unix.EROFS)
	}
	return i, 0
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
	i, e := pathAttr(f, flags&unix.AT_SYMLINK_NOFOLLOW == 0)
	if e != 0 {
		return e
	}
	nd := &fs.Inodes[i]
	if nd.Mode&unix.S_IFMT == unix.S_IFLNK {
		return errno(unix.EOPNOTSUPP) // a symlink has no mode of its own (fchmodat2)
	}
	return setMode(nd, f.X[2])
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
		nd, ok := fl.Impl.(*fs.Inode)
		if !ok {
			return 0 // nothing kept for the console or anonymous files
		}
		if e := readOnlyFile(fl, nd); e != 0 {
			return errno(e)
		}
		i = nd.Index()
	} else {
		var e uint64
		if i, e = pathAttr(f, f.X[3]&unix.AT_SYMLINK_NOFOLLOW == 0); e != 0 {
			return e
		}
	}
	a := fs.Attr{Atime: times[0], Mtime: times[1]}
	if set[0] {
		a.Valid |= fs.AttrAtime
	}
	if set[1] {
		a.Valid |= fs.AttrMtime
	}
	if e := fs.SetattrStored(i, &a); e != 0 {
		return errno(e)
	}
	if set[0] {
		fs.Inodes[i].Atime = times[0]
	}
	if set[1] {
		fs.Inodes[i].Mtime = times[1]
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
// a file (ENOENT, ENOTDIR as a lookup answers).
func sysFchownat(t *sched.Thread, f *sched.Frame) uint64 {
	_, e := pathAttr(f, f.X[4]&unix.AT_SYMLINK_NOFOLLOW == 0)
	return e
}

func sysFchown(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if nd, ok := fl.Impl.(*fs.Inode); ok {
		return errno(readOnlyFile(fl, nd))
	}
	return 0
}
