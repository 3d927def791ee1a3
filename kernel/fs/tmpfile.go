package fs

import (
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// TmpNode as an open file: each tmpfs file or directory is its own
// vfs.Impl.

func (n *TmpNode) Read(f *vfs.File, buf uintptr, count uint64, off int64) uint64 {
	if n.IsDir() {
		return vfs.Err(unix.EISDIR)
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

func (n *TmpNode) Write(f *vfs.File, buf uintptr, count uint64, off int64) uint64 {
	if n.IsDir() {
		return vfs.Err(unix.EBADF)
	}
	pos := off
	if off < 0 {
		pos = f.Pos
		if f.Flags&unix.O_APPEND != 0 {
			pos = n.Size
		}
	}
	r := tmpWrite(n, buf, count, pos)
	if off < 0 && !vfs.IsErr(r) {
		f.Pos = pos + int64(r)
	}
	return r
}

func (n *TmpNode) Seek(f *vfs.File, off int64, whence int) uint64 {
	if n.IsDir() {
		return SeekDir(f, off, whence)
	}
	return SeekFile(f, off, whence, n.Size)
}

func (n *TmpNode) Stat(f *vfs.File) unix.Stat_t {
	var st unix.Stat_t
	TmpStat(&st, n)
	return st
}

// Release: an unlinked node goes with its last open description.
func (n *TmpNode) Release(f *vfs.File) {
	n.Opens--
	TmpRelease(n.Index())
}

func (n *TmpNode) Kind() vfs.Kind {
	if n.IsDir() {
		return vfs.KindTmpDir
	}
	return vfs.KindTmpFile
}
