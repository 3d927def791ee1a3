package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/procfs"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// mount(2) and umount2(2). gometal has two file systems: the root (a
// tmpfs the initramfs unpacks into, as Linux's rootfs) and /proc, which
// the kernel mounts at boot (procfs_arm64.go). mount of "proc" on the
// directory it is mounted on answers 0, as a second mount of proc there
// would show the same; on another directory EBUSY (one instance of
// /proc). Every other type is ENODEV, as Linux answers a type it was
// built without; a mount layer with more file systems is a later stage.

// maxFSType bounds the type name read from the app.
const maxFSType = 32

func sysMount(t *sched.Thread, f *sched.Frame) uint64 {
	var typ [maxFSType]byte
	n, e := usermem.CopyInString(typ[:], uintptr(f.X[2]))
	if e != 0 {
		return errno(e)
	}
	if string(typ[:n]) != "proc" {
		return errno(unix.ENODEV)
	}
	var w fs.Walk
	dir, e := lookupAt(&w, unix.AT_FDCWD, uintptr(f.X[1]), fs.Follow)
	if e != 0 {
		return errno(e)
	}
	if dir == procfs.Root {
		return 0 // mounted there already
	}
	if !fs.Inodes[dir].IsDir() {
		return errno(unix.ENOTDIR)
	}
	return errno(procfs.Mount(dir))
}

// sysUmount2 unmounts /proc; any other path is EINVAL, as Linux
// answers for a path that is not a mountpoint (the root is not one).
func sysUmount2(t *sched.Thread, f *sched.Frame) uint64 {
	if f.X[1]&^uint64(unix.MNT_FORCE|unix.MNT_DETACH|unix.MNT_EXPIRE|unix.UMOUNT_NOFOLLOW) != 0 {
		return errno(unix.EINVAL)
	}
	var w fs.Walk
	dir, e := lookupAt(&w, unix.AT_FDCWD, uintptr(f.X[0]), fs.Follow)
	if e != 0 {
		return errno(e)
	}
	if dir != procfs.Root {
		return errno(unix.EINVAL)
	}
	return errno(fs.Unmount(dir))
}
