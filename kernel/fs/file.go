package fs

import (
	"github.com/gometal/gometal/kernel/locks"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// An inode as an open file: each Inode is the vfs.Impl of the
// descriptions opened on it (regular files and directories; FIFOs open
// as pipe ends, device nodes as their driver's file, and the Linux layer
// chooses which). A description holds its inode (Hold) until Release.

// Open makes a description of inode i with status flags flags, holding
// the inode: its index, or -1 when the description table is full.
func Open(p Path, flags uint32) int32 {
	fi := vfs.Alloc(&Inodes[p.Ino], flags)
	if fi >= 0 {
		Hold(p.Ino)
		FileMnt[fi] = p.Mnt
		UseMount(p.Mnt)
	}
	return fi
}

func (n *Inode) Read(f *vfs.File, buf uintptr, count uint64, off int64) uint64 {
	if n.IsDir() {
		return vfs.Err(unix.EISDIR)
	}
	pos := off
	if off < 0 {
		pos = f.Pos
	}
	var r uint64
	if n.Synth.Kind != 0 {
		r = SynthRead(n.Index(), buf, count, pos)
	} else {
		RevalidateOpen(n.Index()) // a share's file the host changed
		r = readDataAs(n, buf, count, pos, vfs.MayWaitDisk)
	}
	if off < 0 && !vfs.IsErr(r) {
		f.Pos += int64(r)
	}
	if off < 0 && r == vfs.DiskWaitErr {
		f.Pos += int64(vfs.DiskMoved) // read on from there (vfs.Read)
	}
	return r
}

func (n *Inode) Write(f *vfs.File, buf uintptr, count uint64, off int64) uint64 {
	if n.IsDir() {
		return vfs.Err(unix.EBADF)
	}
	if n.Synth.Kind != 0 {
		if n.Synth.Writable && SynthWrite != nil {
			return SynthWrite(n.Index(), buf, count)
		}
		return vfs.Err(unix.EIO)
	}
	pos := off
	if off < 0 {
		pos = f.Pos
		if f.Flags&unix.O_APPEND != 0 {
			pos = n.Size
		}
	}
	r := writeData(n, buf, count, pos)
	if off < 0 && !vfs.IsErr(r) {
		f.Pos = pos + int64(r)
	}
	return r
}

func (n *Inode) Seek(f *vfs.File, off int64, whence int) uint64 {
	if n.IsDir() {
		return SeekDir(f, off, whence)
	}
	if m := Supers[n.Super].MaxBytes; m != 0 {
		// generic_file_llseek_size's bound, the file system's
		// s_maxbytes (ext4_llseek): EINVAL past it.
		return seekFileMax(f, off, whence, n.Size, m)
	}
	return SeekFile(f, off, whence, n.Size)
}

func (n *Inode) Stat(f *vfs.File) unix.Stat_t {
	RevalidateOpen(n.Index())
	var st unix.Stat_t
	n.StatTo(&st)
	return st
}

// Release: an unlinked inode goes with its last open description.
func (n *Inode) Release(f *vfs.File) {
	locks.ReleaseDesc(f.Index())
	UnuseMount(FileMnt[f.Index()])
	Drop(n.Index())
}

func (n *Inode) Kind() vfs.Kind {
	if n.IsDir() {
		return vfs.KindDir
	}
	return vfs.KindFile
}

// SeekFile is lseek on a file of size bytes.
func SeekFile(f *vfs.File, off int64, whence int, size int64) uint64 {
	return seekFileMax(f, off, whence, size, 1<<63-1)
}

// seekFileMax is SeekFile where no position may pass max.
func seekFileMax(f *vfs.File, off int64, whence int, size, max int64) uint64 {
	var base int64
	switch whence {
	case unix.SEEK_SET:
	case unix.SEEK_CUR:
		base = f.Pos
	case unix.SEEK_END:
		base = size
	case unix.SEEK_DATA, unix.SEEK_HOLE:
		// generic_file_llseek_size: no file system here keeps a map of
		// its holes for lseek, so the whole file is data and its one
		// hole is at its end, the simplest answer lseek(2) allows; an
		// offset at or past the end (or negative) is ENXIO.
		if off < 0 || off >= size {
			return vfs.Err(unix.ENXIO)
		}
		if whence == unix.SEEK_HOLE {
			off = size
		}
	default:
		return vfs.Err(unix.EINVAL)
	}
	if base+off < 0 || base+off > max {
		return vfs.Err(unix.EINVAL)
	}
	f.Pos = base + off
	return uint64(f.Pos)
}

// SeekDir is lseek on a directory: to a position getdents gave (d_off),
// or where it is now.
func SeekDir(f *vfs.File, off int64, whence int) uint64 {
	switch {
	case whence == unix.SEEK_SET && off >= 0:
		f.Pos = off
		return uint64(off)
	case whence == unix.SEEK_CUR && off == 0:
		return uint64(f.Pos)
	}
	return vfs.Err(unix.EINVAL)
}

// InodeOf returns the inode description f was opened on, or -1 if f is
// no inode's (a pipe, a socket, a device's driver file).
func InodeOf(f *vfs.File) int32 {
	if n, ok := f.Impl.(*Inode); ok {
		return n.Index()
	}
	return -1
}

// DirOf returns the inode of directory description f, or -1 if f is
// not a directory. (A type switch on the concrete type, not an interface
// assertion: converting one interface to another looks up an itab at run
// time, and the runtime that would do it is not running.)
func DirOf(f *vfs.File) int32 {
	if n, ok := f.Impl.(*Inode); ok && n.IsDir() {
		return n.Index()
	}
	return -1
}
