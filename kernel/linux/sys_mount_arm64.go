package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// mount(2), umount2(2), statfs(2) and fstatfs(2): the arguments read and
// looked up as Linux's do_mount and ksys_umount read them; what a mount
// does is kernel/mount's.

// Bounds on what mount(2) reads: a type name, a source (a path for a
// bind or a move), and the options page (copy_mount_options copies one
// page).
const (
	maxFSType    = 32
	maxMountData = 4096
)

// mountBufs hold mount's strings (under the kernel lock; one call at a
// time), so they are not on the kernel stack, 12 KiB of it.
var mountBufs struct {
	source [fs.PathMax]byte
	data   [maxMountData]byte
}

func sysMount(t *sched.Thread, f *sched.Frame) uint64 {
	if !procOf(t).Cred.Privileged() {
		return errno(unix.EPERM) // may_mount: CAP_SYS_ADMIN
	}
	flags := f.X[3]
	var typ [maxFSType]byte
	tn := 0
	if f.X[2] != 0 {
		var e unix.Errno
		if tn, e = usermem.CopyInString(typ[:], uintptr(f.X[2])); e != 0 {
			return errno(e)
		}
	}
	sn, e := optString(mountBufs.source[:], f.X[0])
	if e != 0 {
		return errno(e)
	}
	dn, e := optString(mountBufs.data[:], f.X[4])
	if e != 0 {
		return errno(e)
	}
	var w fs.Walk
	if _, e := lookupAt(&w, unix.AT_FDCWD, uintptr(f.X[1]), fs.Follow); e != 0 {
		return errno(e)
	}
	target := w.NodePath()
	var src fs.Path
	if flags&(unix.MS_BIND|unix.MS_MOVE) != 0 && flags&unix.MS_REMOUNT == 0 {
		if sn == 0 {
			return errno(unix.EINVAL) // do_loopback, do_move_mount_old: no source
		}
		var sw fs.Walk
		if _, e := lookupAt(&sw, unix.AT_FDCWD, uintptr(f.X[0]), fs.Follow); e != 0 {
			return errno(e)
		}
		src = sw.NodePath()
	} else if flags&unix.MS_REMOUNT == 0 && mount.NeedsDevice(typ[:tn]) {
		if sn == 0 {
			return errno(unix.EINVAL) // fs_lookup_param: no source
		}
		var sw fs.Walk
		if _, e := lookupAt(&sw, unix.AT_FDCWD, uintptr(f.X[0]), fs.Follow); e != 0 {
			return errno(e) // lookup_bdev's answer: ENOENT, ENOTDIR...
		}
		src = sw.NodePath()
	}
	return errno(mount.Mount(mountBufs.source[:sn], src, target, typ[:tn], flags, mountBufs.data[:dn]))
}

// optString copies the NUL-terminated string at addr (0: none, empty)
// into buf: EFAULT, or EINVAL if it does not fit.
func optString(buf []byte, addr uint64) (int, unix.Errno) {
	if addr == 0 {
		return 0, 0
	}
	n, e := usermem.CopyInString(buf, uintptr(addr))
	if e == unix.ENAMETOOLONG {
		return 0, unix.EINVAL
	}
	return n, e
}

// sysUmount2 unmounts the mount whose root the path names (ksys_umount):
// EINVAL for unknown flags or a path that is no mount's root.
func sysUmount2(t *sched.Thread, f *sched.Frame) uint64 {
	flags := int(f.X[1])
	if flags&^(unix.MNT_FORCE|unix.MNT_DETACH|unix.MNT_EXPIRE|unix.UMOUNT_NOFOLLOW) != 0 {
		return errno(unix.EINVAL)
	}
	if flags&unix.MNT_EXPIRE != 0 && flags&(unix.MNT_FORCE|unix.MNT_DETACH) != 0 {
		return errno(unix.EINVAL)
	}
	if !procOf(t).Cred.Privileged() {
		return errno(unix.EPERM)
	}
	wf := fs.Follow
	if flags&unix.UMOUNT_NOFOLLOW != 0 {
		wf = 0
	}
	var w fs.Walk
	if _, e := lookupAt(&w, unix.AT_FDCWD, uintptr(f.X[0]), wf); e != 0 {
		return errno(e)
	}
	if flags&unix.MNT_EXPIRE != 0 {
		return errno(unix.EAGAIN) // marked, not expired yet: the first MNT_EXPIRE's answer
	}
	return errno(mount.Umount(w.NodePath(), flags))
}

// sysStatfs and sysFstatfs describe the instance a path or a
// descriptor is in.
func sysStatfs(t *sched.Thread, f *sched.Frame) uint64 {
	var w fs.Walk
	i, e := lookupAt(&w, unix.AT_FDCWD, uintptr(f.X[0]), fs.Follow)
	if e != 0 {
		return errno(e)
	}
	return putStatfs(f.X[1], i, w.NodePath())
}

func sysFstatfs(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	i := fs.InodeOf(fl)
	if i < 0 {
		return putStatfs(f.X[1], -1, fs.Path{})
	}
	return putStatfs(f.X[1], i, fs.Path{Mnt: fs.MountOf(fl), Ino: i})
}

// putStatfs writes statfs for inode i (-1: a pipe, socket or other
// anonymous object, which Linux answers for its pseudo file systems:
// pipefs's magic, here with no blocks) to the app's buffer at addr.
func putStatfs(addr uint64, i int32, p fs.Path) uint64 {
	var st unix.Statfs_t
	if i < 0 {
		st = unix.Statfs_t{Type: pipefsMagic, Bsize: 4096, Frsize: 4096, Namelen: fs.NameMax}
	} else {
		fs.Statfs(i, &st)
		st.Flags |= mountFlagsST(fs.Mounts[p.Mnt].Flags)
	}
	if !usermem.CopyOut(uintptr(addr), usermem.BytesOf(unsafe.Pointer(&st), unsafe.Sizeof(st))) {
		return errno(unix.EFAULT)
	}
	return 0
}

// pipefsMagic is PIPEFS_MAGIC (include/uapi/linux/magic.h).
const pipefsMagic = 0x50495045

// mountFlagsST turns a mount's MS_* flags into statfs's ST_* ones, with
// ST_VALID, as fs/statfs.c's flags_by_mnt and statfs_by_dentry do.
func mountFlagsST(ms uint32) int64 {
	st := int64(stValid)
	for _, b := range stFlags {
		if ms&b.ms != 0 {
			st |= b.st
		}
	}
	return st
}

var stFlags = [...]struct {
	ms uint32
	st int64
}{
	{unix.MS_RDONLY, unix.ST_RDONLY},
	{unix.MS_NOSUID, unix.ST_NOSUID},
	{unix.MS_NODEV, unix.ST_NODEV},
	{unix.MS_NOEXEC, unix.ST_NOEXEC},
	{unix.MS_NOATIME, unix.ST_NOATIME},
	{unix.MS_NODIRATIME, unix.ST_NODIRATIME},
	{unix.MS_RELATIME, unix.ST_RELATIME},
}

// stValid is ST_VALID (include/linux/statfs.h): f_flags is filled in.
const stValid = 0x20
