package fs

import (
	"github.com/gometal/gometal/kernel/cpio"

	"golang.org/x/sys/unix"
)

// Path walk over the two layers: a path names a tmpfs node if one has
// it, else an initramfs node; symlinks in either are expanded here.

// PathMax is the longest path a system call takes (PATH_MAX, with its
// NUL), NameMax the longest name in a directory (NAME_MAX), as on Linux.
const (
	PathMax = 4096
	NameMax = 255
)

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

// LookupFollow looks up an absolute path Resolve has already walked,
// following a final symlink if follow is set; buf receives the final
// path, which it returns with how the symlink's target ended (a link to
// "d/" names a directory).
func LookupFollow(path []byte, follow bool, buf *[PathMax]byte) (Ref, []byte, Tail, unix.Errno) {
	n, tail, e := Resolve(buf, nil, path, follow)
	cur := buf[:n]
	if e != 0 {
		return Ref{Tmp: -1}, cur, tail, e
	}
	r, ok := LookupAny(cur)
	if !ok {
		return r, cur, tail, unix.ENOENT
	}
	return r, cur, tail, 0
}

// Tail says how a path ended, for the calls whose answer depends on it
// (Linux's LAST_DOT, LAST_DOTDOT and trailing slashes).
type Tail uint8

const (
	// TailDir: a slash follows the last name ("a/", "a/."), so it must be
	// a directory; a lookup follows it if it is a symlink, a create does
	// not (mkdir("dangling/") is EEXIST).
	TailDir Tail = 1 << iota
	// TailDot: the last component is "." (rmdir answers EINVAL).
	TailDot
	// TailDotDot: the last component is ".." (rmdir answers ENOTEMPTY).
	TailDotDot
)

// Resolve walks path p one component at a time from directory base (an
// absolute path Resolve produced; unused when p is absolute), as
// path_resolution(7) describes, and writes the absolute path it reaches
// into dst, returning its length and how p ended:
//   - "." stays; ".." goes to the parent of the directory reached so far,
//     after any symlink that led there (physically, not by editing the
//     string: with a -> b/c, "a/.." is b);
//   - a symlink met as a directory is replaced by its target, read from
//     the directory that holds it (or from / if absolute); the final one
//     only if follow is set (a trailing slash is reported as TailDir for
//     the caller to decide);
//   - a name followed by more components must be a directory, and so must
//     a final name followed by a slash unless it is a symlink.
//
// A missing directory is ENOENT, a file where a directory must be
// ENOTDIR, more than maxSymlinks symlinks ELOOP. A missing final
// component is no error: the path names it, for the caller to create or
// to answer ENOENT.
func Resolve(dst *[PathMax]byte, base, p []byte, follow bool) (int, Tail, unix.Errno) {
	var rem [PathMax]byte // what is left to walk
	rn := copy(rem[:], p)
	if rn < len(p) {
		return 0, 0, unix.ENAMETOOLONG
	}
	n := 1
	dst[0] = '/'
	if (len(p) == 0 || p[0] != '/') && len(base) > 0 {
		n = copy(dst[:], base)
	}
	links := 0
	var tail Tail
	for i := 0; ; {
		for i < rn && rem[i] == '/' {
			i++
		}
		if i == rn {
			return n, tail, 0
		}
		j := i
		for j < rn && rem[j] != '/' {
			j++
		}
		comp := rem[i:j]
		i = j
		last := true // nothing but slashes after comp
		for k := j; k < rn; k++ {
			if rem[k] != '/' {
				last = false
				break
			}
		}
		slash := j < rn // a slash follows comp: it must be a directory
		switch string(comp) {
		case ".":
			tail = tail&TailDir | TailDot
			continue
		case "..":
			n = len(ParentOf(dst[:n]))
			tail = TailDir | TailDotDot
			continue
		}
		if len(comp) > NameMax {
			return 0, 0, unix.ENAMETOOLONG
		}
		tail = 0
		if slash {
			tail = TailDir
		}
		m := n
		if m > 1 {
			if m == PathMax {
				return 0, 0, unix.ENAMETOOLONG
			}
			dst[m] = '/'
			m++
		}
		if m+len(comp) > PathMax {
			return 0, 0, unix.ENAMETOOLONG
		}
		m += copy(dst[m:], comp)
		r, ok := LookupAny(dst[:m])
		link := ok && r.Mode()&cpio.S_IFMT == cpio.S_IFLNK
		switch {
		case !ok && last:
			return m, tail, 0
		case !ok:
			return m, tail, unix.ENOENT
		case link && (!last || follow):
			links++
			if links > maxSymlinks {
				return m, tail, unix.ELOOP
			}
			target := LinkTarget(&r)
			if len(target) == 0 {
				return m, tail, unix.ENOENT
			}
			// What is left becomes the target followed by the rest (which
			// starts with its slash, if any).
			var next [PathMax]byte
			t := copy(next[:], target)
			if t+rn-i > PathMax {
				return m, tail, unix.ENAMETOOLONG
			}
			t += copy(next[t:], rem[i:rn])
			rn, i = copy(rem[:], next[:t]), 0
			if target[0] == '/' {
				n = 1
			}
		case slash && !link && !r.IsDir():
			return m, tail, unix.ENOTDIR
		default:
			n = m
		}
	}
}

// maxSymlinks bounds symlink expansions in one lookup (Linux: 40).
const maxSymlinks = 40

func LinkTarget(r *Ref) []byte {
	if r.Tmp >= 0 {
		return TmpNodes[r.Tmp].Link()
	}
	return r.Nd.Data
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

// Unlink removes path, which ended as tail says, from the namespace: a
// file, or with rmdir an empty directory (unlinkat(2), AT_REMOVEDIR). A
// path that does not end in a name, or ends in a slash, is answered as
// Linux's do_rmdir and do_unlinkat answer it. A tmpfs node still open
// lives on, nameless, until its last description goes (TmpRelease).
func Unlink(path []byte, tail Tail, rmdir bool) unix.Errno {
	switch {
	case rmdir && tail&TailDot != 0:
		return unix.EINVAL
	case rmdir && tail&TailDotDot != 0:
		return unix.ENOTEMPTY
	case !rmdir && tail&(TailDot|TailDotDot) != 0:
		return unix.EISDIR
	}
	k := lookupName(path)
	if k < 0 {
		nd, ok := Lookup(path)
		switch {
		case !ok:
			return unix.ENOENT
		case !rmdir && tail&TailDir != 0 && nd.Mode&unix.S_IFMT != unix.S_IFDIR:
			return unix.ENOTDIR
		}
		return unix.EROFS
	}
	nd := &TmpNodes[tmpNames[k].node-1]
	if !rmdir && tail&TailDir != 0 && !nd.IsDir() {
		return unix.ENOTDIR
	}
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
	dropName(k)
	return 0
}

// Symlink makes a symlink at path whose target is target (symlink(2)).
func Symlink(path, target []byte) unix.Errno {
	i, e := Create(path, unix.S_IFLNK|0o777)
	if e != 0 {
		return e
	}
	if e := TmpNodes[i].SetLink(target); e != 0 {
		dropName(lookupName(path))
		return e
	}
	return 0
}
