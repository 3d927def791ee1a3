package fs

import (
	"golang.org/x/sys/unix"
)

// The path walk: one component at a time from a directory, as
// path_resolution(7) describes and Linux's link_path_walk does.

// PathMax is the longest path a system call takes (PATH_MAX, with its
// NUL), NameMax the longest name in a directory (NAME_MAX), as on Linux.
const (
	PathMax = 4096
	NameMax = 255
)

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

// How a walk treats its last component.
type WalkFlags uint8

const (
	// Follow: a final symlink is followed (stat, open without
	// O_NOFOLLOW); without it a final symlink is what the walk names
	// (lstat, unlink), unless a slash follows it.
	Follow WalkFlags = 1 << iota
	// ForCreate: the last component is a name to make, so a slash after
	// a final symlink does not follow it either (mkdir("dangling/") is
	// EEXIST, not a directory made at the target).
	ForCreate
)

// Walk is where a walk ended: the directory that holds the last
// component, that component's name (empty when the path ended at "/",
// "." or ".."), and the inode it names (-1 if none: a name to create, or
// ENOENT for a lookup); DirMnt and Mnt are the mounts Dir and Node were
// reached through (they differ when Node is a mount's root).
type Walk struct {
	Dir, Node   int32
	DirMnt, Mnt int32
	// Root is where "/" and ".." stop: the process's root (chroot),
	// set by the caller before Resolve; zero is the tree's root.
	Root    Path
	Tail    Tail
	name    [NameMax]byte
	nameLen int
}

// Name is the last component's name.
func (w *Walk) Name() []byte { return w.name[:w.nameLen] }

// maxSymlinks bounds symlink expansions in one lookup (Linux: 40).
const maxSymlinks = 40

// DirPath and NodePath are the walk's directory and node as places.
func (w *Walk) DirPath() Path  { return Path{w.DirMnt, w.Dir} }
func (w *Walk) NodePath() Path { return Path{w.Mnt, w.Node} }

// Resolve walks p from directory base (the root when p is absolute) and
// records in w where it ended:
//   - "." stays; ".." goes to the parent of the directory reached so far
//     (after any symlink that led there: with a -> b/c, "a/.." is b);
//   - a symlink met as a directory is replaced by its target, walked from
//     the directory that holds it (or from / if absolute); the final one
//     as flags say;
//   - a name followed by more components must be a directory, and so must
//     a final name followed by a slash unless it is a symlink.
//
// A missing directory is ENOENT, a file where a directory must be
// ENOTDIR, a removed directory ENOENT, more than maxSymlinks symlinks
// ELOOP, a name over NAME_MAX or a path over PATH_MAX ENAMETOOLONG. A
// missing final component is no error (w.Node is -1).
func Resolve(w *Walk, base Path, p []byte, flags WalkFlags) unix.Errno {
	var rem [PathMax]byte // what is left to walk; symlinks expand in place
	rn := copy(rem[:], p)
	if rn < len(p) {
		return unix.ENAMETOOLONG
	}
	root := w.Root
	if root.Ino == 0 {
		root = RootPath()
	}
	cur := base
	if len(p) > 0 && p[0] == '/' {
		cur = root // as nd->root: a mount on the root itself shows after a chroot or chdir to it
	}
	if !Inodes[cur.Ino].IsDir() {
		return unix.ENOTDIR
	}
	*w = at(cur, root)
	links := 0
	for i := 0; ; {
		for i < rn && rem[i] == '/' {
			i++
		}
		if i == rn {
			return 0
		}
		j := i
		for j < rn && rem[j] != '/' {
			j++
		}
		comp := rem[i:j]
		last := true // nothing but slashes after comp
		for k := j; k < rn; k++ {
			if rem[k] != '/' {
				last = false
				break
			}
		}
		slash := j < rn // a slash follows comp: it must be a directory
		i = j
		// cur is a directory here: the root, a directory a component
		// reached, or one a symlink led to (checked below).
		if removed(cur.Ino) {
			return unix.ENOENT // removed: nothing is in it, nothing can be made
		}
		switch string(comp) {
		case ".":
			w.Tail = w.Tail&TailDir | TailDot
			w.nameLen = 0
			continue
		case "..":
			cur = DotDotIn(cur, root)
			if cur.Ino < 0 {
				return unix.ENOENT
			}
			*w = at(cur, root)
			w.Tail = TailDir | TailDotDot
			continue
		}
		if len(comp) > NameMax {
			return unix.ENAMETOOLONG
		}
		w.Tail = 0
		if slash {
			w.Tail = TailDir
		}
		w.Dir, w.DirMnt = cur.Ino, cur.Mnt
		w.nameLen = copy(w.name[:], comp)
		refresh(cur.Ino)
		if e := Fill(cur.Ino); e != 0 {
			return e
		}
		k := lookupName(cur.Ino, comp)
		if k >= 0 && Inodes[cur.Ino].Store != 0 {
			k = revalidateEntry(k) // a share's file the host changed
		}
		if k < 0 && Inodes[cur.Ino].Synth.Kind != 0 && SynthLookup != nil {
			SynthLookup(cur.Ino, copy(SynthName[:], comp))
			k = lookupName(cur.Ino, comp)
		}
		if k < 0 {
			w.Node, w.Mnt = -1, cur.Mnt
			if last {
				return 0
			}
			return unix.ENOENT
		}
		next := crossMounts(Path{cur.Mnt, dentries[k].inode})
		i2 := next.Ino
		w.Node, w.Mnt = i2, next.Mnt
		n := &Inodes[i2]
		follow := !last || flags&Follow != 0 || slash && flags&ForCreate == 0
		switch {
		case n.IsSymlink() && follow && n.Synth.Kind != 0 && SynthJump != nil && SynthJump(i2):
			if !last {
				return unix.ENOTDIR // a file, not a directory, lies behind it
			}
			return 0 // the walk ends at the link: Node is it
		case n.IsSymlink() && follow:
			links++
			if links > maxSymlinks {
				return unix.ELOOP
			}
			target := n.Link()
			if len(target) == 0 {
				return unix.ENOENT
			}
			// What is left becomes the target followed by the rest (which
			// starts with its slash, if any).
			rest := rn - i
			if len(target)+rest > PathMax {
				return unix.ENAMETOOLONG
			}
			copy(rem[len(target):], rem[i:rn])
			copy(rem[:], target)
			rn, i = len(target)+rest, 0
			if target[0] == '/' {
				cur = root
			}
			// Until the target's components are walked, the walk is at
			// the directory holding the link.
			*w = at(cur, root)
		case slash && !n.IsSymlink() && !n.IsDir():
			return unix.ENOTDIR
		case !last:
			cur = next
		}
	}
}

// at is a walk standing at directory cur: it names cur itself, which is
// in its parent (in itself for the root or a removed directory).
func at(cur, root Path) Walk {
	up := DotDotIn(cur, root)
	if up.Ino < 0 {
		up = cur
	}
	return Walk{Dir: up.Ino, DirMnt: up.Mnt, Node: cur.Ino, Mnt: cur.Mnt, Root: root}
}

// Lookup walks p from base, as Resolve does, and checks what a lookup
// (not a create) needs: the last component exists (ENOENT), and is a
// directory if a slash followed it (ENOTDIR). It returns the inode.
func Lookup(w *Walk, base Path, p []byte, flags WalkFlags) (int32, unix.Errno) {
	if e := Resolve(w, base, p, flags&^ForCreate); e != 0 {
		return -1, e
	}
	return w.Found()
}

// Found checks a walk as Lookup does.
func (w *Walk) Found() (int32, unix.Errno) {
	switch {
	case w.Node < 0:
		return -1, unix.ENOENT
	case w.Tail&TailDir != 0 && !Inodes[w.Node].IsDir():
		return -1, unix.ENOTDIR
	}
	return w.Node, 0
}

// removed says whether directory i was removed (rmdir, or renamed over):
// it has no name left, and it is not an instance's root.
func removed(i int32) bool {
	return Inodes[i].Nlink == 0 && i != RootIno && Supers[Inodes[i].Super].Root != i
}
