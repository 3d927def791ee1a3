// Package mount owns mount(2)'s and umount2(2)'s rules over kernel/fs's
// mount tree: which file-system types exist here and what their options
// mean, what each flag does, when an unmount is refused, and the table
// as /proc/mounts and /proc/PID/mountinfo print it (Linux's
// fs/namespace.c, fs/proc_namespace.c, mm/shmem.c's options). It knows
// no processes: the Linux layer turns the system call's arguments into
// walks and bytes, and answers what this package says. Everything runs
// under the kernel lock. Builds on the host: go test ./kernel/mount.
package mount

import (
	"github.com/gometal/gometal/kernel/ext4fs"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/procfs"
	"github.com/gometal/gometal/kernel/vfatfs"

	"golang.org/x/sys/unix"
)

// The flags a mount keeps of its own (Linux's MNT_* from MS_*).
const perMount = unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC |
	unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME | unix.MS_STRICTATIME

// Propagation types: with one mount namespace there is no peer to
// propagate to, so a change of type is accepted and changes nothing
// (do_change_type's answer for a private tree).
const propagation = unix.MS_SHARED | unix.MS_PRIVATE | unix.MS_SLAVE | unix.MS_UNBINDABLE

// msMgcMask: before Linux 2.4 the flags' high half had to be the magic
// 0xC0ED; path_mount still strips it.
const (
	msMgcMask = 0xffff0000
	msMgcVal  = 0xC0ED0000
)

// DevNode is a device node devtmpfs holds: its name under /dev, mode
// and number (major<<8 | minor).
type DevNode struct {
	Name string
	Mode uint32
	Rdev uint32
}

// Devices are the kernel's devices, which a devtmpfs shows; the Linux
// layer (which has the drivers) sets it at boot.
var Devices []DevNode

// NinepInstance makes or returns the instance of the host share tagged
// tag (read-only: readOnly false is EROFS so far); the kernel core sets
// it (kernel/sharefs_arm64.go).
var NinepInstance func(tag []byte, readOnly bool) (uint8, unix.Errno)

// ninepTag holds the tag NinepInstance is asked for (a mount tag is at
// most 32 bytes: VIRTIO_9P_TAG_LEN is not bounded, QEMU's MAX_TAG_LEN).
var ninepTag [64]byte

// SysfsInstance makes or returns sysfs's instance; kernel/sysfs sets it
// (it is a tree of its own, like /proc).
var SysfsInstance func() (uint8, unix.Errno)

// devtmpfs is the one devtmpfs instance (Linux keeps one, mounted
// inside the kernel, and every mount of devtmpfs shows it); 0 before the
// first mount.
var devtmpfs uint8

// Mount is mount(2) of source on target (a walk that followed the last
// link), as Linux's path_mount does: a remount, a bind, a change of
// propagation, a move, or a new mount of fstype with options data.
// source is a path already looked up for a bind or a move (src), else
// the bytes shown as the mount's source.
func Mount(source []byte, src fs.Path, target fs.Path, fstype []byte, flags uint64, data []byte) unix.Errno {
	if flags&msMgcMask == msMgcVal {
		flags &^= msMgcMask
	}
	if flags&(unix.MS_NOATIME|unix.MS_STRICTATIME) == 0 {
		flags |= unix.MS_RELATIME // path_mount: relatime unless told otherwise
	}
	switch {
	case flags&unix.MS_REMOUNT != 0:
		return remount(target, flags, data)
	case flags&unix.MS_BIND != 0:
		return bind(src, target, flags&unix.MS_REC != 0)
	case flags&propagation != 0:
		if fs.MountAt(target) < 0 {
			return unix.EINVAL // not a mount's root (do_change_type)
		}
		return 0
	case flags&unix.MS_MOVE != 0:
		return move(src, target)
	}
	return newMount(source, src, target, fstype, uint32(flags&perMount), data)
}

// newMount makes (or finds) an instance of fstype and mounts it at
// target (do_new_mount, do_add_mount).
func newMount(source []byte, src, target fs.Path, fstype []byte, flags uint32, data []byte) unix.Errno {
	if len(fstype) == 0 {
		return unix.EINVAL
	}
	var o options
	var s uint8
	var e unix.Errno
	switch string(fstype) {
	case "tmpfs":
		if e = o.parse(data, true); e != 0 {
			return e
		}
		if s, e = fs.NewSuper(fs.TypeTmpfs, o.mode(0o1777)); e != 0 {
			return e
		}
		fs.Supers[s].MaxPages, fs.Supers[s].MaxInodes = o.pages, o.inodes
	case "devtmpfs":
		if e = o.parse(data, true); e != 0 {
			return e
		}
		if s, e = devtmpfsInstance(); e != 0 {
			return e
		}
	case "devpts":
		if s, e = devptsInstance(data); e != 0 {
			return e
		}
	case "proc":
		if s, e = procfs.Instance(); e != 0 {
			return e
		}
	case "ext4":
		if s, e = ext4Instance(src, flags, data); e != 0 {
			return e
		}
	case "vfat":
		if s, e = vfatInstance(src, flags); e != 0 {
			return e
		}
	case "9p":
		// The source is the share's tag (mount -t 9p -o trans=virtio
		// TAG DIR); v9fs's options (trans=, version=, msize=, cache=,
		// access=) change nothing here and are not checked.
		if NinepInstance == nil {
			return unix.ENODEV
		}
		// The tag goes through package memory: a slice passed to a
		// function value escapes, and would move a caller's to the heap.
		n := copy(ninepTag[:], source)
		if s, e = NinepInstance(ninepTag[:n], flags&unix.MS_RDONLY != 0); e != 0 {
			return e
		}
	case "sysfs":
		if SysfsInstance == nil {
			return unix.ENODEV
		}
		if s, e = SysfsInstance(); e != 0 {
			return e
		}
	default:
		return unix.ENODEV // get_fs_type: a type this kernel was built without
	}
	fs.Supers[s].ReadOnly = fs.Supers[s].ReadOnly || flags&unix.MS_RDONLY != 0 && fs.Supers[s].Mounts == 0
	root := fs.Supers[s].Root
	// The same instance on top of itself is EBUSY (do_add_mount): a
	// second devtmpfs or sysfs on its own mountpoint. Linux makes proc a
	// new instance at each mount, so a second proc on /proc stacks there
	// (as a distribution's init does over the kernel's boot mount here);
	// devpts stacks too (newinstance, and u-root's init over the boot
	// mount).
	if top := fs.MountAt(target); top >= 0 && fs.Mounts[top].Super == s && fs.Mounts[top].Root == root &&
		fs.Supers[s].Type != fs.TypeProc && fs.Supers[s].Type != fs.TypeDevpts {
		return unix.EBUSY
	}
	_, e = fs.AddMount(target, root, s, flags, source)
	if e != 0 && fs.Supers[s].Mounts == 0 && (fs.Supers[s].Type == fs.TypeTmpfs || fs.Stores[fs.Supers[s].Type] != nil) {
		fs.FreeSuper(s)
	}
	return e
}

// NeedsDevice says whether type fstype mounts a block device: the Linux
// layer then resolves the source as a path (lookup_bdev) and passes it
// as src.
func NeedsDevice(fstype []byte) bool { return string(fstype) == "ext4" || string(fstype) == "vfat" }

// vfatInstance makes or finds the FAT instance on block device node src
// (read-only: kernel/vfatfs writes nothing). vfat's options (uid=,
// umask=, shortname=, iocharset=...) change nothing here and are not
// checked.
func vfatInstance(src fs.Path, flags uint32) (uint8, unix.Errno) {
	rdev, e := blockDevice(src)
	if e != 0 {
		return 0, e
	}
	return vfatfs.Mount(rdev>>8, rdev&0xff, flags&unix.MS_RDONLY != 0)
}

// ext4Instance makes or finds the ext4 instance on block device node
// src (get_tree_bdev), what kernel/ext4fs answers.
func ext4Instance(src fs.Path, flags uint32, data []byte) (uint8, unix.Errno) {
	noload, e := ext4Options(data)
	if e != 0 {
		return 0, e
	}
	rdev, e := blockDevice(src)
	if e != 0 {
		return 0, e
	}
	return ext4fs.Mount(rdev>>8, rdev&0xff, flags&unix.MS_RDONLY != 0, noload)
}

// blockDevice is the device number of block device node src: ENOTBLK
// when it is no block device, EACCES on a nodev mount (may_open_dev).
func blockDevice(src fs.Path) (uint32, unix.Errno) {
	if src.Ino <= 0 {
		return 0, unix.ENOTBLK
	}
	n := &fs.Inodes[src.Ino]
	switch {
	case n.Mode&unix.S_IFMT != unix.S_IFBLK:
		return 0, unix.ENOTBLK
	case fs.Mounts[src.Mnt].Flags&unix.MS_NODEV != 0:
		return 0, unix.EACCES
	}
	return n.Rdev, 0
}

// devtmpfsInstance makes the devtmpfs instance the first time, with a
// node for each of the kernel's devices (devtmpfs's devtmpfs_create_node
// for each registered device).
func devtmpfsInstance() (uint8, unix.Errno) {
	if devtmpfs != 0 {
		return devtmpfs, 0
	}
	s, e := fs.NewSuper(fs.TypeDevtmpfs, 0o755)
	if e != 0 {
		return 0, e
	}
	for _, d := range Devices {
		if e := fs.MakeDev(fs.Supers[s].Root, []byte(d.Name), d.Mode, d.Rdev); e != 0 {
			return 0, e
		}
	}
	devtmpfs = s
	return s, 0
}

// remount changes a mount's flags and, without MS_BIND, its instance's
// (do_reconfigure_mnt, do_remount): target must be a mount's root.
func remount(target fs.Path, flags uint64, data []byte) unix.Errno {
	m := fs.MountAt(target)
	if m < 0 {
		return unix.EINVAL
	}
	mt := &fs.Mounts[m]
	if flags&unix.MS_BIND != 0 {
		mt.Flags = uint32(flags & perMount)
		return 0
	}
	sb := &fs.Supers[mt.Super]
	if sb.Type == fs.TypeTmpfs {
		var o options
		if e := o.parse(data, false); e != 0 {
			return e
		}
		if o.pages != 0 {
			if o.pages < sb.Pages {
				return unix.EINVAL // shmem_reconfigure: smaller than what it holds
			}
			sb.MaxPages = o.pages
		}
		if o.inodes != 0 {
			if o.inodes < sb.Inodes {
				return unix.EINVAL
			}
			sb.MaxInodes = o.inodes
		}
	}
	sb.ReadOnly = flags&unix.MS_RDONLY != 0
	mt.Flags = uint32(flags&perMount) &^ unix.MS_RDONLY
	return 0
}

// bind shows src at target (do_loopback); with rec, the mounts under src
// are shown under the copy too (copy_tree).
func bind(src, target fs.Path, rec bool) unix.Errno {
	if fs.Inodes[src.Ino].IsDir() != fs.Inodes[target.Ino].IsDir() {
		return unix.ENOTDIR
	}
	s := fs.Inodes[src.Ino].Super
	m, e := fs.AddMount(target, src.Ino, s, fs.Mounts[src.Mnt].Flags, fs.Mounts[src.Mnt].Source[:fs.Mounts[src.Mnt].SourceLen])
	if e != 0 || !rec {
		return e
	}
	return copyUnder(src, m)
}

// copyUnder mounts on the copy m what is mounted under src, and under
// those in turn (a mount tree is at most MaxMounts deep).
func copyUnder(src fs.Path, m int32) unix.Errno {
	for c := int32(1); c < fs.MaxMounts; c++ {
		ct := &fs.Mounts[c]
		if !ct.Used || c == m || ct.Parent != src.Mnt || !fs.Below(ct.Point, src.Ino) {
			continue
		}
		cm, e := fs.AddMount(fs.Path{Mnt: m, Ino: ct.Point}, ct.Root, ct.Super, ct.Flags, ct.Source[:ct.SourceLen])
		if e != 0 {
			return e
		}
		if e := copyUnder(fs.Path{Mnt: c, Ino: ct.Root}, cm); e != 0 {
			return e
		}
	}
	return 0
}

// move moves the mount whose root src is to target (do_move_mount).
func move(src, target fs.Path) unix.Errno {
	m := fs.MountAt(src)
	switch {
	case m < 0 || m == fs.RootMount:
		return unix.EINVAL
	case fs.Inside(target, m):
		return unix.ELOOP // under itself
	}
	return fs.MoveMount(m, target)
}

// Umount is umount2(2) of the mount whose root target is (do_umount):
// EINVAL if target is none or the root mount, EBUSY while anything is
// mounted under it or a working directory or open file is in it, unless
// MNT_DETACH, which takes it (and what is under it) out of the tree now
// and lets it go with its last user. An instance of tmpfs goes with its
// last mount, with its files.
func Umount(target fs.Path, flags int) unix.Errno {
	m := fs.MountAt(target)
	if m < 0 || m == fs.RootMount {
		return unix.EINVAL
	}
	if flags&unix.MNT_DETACH == 0 && (fs.Children(m) || fs.Mounts[m].Users > 0) {
		return unix.EBUSY
	}
	detachTree(m)
	return 0
}

// detachTree detaches m and everything mounted under it, deepest first
// (umount_tree). A tree is at most MaxMounts deep.
func detachTree(m int32) {
	for c := int32(1); c < fs.MaxMounts; c++ {
		if fs.Mounts[c].Used && c != m && fs.Mounts[c].Parent == m {
			detachTree(c)
		}
	}
	fs.Detach(m)
}

// pageSize for option sizes.
const pageSize = mm.PageSize
