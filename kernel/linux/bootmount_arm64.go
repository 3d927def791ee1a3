package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/vfatfs"

	"golang.org/x/sys/unix"
)

// Disks mounted at boot: gometal.mount=DEV:GUEST (gometal run -disk
// FILE:GUEST) mounts the ext4 on /dev/DEV at GUEST, making the
// directories, before /init starts, as a distribution's initramfs
// mounts what its fstab names: read-write unless the disk is read-only
// (docs/STORAGE.md). A mount that fails says why on the console
// and the boot goes on: the program finds the directory empty.

var (
	bootMountDev  [fs.PathMax]byte
	bootMountPath [fs.PathMax]byte
)

// mountShares mounts each host share (gometal run -v HOST:GUEST[:ro],
// gometal.9p=TAG:GUEST[:ro]) at its guest path, as
// mount -t 9p -o trans=virtio TAG GUEST would: read-write, or read-only
// when the host serves it so.
func mountShares() {
	for k := 0; ; k++ {
		tag, guest, ro, ok := kernel.SharePlace(k)
		if !ok {
			return
		}
		if len(guest) == 0 || guest[0] != '/' {
			bootMountSay("9p: share ", tag, " has no absolute guest path: not mounted", nil, 0)
			continue
		}
		var flags uint64
		how := " (9p, read-write) at "
		if ro {
			flags, how = unix.MS_RDONLY, " (9p, read-only) at "
		}
		dir, e := mkdirAll(guest)
		if e == 0 {
			e = mount.Mount(tag, fs.Path{}, dir, []byte("9p"), flags, nil)
		}
		if e != 0 {
			bootMountSay("mount: 9p share ", tag, " at ", guest, e)
			continue
		}
		bootMountSay("mounted the host share ", tag, how, guest, 0)
	}
}

// mountDisks makes each gometal.mount= of the command line.
func mountDisks() {
	for k := 0; ; k++ {
		v, ok := kernel.DiskMount(k)
		if !ok {
			return
		}
		c := 0
		for c < len(v) && v[c] != ':' {
			c++
		}
		if c == len(v) || c+1 == len(v) || v[c+1] != '/' {
			bootMountSay("gometal.mount= wants DEV:/PATH, not ", v, "", nil, 0)
			continue
		}
		mountDisk(v[:c], v[c+1:])
	}
}

// mountDisk mounts the file system on /dev/dev at path: a FAT read-only;
// ext4 read-write, or read-only when the device is (-disk FILE:GUEST:ro)
// or the volume cannot be written here (the reason is in the log above).
func mountDisk(dev, path []byte) {
	n := copy(bootMountDev[:], "/dev/")
	n += copy(bootMountDev[n:], dev)
	src := bootMountDev[:n]
	var sw fs.Walk
	i, e := fs.Lookup(&sw, fs.RootPath(), src, fs.Follow)
	if e != 0 {
		bootMountSay("mount: no device ", src, "", nil, e)
		return
	}
	dir, e := mkdirAll(path)
	if e != 0 {
		bootMountSay("mount: cannot make ", path, "", nil, e)
		return
	}
	if vfatfs.Is(fs.Inodes[i].Rdev>>8, fs.Inodes[i].Rdev&0xff) {
		// A FAT (the Pi's boot partition): read-only, as kernel/vfatfs
		// reads it.
		if e = mount.Mount(src, fs.Path{Mnt: sw.Mnt, Ino: i}, dir, []byte("vfat"), unix.MS_RDONLY, nil); e != 0 {
			bootMountSay("mount: vfat on ", dev, " at ", path, e)
			return
		}
		bootMountSay("mounted ", dev, " (vfat, read-only) at ", path, 0)
		return
	}
	how := " (ext4, read-write) at "
	flags := uint64(0)
	if d, _ := block.Find(fs.Inodes[i].Rdev>>8, fs.Inodes[i].Rdev&0xff); d != nil && d.ReadOnly {
		how, flags = " (ext4, read-only: a read-only disk) at ", unix.MS_RDONLY
	}
	e = mount.Mount(src, fs.Path{Mnt: sw.Mnt, Ino: i}, dir, []byte("ext4"), flags, nil)
	if e == unix.EROFS && flags == 0 {
		how, flags = " (ext4, read-only: it cannot be written, see above) at ", unix.MS_RDONLY
		e = mount.Mount(src, fs.Path{Mnt: sw.Mnt, Ino: i}, dir, []byte("ext4"), flags, nil)
	}
	if e != 0 {
		bootMountSay("mount: ext4 on ", dev, " at ", path, e)
		return
	}
	bootMountSay("mounted ", dev, how, path, 0)
}

// mkdirAll walks path from the root, making each directory missing
// (mode 0755), and returns where it ends.
func mkdirAll(path []byte) (fs.Path, unix.Errno) {
	p := copy(bootMountPath[:], path)
	for k := 1; k <= p; k++ {
		if k < p && bootMountPath[k] != '/' {
			continue
		}
		var w fs.Walk
		if e := fs.Resolve(&w, fs.RootPath(), bootMountPath[:k], fs.ForCreate|fs.Follow); e != 0 {
			return fs.Path{}, e
		}
		if w.Node < 0 {
			if _, e := fs.Create(&w, unix.S_IFDIR|0o755); e != 0 {
				return fs.Path{}, e
			}
		}
	}
	var w fs.Walk
	i, e := fs.Lookup(&w, fs.RootPath(), path, fs.Follow)
	if e == 0 && !fs.Inodes[i].IsDir() {
		e = unix.ENOTDIR
	}
	return w.NodePath(), e
}

// bootMountSay prints "gometal: what ARG what2 ARG2" and the error's
// name if any.
func bootMountSay(what string, arg []byte, what2 string, arg2 []byte, e unix.Errno) {
	if kernel.Info(what) {
		kernel.PutBytes(arg)
		kernel.Puts(what2)
		kernel.PutBytes(arg2)
		if e != 0 {
			kernel.Puts(": ")
			kernel.Puts(e.Error())
		}
		kernel.InfoEnd()
	}
}
