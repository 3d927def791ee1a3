package kernel

import (
	"gometal/kernel/usermem"
	"gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Open files of the two file-system layers: initramfs files and
// directories (read-only; the node each description opened is kept in
// archiveNodes, indexed like vfs.Files), tmpfs nodes (each tmpNode is its
// own Impl), and the memory devices.

// archiveNodes holds the initramfs node of each description opened on
// one (a file, a directory or a device node).
var archiveNodes [vfs.MaxFiles]fsNode

// archiveFile is the Impl of every initramfs file or directory
// description; dir says which of the two.
type archiveFile struct {
	vfs.Base
	dir bool
}

var (
	archiveFileImpl = archiveFile{}
	archiveDirImpl  = archiveFile{dir: true}
)

// openArchive makes a description for initramfs file or directory nd.
func openArchive(nd fsNode, flags uint32, cloexec bool) uint64 {
	if nd.mode&unix.S_IFMT == unix.S_IFDIR {
		return openNode(&archiveDirImpl, nd, flags, cloexec)
	}
	return openNode(&archiveFileImpl, nd, flags, cloexec)
}

// openNode makes a description for impl that keeps initramfs node nd
// (archiveNodes), and gives it the lowest free descriptor.
func openNode(impl vfs.Impl, nd fsNode, flags uint32, cloexec bool) uint64 {
	fd := freeFD(0)
	if fd < 0 {
		return errno(unix.EMFILE)
	}
	fi := vfs.Alloc(impl, flags)
	archiveNodes[fi] = nd
	setFD(fd, fi, cloexec)
	return uint64(fd)
}

func (a *archiveFile) node(f *vfs.File) *fsNode { return &archiveNodes[f.Index()] }

func (a *archiveFile) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if a.dir {
		return errno(unix.EISDIR)
	}
	data := a.node(f).data
	pos := off
	if off < 0 {
		pos = f.Pos
	}
	if pos >= int64(len(data)) {
		return 0
	}
	d := data[pos:]
	if uint64(len(d)) > n {
		d = d[:n]
	}
	if !usermem.CopyOut(buf, d) {
		return errno(unix.EFAULT)
	}
	if off < 0 {
		f.Pos += int64(len(d))
	}
	return uint64(len(d))
}

func (a *archiveFile) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	return errno(unix.EBADF) // opened read-only: the initramfs is
}

func (a *archiveFile) Seek(f *vfs.File, off int64, whence int) uint64 {
	if a.dir {
		return seekDir(f, off, whence)
	}
	return seekFile(f, off, whence, int64(len(a.node(f).data)))
}

func (a *archiveFile) Stat(f *vfs.File) unix.Stat_t {
	var st unix.Stat_t
	fillStat(&st, a.node(f))
	return st
}

func (a *archiveFile) Release(f *vfs.File) { archiveNodes[f.Index()] = fsNode{} }

func (a *archiveFile) Kind() vfs.Kind {
	if a.dir {
		return vfs.KindDir
	}
	return vfs.KindFile
}

// seekFile is lseek on a file of size bytes.
func seekFile(f *vfs.File, off int64, whence int, size int64) uint64 {
	var base int64
	switch whence {
	case unix.SEEK_SET:
	case unix.SEEK_CUR:
		base = f.Pos
	case unix.SEEK_END:
		base = size
	default:
		return errno(unix.EINVAL)
	}
	if base+off < 0 {
		return errno(unix.EINVAL)
	}
	f.Pos = base + off
	return uint64(f.Pos)
}

// seekDir is lseek on a directory: back to its start (rewinddir), or
// where it is now.
func seekDir(f *vfs.File, off int64, whence int) uint64 {
	switch {
	case whence == unix.SEEK_SET && off == 0:
		f.Pos = 0
		return 0
	case whence == unix.SEEK_CUR && off == 0:
		return uint64(f.Pos)
	}
	return errno(unix.EINVAL)
}

// dirPath writes the absolute path of directory description f into buf,
// and reports whether it is an archive directory; n < 0: not a
// directory. (A type switch on the two concrete directory types, not an
// interface assertion: converting one interface to another looks up an
// itab at run time, and the runtime that would do it is not running.)
func dirPath(f *vfs.File, buf *[pathMax]byte) (n int, archive bool) {
	switch impl := f.Impl.(type) {
	case *archiveFile:
		if impl.dir {
			buf[0] = '/'
			return 1 + copy(buf[1:], archiveNodes[f.Index()].name), true
		}
	case *tmpNode:
		if impl.isDir() {
			return copy(buf[:], impl.name()), false
		}
	}
	return -1, false
}

// tmpNode as an open file: a tmpfs file or directory.

func (n *tmpNode) Read(f *vfs.File, buf uintptr, count uint64, off int64) uint64 {
	if n.isDir() {
		return errno(unix.EISDIR)
	}
	pos := off
	if off < 0 {
		pos = f.Pos
	}
	r := tmpRead(n, buf, count, pos)
	if off < 0 && !vfs.IsErr(r) {
		f.Pos += int64(r)
	}
	return r
}

func (n *tmpNode) Write(f *vfs.File, buf uintptr, count uint64, off int64) uint64 {
	if n.isDir() {
		return errno(unix.EBADF)
	}
	pos := off
	if off < 0 {
		pos = f.Pos
		if f.Flags&unix.O_APPEND != 0 {
			pos = n.size
		}
	}
	r := tmpWrite(n, buf, count, pos)
	if off < 0 && !vfs.IsErr(r) {
		f.Pos = pos + int64(r)
	}
	return r
}

func (n *tmpNode) Seek(f *vfs.File, off int64, whence int) uint64 {
	if n.isDir() {
		return seekDir(f, off, whence)
	}
	return seekFile(f, off, whence, n.size)
}

func (n *tmpNode) Stat(f *vfs.File) unix.Stat_t {
	var st unix.Stat_t
	tmpStat(&st, n)
	return st
}

// Release: an unlinked node goes with its last open description.
func (n *tmpNode) Release(f *vfs.File) {
	n.opens--
	tmpRelease(n.index())
}

func (n *tmpNode) Kind() vfs.Kind {
	if n.isDir() {
		return vfs.KindTmpDir
	}
	return vfs.KindTmpFile
}
