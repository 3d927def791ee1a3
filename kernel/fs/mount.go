package fs

import (
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// The mount tree (Linux's struct mount and fs/namespace.c). A mount
// shows a directory of one instance (its root, or any directory of it
// for a bind mount) at a directory of another mount, the mountpoint. A
// place in the tree is a Path, a mount and an inode of it (Linux's
// struct path), because the same inode may show at several places (a
// bind mount) and ".." out of a mount's root leaves the mount. Walks,
// working directories and directory descriptions hold Paths.
//
// Mounts stack as on Linux: a mount on a place that is already covered
// goes on top, and the walk goes to the topmost. Everything here runs
// under the kernel lock.

// MaxMounts bounds the mounts at once.
const MaxMounts = 64

// RootMount is the root mount's slot: the root instance at "/".
const RootMount = 0

// Mount is one mount.
type Mount struct {
	Used bool
	// ID is mountinfo's mount ID: never reused while the kernel runs.
	ID int32
	// Parent and Point: the mount and the directory this one covers (the
	// root mount: itself and its root). Parent is -1 once detached
	// (umount2 MNT_DETACH with users left).
	Parent, Point int32
	// Root is the directory shown; Super the instance it belongs to.
	Root  int32
	Super uint8
	// Flags are the mount's own MS_RDONLY, MS_NOSUID, MS_NODEV,
	// MS_NOEXEC and atime flags.
	Flags uint32
	// Users counts the working directories and open descriptions in
	// the mount: umount's EBUSY, and when a detached mount goes.
	Users int32
	// Source is what mount(2) was given as the source (mountinfo's
	// "mount source").
	Source    [64]byte
	SourceLen uint8
}

// Mounts is the mount table; nextMountID numbers them as Linux's do
// (the first mount is ID 1... it does not matter which, only that an ID
// is not reused).
var (
	Mounts      [MaxMounts]Mount
	nextMountID int32
)

// Path is a place in the tree: an inode as seen through a mount.
type Path struct {
	Mnt, Ino int32
}

// RootPath is "/".
func RootPath() Path { return Path{RootMount, RootIno} }

// initMounts makes the root mount (at boot, once the root exists).
func initMounts() {
	Mounts[RootMount] = Mount{Used: true, ID: 1, Parent: RootMount, Point: RootIno, Root: RootIno}
	Mounts[RootMount].SourceLen = uint8(copy(Mounts[RootMount].Source[:], "rootfs"))
	nextMountID = 2
	Inodes[RootIno].Opens++
	sb := &Supers[0] // newInode counted the root in it already
	sb.Used, sb.Type, sb.Root, sb.Mounts = true, TypeRootfs, RootIno, 1
	sb.Mode = 0o1777 // Linux's rootfs is made with tmpfs's default mode
}

// AddMount shows directory root (of instance s) at p with flags:
// the new mount's slot, or ENOMEM when the table is full.
func AddMount(p Path, root int32, s uint8, flags uint32, source []byte) (int32, unix.Errno) {
	for m := int32(1); m < MaxMounts; m++ {
		if Mounts[m].Used {
			continue
		}
		Mounts[m] = Mount{Used: true, ID: nextMountID, Parent: p.Mnt, Point: p.Ino, Root: root, Super: s, Flags: flags}
		Mounts[m].SourceLen = uint8(copy(Mounts[m].Source[:], source))
		nextMountID++
		Inodes[p.Ino].covered++
		Inodes[p.Ino].Opens++ // a mountpoint lives while covered
		Inodes[root].Opens++
		Supers[s].Mounts++
		return m, 0
	}
	return -1, unix.ENOMEM
}

// Children says whether any mount sits on mount m.
func Children(m int32) bool {
	for c := range Mounts {
		if c != int(m) && Mounts[c].Used && Mounts[c].Parent == m {
			return true
		}
	}
	return false
}

// Detach takes mount m out of the tree: it is found by no walk, and its
// slot goes with its last user (a tmpfs instance with its last mount).
// It answers whether the instance it showed has no mount left.
func Detach(m int32) (last bool) {
	mt := &Mounts[m]
	if mt.Parent >= 0 {
		Inodes[mt.Point].covered--
		Drop(mt.Point)
		mt.Parent = -1
	}
	s := mt.Super
	Supers[s].Mounts--
	if mt.Users == 0 {
		freeMount(m)
	}
	return Supers[s].Mounts == 0
}

// freeMount frees mount m's slot; a tmpfs instance with no mount left
// and nothing of it in use goes with it (its files too: kill_litter_super).
func freeMount(m int32) {
	root, s := Mounts[m].Root, Mounts[m].Super
	Mounts[m] = Mount{}
	Drop(root)
	if sb := &Supers[s]; (sb.Type == TypeTmpfs || Stores[sb.Type] != nil) && sb.Mounts == 0 && !Busy(s) {
		FreeSuper(s)
	}
}

// UseMount and UnuseMount count a user of mount m (a working directory,
// an open description); a detached mount goes with its last.
func UseMount(m int32) { Mounts[m].Users++ }

func UnuseMount(m int32) {
	mt := &Mounts[m]
	mt.Users--
	if mt.Users == 0 && mt.Parent < 0 && m != RootMount {
		freeMount(m)
	}
}

// covering is the topmost mount on place p, or -1.
func covering(p Path) int32 {
	if Inodes[p.Ino].covered == 0 {
		return -1
	}
	top := int32(-1)
	for m := int32(1); m < MaxMounts; m++ {
		mt := &Mounts[m]
		if mt.Used && mt.Parent == p.Mnt && mt.Point == p.Ino && (top < 0 || mt.ID > Mounts[top].ID) {
			top = m
		}
	}
	return top
}

// crossMounts is where a walk reaching p goes: the root of the topmost
// mount on it, and so on up the stack (follow_mount).
func crossMounts(p Path) Path {
	for {
		m := covering(p)
		if m < 0 {
			return p
		}
		p = Path{m, Mounts[m].Root}
	}
}

// DotDot is ".." of directory p: out of a mount's root to its
// mountpoint's parent (follow_dotdot), the root's is itself; Ino -1 for
// a removed directory.
func DotDot(p Path) Path { return DotDotIn(p, RootPath()) }

// DotDotIn is ".." of p for a process whose root is root (chroot): the
// root's ".." is itself, even where it is a mount's root or below one.
func DotDotIn(p, root Path) Path {
	if p == root {
		return p
	}
	for p.Ino == Mounts[p.Mnt].Root && p.Mnt != RootMount && Mounts[p.Mnt].Parent >= 0 {
		p = Path{Mounts[p.Mnt].Parent, Mounts[p.Mnt].Point}
		if p == root {
			return p
		}
	}
	if p.Ino == Mounts[p.Mnt].Root {
		return p // the root, or a detached mount's root
	}
	return Path{p.Mnt, Parent(p.Ino)}
}

// MountOf is the mount of description f's place (its directory, or
// the file's): the root mount for descriptions opened before mounts
// were recorded for them.
func MountOf(f *vfs.File) int32 { return FileMnt[f.Index()] }

// FileMnt is the mount each description of an inode was opened in,
// indexed like vfs.Files.
var FileMnt [vfs.MaxFiles]int32

// ReadOnlyAt answers a change at p: EROFS if its mount or instance is
// read-only.
func ReadOnlyAt(p Path) unix.Errno {
	if Mounts[p.Mnt].Flags&unix.MS_RDONLY != 0 || Supers[Inodes[p.Ino].Super].ReadOnly {
		return unix.EROFS
	}
	return 0
}

// MountAt is the mount whose root is shown at p's topmost place, if p
// is a mount's root: -1 otherwise (umount's EINVAL).
func MountAt(p Path) int32 {
	if p.Ino == Mounts[p.Mnt].Root {
		return p.Mnt
	}
	return -1
}

// MoveMount moves mount m to place p (MS_MOVE).
func MoveMount(m int32, p Path) unix.Errno {
	mt := &Mounts[m]
	if mt.Parent < 0 {
		return unix.EINVAL
	}
	Inodes[p.Ino].covered++
	Inodes[p.Ino].Opens++
	Inodes[mt.Point].covered--
	Drop(mt.Point)
	mt.Parent, mt.Point = p.Mnt, p.Ino
	return 0
}

// Inside says whether place p is in mount m or in a mount under it.
func Inside(p Path, m int32) bool {
	for c := p.Mnt; c >= 0; c = Mounts[c].Parent {
		if c == m {
			return true
		}
		if c == RootMount {
			return false
		}
	}
	return false
}

// Below says whether inode i is directory top or under it, within one
// instance (the names up from i reach top).
func Below(i, top int32) bool {
	for {
		if i == top {
			return true
		}
		up := Parent(i)
		if up < 0 || up == i {
			return false
		}
		i = up
	}
}

// PathInSuper writes the path of directory i from its instance's root
// (mountinfo's "root" field: "/" for a mount of the whole instance) and
// returns its length, 0 if it does not fit or i was removed.
func PathInSuper(i int32, buf []byte) int {
	n, _, e := pathUp(Path{Ino: i}, Path{}, buf, true)
	if e != 0 {
		return 0
	}
	return n
}

// MakeDev makes device node nm (mode: type and permissions, rdev: its
// number) in directory dir, with no checks but for room: devtmpfs's
// nodes, and mknod(2) once the Linux layer has checked its rules.
func MakeDev(dir int32, nm []byte, mode, rdev uint32) unix.Errno {
	i, e := makeNode(dir, nm, mode)
	if e == 0 {
		Inodes[i].Rdev = rdev
	}
	return e
}

// RemoveDev removes the name nm from directory dir, if there: devpts'
// node of a pty pair that went (devpts_pty_kill). An open description
// keeps the inode.
func RemoveDev(dir int32, nm []byte) {
	if k := lookupName(dir, nm); k >= 0 {
		dropName(k)
	}
}
