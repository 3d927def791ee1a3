package fs

import (
	"github.com/gometal/gometal/kernel/cpio"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// The initramfs becomes the file system at boot, as Linux unpacks its
// initramfs into a tmpfs (init/initramfs.c): each entry of the cpio
// archive the bootloader left in memory becomes an inode under its name.
// A file's bytes are not copied: the inode reads them out of the archive
// until it is first written (data.go).

// Archive is the initramfs as the bootloader left it (the kernel's start
// sets it from the DTB's linux,initrd-start and -end).
var Archive []byte

// UnpackError says why the initramfs could not be unpacked.
type UnpackError struct {
	Err   cpio.Err   // the archive is malformed, or
	Errno unix.Errno // an entry could not be made (ENOSPC: too many)
	Entry []byte     // its name
	Count int        // entries made before it
}

// Init sets the file system's size limit to limit bytes, makes its root,
// unpacks the initramfs into it and makes /tmp (mode 1777) if the
// archive has none. It runs once, at boot, on tables that start empty
// (zeroed with the kernel's bss: 1.9 MiB not to clear twice); host tests
// empty them between runs (resetTables).
func Init(limit uint64) (UnpackError, bool) {
	maxDataPages = uintptr(limit / mm.PageSize)
	newInode(0, unix.S_IFDIR|0o755) // slot and inode number RootIno: the first
	Inodes[RootIno].Nlink = 1       // the root's name is the file system's
	initMounts()
	count := 0
	for off := 0; ; {
		e, next, err := cpio.Next(Archive, off)
		if err == cpio.ErrEnd {
			break
		}
		if err != cpio.OK {
			return UnpackError{Err: err, Count: count}, false
		}
		if errno := unpackEntry(&e); errno != 0 {
			return UnpackError{Errno: errno, Entry: e.Name, Count: count}, false
		}
		count++
		off = next
	}
	var w Walk
	if Resolve(&w, RootPath(), tmpPath[:], 0) == 0 && w.Node < 0 {
		if _, e := Create(&w, unix.S_IFDIR|0o1777); e != 0 {
			return UnpackError{Errno: e, Entry: tmpPath[:], Count: count}, false
		}
	}
	return UnpackError{}, true
}

var tmpPath = [...]byte{'/', 't', 'm', 'p'}

// unpackEntry makes one archive entry, and the directories above it that
// the archive does not list. A later entry of the same name replaces an
// earlier one, as the Linux unpacker's do_name unlinks what is there.
func unpackEntry(e *cpio.Entry) unix.Errno {
	nm := cpio.TrimName(e.Name)
	if len(nm) == 0 {
		Inodes[RootIno].Mode = unix.S_IFDIR | e.Mode&0o7777
		return 0
	}
	dir := int32(RootIno)
	for i := 0; i < len(nm); {
		j := i
		for j < len(nm) && nm[j] != '/' {
			j++
		}
		comp := nm[i:j]
		i = j + 1
		if len(comp) == 0 || string(comp) == "." || string(comp) == ".." {
			return unix.EINVAL
		}
		if len(comp) > NameMax {
			return unix.ENAMETOOLONG
		}
		k := lookupName(dir, comp)
		if j < len(nm) {
			// A directory on the way.
			if k < 0 {
				sub, e := makeNode(dir, comp, unix.S_IFDIR|0o755)
				if e != 0 {
					return e
				}
				dir = sub
				continue
			}
			if sub := dentries[k].inode; Inodes[sub].IsDir() {
				dir = sub
				continue
			}
			return unix.ENOTDIR
		}
		if k >= 0 {
			old := dentries[k].inode
			if Inodes[old].IsDir() && e.Mode&unix.S_IFMT == unix.S_IFDIR {
				// Listed after its contents, or twice: keep the
				// entries, take the mode and time.
				Inodes[old].Mode = e.Mode
				Inodes[old].Mtime = int64(e.Mtime) * 1e9
				return 0
			}
			if Inodes[old].IsDir() && Inodes[old].entries > 0 {
				return unix.ENOTEMPTY
			}
			dropName(k)
		}
		i2, errno := makeNode(dir, comp, e.Mode)
		if errno != 0 {
			return errno
		}
		n := &Inodes[i2]
		n.Mtime = int64(e.Mtime) * 1e9
		n.Atime = int64(e.Mtime) * 1e9
		switch e.Mode & unix.S_IFMT {
		case unix.S_IFREG, unix.S_IFLNK:
			n.archive, n.Size = e.Data, int64(len(e.Data))
			if n.IsSymlink() {
				n.Size = 0
			}
		case unix.S_IFCHR, unix.S_IFBLK:
			n.Rdev = e.RDevMajor<<8 | e.RDevMinor&0xff
		}
	}
	return 0
}

// AddFile puts a regular file the kernel makes at boot into the tree
// (name relative to the root, its directories made as needed), as if
// the archive had held it: data is kernel memory that stays, copied
// to the file's own pages when the app first writes it.
func AddFile(name []byte, perm uint32, data []byte) unix.Errno {
	return unpackEntry(&cpio.Entry{Name: name, Mode: unix.S_IFREG | perm&0o7777, Data: data})
}

// ConfigFile returns the archive's bytes of a small file the CLI put
// there (the /.gometal settings), as they came, whatever the app does
// to the file later.
func ConfigFile(path string) []byte {
	for off := 0; ; {
		e, next, err := cpio.Next(Archive, off)
		if err != cpio.OK {
			return nil
		}
		if string(cpio.TrimName(e.Name)) == path {
			return e.Data
		}
		off = next
	}
}

// ArchiveData is the archive's bytes of a file nobody has written (the
// loader maps /init from them), or nil.
func ArchiveData(i int32) []byte {
	if n := &Inodes[i]; n.Mode&unix.S_IFMT == unix.S_IFREG {
		return n.archive
	}
	return nil
}
