package fs

import (
	"gometal/kernel/cpio"

	"golang.org/x/sys/unix"
)

// Path walk over the two layers: a path names a tmpfs node if one has
// it, else an initramfs node; symlinks in either are expanded here.

// PathMax is the longest path a system call takes (PATH_MAX).
const PathMax = 4096

// Ref names a node in either layer: the tmpfs (tmp >= 0) or the
// initramfs.
type Ref struct {
	Tmp int32
	Nd  Node
}

func (r *Ref) Mode() uint32 {
	if r.Tmp >= 0 {
		return TmpNodes[r.Tmp].Mode
	}
	return r.Nd.Mode
}

func (r *Ref) IsDir() bool { return r.Mode()&cpio.S_IFMT == cpio.S_IFDIR }

// LookupAny finds a path in the tmpfs, then in the initramfs.
func LookupAny(path []byte) (Ref, bool) {
	if i := TmpLookup(path); i >= 0 {
		return Ref{Tmp: i}, true
	}
	nd, ok := Lookup(path)
	return Ref{Tmp: -1, Nd: nd}, ok
}

// LookupFollow looks up an absolute path whose directories resolveAt
// has already expanded, following a final symlink if follow is set; buf
// receives the final path, which it returns.
func LookupFollow(path []byte, follow bool, buf *[PathMax]byte) (Ref, []byte, unix.Errno) {
	n, e := ExpandPath(buf, copy(buf[:], path), follow)
	cur := buf[:n]
	if e != 0 {
		return Ref{Tmp: -1}, cur, e
	}
	r, ok := LookupAny(cur)
	if !ok {
		return r, cur, unix.ENOENT
	}
	return r, cur, 0
}

// ExpandPath replaces symlinks among the directories of buf[:n] (and the
// final component too if followFinal) by their targets, in place. It stops
// quietly at a component that does not exist: the caller's lookup or
// create decides what that means.
func ExpandPath(buf *[PathMax]byte, n int, followFinal bool) (int, unix.Errno) {
	for depth := 0; depth < maxSymlinks; depth++ {
		cur := buf[:n]
		expanded := false
		for i := 1; i <= len(cur); i++ {
			if i < len(cur) && cur[i] != '/' {
				continue
			}
			if i == len(cur) && !followFinal {
				break
			}
			r, ok := LookupAny(cur[:i])
			if !ok {
				return n, 0
			}
			if r.Mode()&cpio.S_IFMT == cpio.S_IFLNK {
				m, e := expandLink(buf, cur[:i], LinkTarget(&r), cur[i:])
				if e != 0 {
					return n, e
				}
				n, expanded = m, true
				break
			}
			if i < len(cur) && !r.IsDir() {
				return n, unix.ENOTDIR // a file where a directory must be
			}
		}
		if !expanded {
			return n, 0
		}
	}
	return n, unix.ELOOP
}

// maxSymlinks bounds symlink expansions in one lookup (Linux: 40).
const maxSymlinks = 40

func LinkTarget(r *Ref) []byte {
	if r.Tmp >= 0 {
		return TmpNodes[r.Tmp].Link[:TmpNodes[r.Tmp].LinkLen]
	}
	return r.Nd.Data
}

// expandLink writes into buf the path that replaces link (an absolute
// path whose target is target) followed by rest.
func expandLink(buf *[PathMax]byte, link, target, rest []byte) (int, unix.Errno) {
	dir := ParentOf(link) // read by cleanPath before buf is overwritten
	var joined [PathMax]byte
	jn := copy(joined[:], target)
	if jn+len(rest) > len(joined) {
		return 0, unix.ENAMETOOLONG
	}
	jn += copy(joined[jn:], rest)
	var next [PathMax]byte
	m := CleanPath(next[:], dir, joined[:jn])
	if m < 0 {
		return 0, unix.ENAMETOOLONG
	}
	return copy(buf[:], next[:m]), 0
}

// Create makes a new tmpfs node at path, which must not exist yet in
// either layer and whose directory must.
func Create(path []byte, mode uint32) (int32, unix.Errno) {
	if _, ok := LookupAny(path); ok {
		return -1, unix.EEXIST
	}
	if !DirExists(ParentOf(path)) {
		return -1, unix.ENOENT
	}
	return TmpCreate(path, mode)
}

// Unlink removes path from the namespace: a file, or with rmdir an empty
// directory (unlinkat(2), AT_REMOVEDIR). A tmpfs node still open lives
// on, nameless, until its last description goes (TmpRelease).
func Unlink(path []byte, rmdir bool) unix.Errno {
	r, ok := LookupAny(path)
	if !ok {
		return unix.ENOENT
	}
	if r.Tmp < 0 {
		return unix.EROFS
	}
	nd := &TmpNodes[r.Tmp]
	if rmdir {
		if !nd.IsDir() {
			return unix.ENOTDIR
		}
		if TmpHasChildren(path) {
			return unix.ENOTEMPTY
		}
	} else if nd.IsDir() {
		return unix.EISDIR
	}
	nd.Unlinked = true
	TmpRelease(r.Tmp)
	return 0
}
