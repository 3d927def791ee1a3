package fs

import (
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Open files of the two file-system layers: initramfs files and
// directories (read-only; the node each description opened is kept in
// archiveNodes, indexed like vfs.Files), tmpfs nodes (each tmpNode is its
// own Impl), and the memory devices.

// Nodes holds the initramfs node of each description opened on
// one (a file, a directory or a device node).
var Nodes [vfs.MaxFiles]Node

// ArchiveFile is the Impl of every initramfs file or directory
// description; dir says which of the two.
type ArchiveFile struct {
	vfs.Base
	dir bool
}

var (
	archiveFileImpl = ArchiveFile{}
	archiveDirImpl  = ArchiveFile{dir: true}
)

// ArchiveImpl is the Impl for a description of initramfs file or
// directory nd.
func ArchiveImpl(nd *Node) vfs.Impl {
	if nd.Mode&unix.S_IFMT == unix.S_IFDIR {
		return &archiveDirImpl
	}
	return &archiveFileImpl
}

// OpenNode makes a description for impl that keeps initramfs node nd
// (Nodes) and returns its index, or -1 when the table is full.
func OpenNode(impl vfs.Impl, nd Node, flags uint32) int32 {
	fi := vfs.Alloc(impl, flags)
	if fi >= 0 {
		Nodes[fi] = nd
	}
	return fi
}

// IsDir reports whether a is the Impl of initramfs directories.
func (a *ArchiveFile) IsDir() bool { return a.dir }

// NodeOf returns the initramfs node description f opened.
func NodeOf(f *vfs.File) *Node { return &Nodes[f.Index()] }

func (a *ArchiveFile) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if a.dir {
		return vfs.Err(unix.EISDIR)
	}
	data := NodeOf(f).Data
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
		return vfs.Err(unix.EFAULT)
	}
	if off < 0 {
		f.Pos += int64(len(d))
	}
	return uint64(len(d))
}

func (a *ArchiveFile) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	return vfs.Err(unix.EBADF) // opened read-only: the initramfs is
}

func (a *ArchiveFile) Seek(f *vfs.File, off int64, whence int) uint64 {
	if a.dir {
		return SeekDir(f, off, whence)
	}
	return SeekFile(f, off, whence, int64(len(NodeOf(f).Data)))
}

func (a *ArchiveFile) Stat(f *vfs.File) unix.Stat_t {
	var st unix.Stat_t
	FillStat(&st, NodeOf(f))
	return st
}

func (a *ArchiveFile) Release(f *vfs.File) { Nodes[f.Index()] = Node{} }

func (a *ArchiveFile) Kind() vfs.Kind {
	if a.dir {
		return vfs.KindDir
	}
	return vfs.KindFile
}

// SeekFile is lseek on a file of size bytes.
func SeekFile(f *vfs.File, off int64, whence int, size int64) uint64 {
	var base int64
	switch whence {
	case unix.SEEK_SET:
	case unix.SEEK_CUR:
		base = f.Pos
	case unix.SEEK_END:
		base = size
	default:
		return vfs.Err(unix.EINVAL)
	}
	if base+off < 0 {
		return vfs.Err(unix.EINVAL)
	}
	f.Pos = base + off
	return uint64(f.Pos)
}

// SeekDir is lseek on a directory: back to its start (rewinddir), or
// where it is now.
func SeekDir(f *vfs.File, off int64, whence int) uint64 {
	switch {
	case whence == unix.SEEK_SET && off == 0:
		f.Pos = 0
		return 0
	case whence == unix.SEEK_CUR && off == 0:
		return uint64(f.Pos)
	}
	return vfs.Err(unix.EINVAL)
}

// DirPath writes the absolute path of directory description f into buf,
// and reports whether it is an archive directory; n < 0: not a
// directory. (A type switch on the two concrete directory types, not an
// interface assertion: converting one interface to another looks up an
// itab at run time, and the runtime that would do it is not running.)
func DirPath(f *vfs.File, buf *[PathMax]byte) (n int, archive bool) {
	switch impl := f.Impl.(type) {
	case *ArchiveFile:
		if impl.dir {
			buf[0] = '/'
			return 1 + copy(buf[1:], Nodes[f.Index()].Name), true
		}
	case *TmpNode:
		if impl.IsDir() {
			return copy(buf[:], impl.DirPath()), false
		}
	}
	return -1, false
}

// FillStat is stat(2) of initramfs node nd.
func FillStat(st *unix.Stat_t, nd *Node) {
	st.Dev = 1
	st.Ino = uint64(nd.Ino)
	st.Mode = nd.Mode
	st.Rdev = uint64(nd.Rdev)
	setNlink(&st.Nlink, max(nd.Nlink, 1))
	st.Size = int64(len(nd.Data))
	st.Blksize = 4096
	st.Blocks = (st.Size + 511) / 512
	st.Mtim.Sec = int64(nd.Mtime)
	st.Atim = st.Mtim
	st.Ctim = st.Mtim
}

// setNlink stores a link count in a Stat_t field whose width differs by
// architecture (uint32 on arm64, uint64 on the amd64 host the tests run
// on).
func setNlink[T uint32 | uint64](p *T, n uint32) { *p = T(n) }
