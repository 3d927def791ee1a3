package fs

import (
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Superblocks: one per file-system instance (Linux's struct
// super_block). The root file system the initramfs unpacks into is
// slot 0 (so a zeroed inode belongs to it); /proc, each tmpfs, sysfs and
// devtmpfs have one each. Every inode belongs to exactly one (Inode.Super)
// and a new inode takes its directory's. A superblock says what the
// instance is, its device number (st_dev, statfs's f_fsid, mountinfo's
// major:minor) and the limits its mount options set.

// MaxSupers bounds the instances mounted at once.
const MaxSupers = 32

// Type is a kind of file system. The names are Linux's
// (/proc/filesystems), and so is what each holds.
type Type uint8

const (
	TypeRootfs   Type = iota // the initramfs's tmpfs, as Linux's rootfs
	TypeTmpfs                // tmpfs: files in pages, size= and nr_inodes=
	TypeProc                 // proc (kernel/procfs)
	TypeSysfs                // sysfs (kernel/sysfs)
	TypeDevtmpfs             // devtmpfs: a tmpfs made with the kernel's device nodes
	TypeDevpts               // devpts: the pty slaves' nodes (kernel/mount/devpts.go)
	TypeExt4                 // ext4 on a block device (kernel/ext4fs), a backed type (store.go)
	Type9p                   // 9p: a host directory over virtio-9p (kernel/sharefs_arm64.go), backed
	TypeVfat                 // FAT16/32 on a block device (kernel/vfatfs), backed, read-only
	typeCount
)

// Super is one file-system instance.
type Super struct {
	Used bool
	Type Type
	// Root is the instance's root directory inode.
	Root int32
	// Mounts counts the mounts showing the instance (bind mounts
	// included); it goes when the last goes and no file of it is open.
	Mounts int32
	// ReadOnly: the instance refuses changes (MS_RDONLY at its first
	// mount or a remount), EROFS.
	ReadOnly bool
	// MaxPages (size=) and MaxInodes (nr_inodes=) bound a tmpfs; 0 is
	// no bound of its own (the machine-wide one still holds). Mode is
	// the mode= it was made with (what mountinfo shows, whatever the
	// root's mode is now).
	MaxPages  uintptr
	MaxInodes int32
	Mode      uint32
	// Pages and Inodes count what the instance holds now.
	Pages  uintptr
	Inodes int32
	// Dev is the block device a backed instance is on, as st_dev
	// encodes it (0: none, an anonymous device number is used).
	Dev uint64
	// MaxBytes is the largest file the instance holds (Linux's
	// s_maxbytes: ext4's depends on its block size); 0 is MaxSize, the
	// page cache's own bound, with no bound on a seek.
	MaxBytes int64
}

// FileMax is the largest size a file of instance s may have: a truncate
// past it is EFBIG, and a write stops there.
func FileMax(s uint8) int64 {
	if m := Supers[s].MaxBytes; m != 0 && m < MaxSize {
		return m
	}
	return MaxSize
}

// Supers is the superblock table.
var Supers [MaxSupers]Super

// Dev is superblock s's device number as stat's st_dev has it: major 0
// (an anonymous device, Linux's get_anon_bdev) and minor s+1, so the
// root's files are on device 1 and /proc's on 2, as they were before
// there were more.
// A backed instance's is its block device's (ext4 on /dev/vda: 254:0).
func Dev(s uint8) uint64 {
	if d := Supers[s].Dev; d != 0 {
		return d
	}
	return uint64(s) + 1
}

// NewSuper takes a free slot for an instance of type t whose root is a
// new directory of mode (with no name: it shows where it is mounted),
// or answers ENOSPC (no slot or no inode).
func NewSuper(t Type, mode uint32) (uint8, unix.Errno) {
	for s := 1; s < MaxSupers; s++ {
		if Supers[s].Used {
			continue
		}
		Supers[s] = Super{Used: true, Type: t, Mode: mode & 0o7777}
		i, e := newInode(uint8(s), unix.S_IFDIR|mode&0o7777)
		if e != 0 {
			Supers[s] = Super{}
			return 0, e
		}
		Inodes[i].Opens++ // the root lives as long as the instance
		Supers[s].Root = i
		return uint8(s), 0
	}
	return 0, unix.ENOSPC
}

// Busy says whether any inode of instance s other than its root is open
// or a working directory, or, for the root, held by more than the
// instance itself: umount's EBUSY (Linux's may_umount_tree counts the
// references to the mount).
func Busy(s uint8) bool {
	for i := range Inodes {
		n := &Inodes[i]
		if !n.Used || n.Super != s {
			continue
		}
		if int32(i) == Supers[s].Root && n.Opens > 1 || int32(i) != Supers[s].Root && n.Opens > 0 {
			return true
		}
	}
	return false
}

// FreeSuper ends instance s: every file in it goes (tmpfs keeps nothing
// once unmounted: Linux's kill_litter_super), then its slot. The caller
// has checked Busy and that no mount shows it.
func FreeSuper(s uint8) {
	store := Stores[Supers[s].Type]
	root := Supers[s].Root
	removeTree(root)
	Inodes[root].Opens--
	Inodes[root].Nlink = 0
	Supers[s].Root = 0 // release frees a root only when it is no longer one
	release(root)
	Supers[s] = Super{}
	if store != nil {
		store.Release(s)
	}
}

// chargePage counts a page for instance s: false when its size= is
// reached or the machine-wide bound is.
func chargePage(s uint8) bool {
	sb := &Supers[s]
	if sb.MaxPages != 0 && sb.Pages >= sb.MaxPages {
		return false
	}
	sb.Pages++
	return true
}

// storeStatfs is what a Store's Statfs fills (under the kernel lock).
var storeStatfs unix.Statfs_t

// Statfs fills st for the instance inode i is in (statfs(2)): a tmpfs's
// size= and nr_inodes= (or what the machine could give it), and
// /proc's and sysfs's zeros, as Linux's simple_statfs answers.
func Statfs(i int32, st *unix.Statfs_t) {
	s := Inodes[i].Super
	sb := &Supers[s]
	*st = unix.Statfs_t{Bsize: mm.PageSize, Frsize: mm.PageSize, Namelen: NameMax}
	st.Fsid.Val[0] = int32(Dev(s))
	if store := Stores[sb.Type]; store != nil {
		// Through package memory: st may be the caller's stack,
		// which an interface call's argument would move to the heap.
		storeStatfs = *st
		store.Statfs(s, &storeStatfs)
		*st = storeStatfs
		if sb.ReadOnly {
			st.Flags |= unix.ST_RDONLY
		}
		return
	}
	switch sb.Type {
	case TypeProc:
		st.Type = unix.PROC_SUPER_MAGIC
	case TypeSysfs:
		st.Type = unix.SYSFS_MAGIC
	default:
		st.Type = unix.TMPFS_MAGIC
		total := sb.MaxPages
		if total == 0 {
			total = maxDataPages
		}
		free := uintptr(0)
		if total > sb.Pages {
			free = total - sb.Pages
		}
		if room := maxDataPages - dataPages; sb.MaxPages == 0 && free > room {
			free = room
		}
		st.Blocks, st.Bfree, st.Bavail = uint64(total), uint64(free), uint64(free)
		files := sb.MaxInodes
		if files == 0 {
			files = MaxInodes
		}
		st.Files = uint64(files)
		if files > sb.Inodes {
			st.Ffree = uint64(files - sb.Inodes)
		}
	}
	if sb.ReadOnly {
		st.Flags |= unix.ST_RDONLY
	}
}
