package mount

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/procfs"

	"golang.org/x/sys/unix"
)

// The mount table as Linux prints it (fs/proc_namespace.c: show_vfsmnt
// for /proc/mounts, show_mountinfo for /proc/PID/mountinfo), mount by
// mount in the order they were made; the mounts a process cannot reach
// (detached) are left out.

// typeNames are the types' names (/proc/filesystems's).
var typeNames = [...]string{
	fs.TypeRootfs:   "rootfs",
	fs.TypeTmpfs:    "tmpfs",
	fs.TypeProc:     "proc",
	fs.TypeSysfs:    "sysfs",
	fs.TypeDevtmpfs: "devtmpfs",
	fs.TypeDevpts:   "devpts",
	fs.TypeExt4:     "ext4",
	fs.Type9p:       "9p",
	fs.TypeVfat:     "vfat",
}

// mntFlags are the per-mount flags in show_mnt_opts's order.
var mntFlags = [...]struct {
	flag uint32
	name string
}{
	{0x2, "nosuid"}, // MS_NOSUID
	{0x4, "nodev"},  // MS_NODEV
	{0x8, "noexec"}, // MS_NOEXEC
	{0x400, "noatime"},
	{0x800, "nodiratime"},
	{0x200000, "relatime"},
}

// WriteMounts writes /proc/mounts.
func WriteMounts(o *procfs.Buf) {
	forEach(func(m int32) {
		mt := &fs.Mounts[m]
		mangle(o, mt.Source[:mt.SourceLen])
		o.Byte(' ')
		if !mountPoint(o, m) {
			return
		}
		o.Byte(' ').Str(typeNames[fs.Supers[mt.Super].Type]).Byte(' ')
		rw(o, m)
		mountOpts(o, mt.Flags)
		superOpts(o, mt.Super)
		o.Str(" 0 0\n")
	})
}

// WriteMountinfo writes /proc/PID/mountinfo: ID, parent ID, major:minor,
// the mount's root within its instance, the mountpoint, the mount's
// options, no optional fields (private mounts), "-", type, source and
// the instance's options.
func WriteMountinfo(o *procfs.Buf) {
	var buf [fs.PathMax]byte
	forEach(func(m int32) {
		mt := &fs.Mounts[m]
		o.Dec(int64(mt.ID)).Byte(' ').Dec(int64(fs.Mounts[mt.Parent].ID)).Byte(' ')
		dev := fs.Dev(mt.Super)
		o.Udec(uint64(unix.Major(dev))).Byte(':').Udec(uint64(unix.Minor(dev))).Byte(' ')
		n := fs.PathInSuper(mt.Root, buf[:])
		mangle(o, buf[:n])
		o.Byte(' ')
		if !mountPoint(o, m) {
			return
		}
		o.Byte(' ')
		rw(o, m)
		mountOpts(o, mt.Flags)
		o.Str(" - ").Str(typeNames[fs.Supers[mt.Super].Type]).Byte(' ')
		mangle(o, mt.Source[:mt.SourceLen])
		o.Byte(' ')
		if fs.Supers[mt.Super].ReadOnly {
			o.Str("ro")
		} else {
			o.Str("rw")
		}
		superOpts(o, mt.Super)
		o.Byte('\n')
	})
}

// forEach calls fn with each mount in the tree, oldest first.
func forEach(fn func(m int32)) {
	last := int32(0)
	for {
		next, id := int32(-1), int32(0)
		for m := int32(0); m < fs.MaxMounts; m++ {
			mt := &fs.Mounts[m]
			if mt.Used && mt.Parent >= 0 && mt.ID > last && (next < 0 || mt.ID < id) {
				next, id = m, mt.ID
			}
		}
		if next < 0 {
			return
		}
		fn(next)
		last = id
	}
}

// mountPoint writes where mount m is, mangled; false (and the line's
// start undone by nothing: the caller stops) if the path does not fit.
func mountPoint(o *procfs.Buf, m int32) bool {
	var buf [fs.PathMax]byte
	n, e := fs.PathOf(fs.Path{Mnt: m, Ino: fs.Mounts[m].Root}, buf[:])
	if e != 0 {
		return false
	}
	mangle(o, buf[:n])
	return true
}

func rw(o *procfs.Buf, m int32) {
	if fs.Mounts[m].Flags&0x1 != 0 || fs.Supers[fs.Mounts[m].Super].ReadOnly { // MS_RDONLY
		o.Str("ro")
	} else {
		o.Str("rw")
	}
}

func mountOpts(o *procfs.Buf, flags uint32) {
	for _, f := range mntFlags {
		if flags&f.flag != 0 {
			o.Byte(',').Str(f.name)
		}
	}
}

// superOpts writes an instance's own options as shmem_show_options
// does for every tmpfs (the root and devtmpfs are tmpfs instances too):
// size and nr_inodes when bounded (the root by the machine-wide bounds,
// which Linux 6.1 shows for its rootfs too), mode when not tmpfs's
// default 1777, and inode64 (Debian's kernels have
// CONFIG_TMPFS_INODE64, and inode numbers here are 64-bit).
func superOpts(o *procfs.Buf, s uint8) {
	sb := &fs.Supers[s]
	pages, inodes := uint64(sb.MaxPages), int64(sb.MaxInodes)
	switch sb.Type {
	case fs.TypeRootfs:
		pages, inodes = uint64(fs.MaxDataPages()), fs.MaxInodes
	case fs.TypeTmpfs, fs.TypeDevtmpfs:
	case fs.TypeDevpts:
		devptsOpts(o)
		return
	default:
		return
	}
	if pages != 0 {
		o.Str(",size=").Udec(pages * pageSize >> 10).Byte('k')
	}
	if inodes != 0 {
		o.Str(",nr_inodes=").Dec(inodes)
	}
	if sb.Mode != 0o1777 {
		o.Str(",mode=").Oct(uint64(sb.Mode), 3)
	}
	o.Str(",inode64")
}

// mangle writes p with space, tab, newline and backslash as octal
// escapes (seq_file's mangle_path with " \t\n\\").
func mangle(o *procfs.Buf, p []byte) {
	for _, c := range p {
		switch c {
		case ' ', '\t', '\n', '\\':
			o.Byte('\\').Oct(uint64(c), 3)
		default:
			o.Byte(c)
		}
	}
}
