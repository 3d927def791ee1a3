package fs

import (
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// The namespace is a tree of names, as Linux's dentries make one: a
// dentry is one name in one directory and the inode it names. A file may
// have several (link(2)); a directory has exactly one, which its inode
// keeps, so ".." and getcwd walk up through it. Because the tree holds
// names and not paths, a path is only ever as long as the walk that
// reaches it: a working directory may be deeper than PATH_MAX, renaming a
// directory renames nothing below it, and a lookup is one hashed step per
// component.

// MaxDentries bounds the names: every inode's first and as many hard
// links again as half of them.
const MaxDentries = MaxInodes + MaxInodes/2

type dentry struct {
	dir, inode int32 // the directory the name is in, and what it names; inode 0: free
	hnext      int32 // next in the hash bucket (-1: none)
	next, prev int32 // the directory's entries in order (-1: none)
	seq        int64 // its getdents position in dir
	nameLen    uint8
	stale      bool // not yet found again while dir is read again (revalidate.go)
}

var dentries [MaxDentries]dentry

// Names live in pages shared by namesPerPage names of up to NAME_MAX
// bytes each, taken when the first name of a page is made and given back
// with its last: the table stays small, and memory goes with use.
const (
	nameSlot     = NameMax + 1
	namesPerPage = mm.PageSize / nameSlot
)

var (
	namePages [(MaxDentries + namesPerPage - 1) / namesPerPage]uintptr
	namesUsed [len(namePages)]uint16
)

func (d *dentry) nameIn(k int32) []byte {
	pg := namePages[k/namesPerPage]
	off := int(k%namesPerPage) * nameSlot
	return mm.PageBytes(pg)[off : off+int(d.nameLen)]
}

// name returns dentry k's name.
func name(k int32) []byte { return dentries[k].nameIn(k) }

// The hash of (directory, name) to dentries, chained through hnext.
const hashBuckets = 1 << 14

var buckets [hashBuckets]int32 // 1 + first dentry; 0: empty

func hashOf(dir int32, nm []byte) uint32 {
	// FNV-1a (http://www.isthe.com/chongo/tech/comp/fnv/), over the
	// directory's slot and then the name.
	h := uint32(2166136261)
	for k := 0; k < 4; k++ {
		h = (h ^ uint32(byte(dir>>(8*k)))) * 16777619
	}
	for _, c := range nm {
		h = (h ^ uint32(c)) * 16777619
	}
	return h % hashBuckets
}

// lookupName returns the dentry of nm in directory dir, or -1.
func lookupName(dir int32, nm []byte) int32 {
	for k := buckets[hashOf(dir, nm)] - 1; k >= 0; k = dentries[k].hnext {
		if d := &dentries[k]; d.dir == dir && string(d.nameIn(k)) == string(nm) {
			return k
		}
	}
	return -1
}

// dentryHint is where the search for a free dentry starts.
var dentryHint int32

// addName makes nm in directory dir a name of inode i: nothing is
// checked but the room for it.
func addName(dir int32, nm []byte, i int32) (int32, unix.Errno) {
	if len(nm) > NameMax {
		return -1, unix.ENAMETOOLONG
	}
	for c := int32(0); c < MaxDentries; c++ {
		k := (dentryHint + c) % MaxDentries
		d := &dentries[k]
		if d.inode != 0 {
			continue
		}
		g := k / namesPerPage
		if namePages[g] == 0 {
			if namePages[g] = getPageReclaiming(); namePages[g] == 0 {
				return -1, unix.ENOSPC
			}
		}
		dentryHint = k + 1
		namesUsed[g]++
		*d = dentry{dir: dir, inode: i, nameLen: uint8(len(nm))}
		copy(d.nameIn(k)[:len(nm)], nm)
		insertName(k)
		n := &Inodes[i]
		n.Nlink++
		if n.IsDir() {
			n.dentry = k
			Inodes[dir].subdirs++
		}
		return k, 0
	}
	return -1, unix.ENOSPC
}

// insertName hangs dentry k in its hash bucket and at the end of its
// directory's entries, with the directory's next getdents position.
func insertName(k int32) {
	d := &dentries[k]
	h := hashOf(d.dir, d.nameIn(k))
	d.hnext = buckets[h] - 1
	buckets[h] = k + 1
	p := &Inodes[d.dir]
	d.seq = p.nextSeq
	p.nextSeq++
	d.prev, d.next = p.last, -1
	if p.last >= 0 {
		dentries[p.last].next = k
	} else {
		p.first = k
	}
	p.last = k
	p.entries++
}

// unhookName takes dentry k out of its bucket and its directory's list.
func unhookName(k int32) {
	d := &dentries[k]
	h := hashOf(d.dir, d.nameIn(k))
	if buckets[h]-1 == k {
		buckets[h] = d.hnext + 1
	} else {
		for j := buckets[h] - 1; j >= 0; j = dentries[j].hnext {
			if dentries[j].hnext == k {
				dentries[j].hnext = d.hnext
				break
			}
		}
	}
	p := &Inodes[d.dir]
	if d.prev >= 0 {
		dentries[d.prev].next = d.next
	} else {
		p.first = d.next
	}
	if d.next >= 0 {
		dentries[d.next].prev = d.prev
	} else {
		p.last = d.prev
	}
	p.entries--
}

// dropName removes dentry k; its inode goes too once it has no names
// and no users.
func dropName(k int32) {
	unhookName(k)
	d := &dentries[k]
	i, dir := d.inode, d.dir
	n := &Inodes[i]
	n.Nlink--
	if n.IsDir() {
		n.dentry = -1
		Inodes[dir].subdirs--
	}
	g := k / namesPerPage
	if namesUsed[g]--; namesUsed[g] == 0 {
		mm.Pages.Put(namePages[g])
		namePages[g] = 0
	}
	*d = dentry{}
	rehomeStored(i, dir) // a stored file named elsewhere too walks from there now
	release(i)
}

// moveName gives dentry k a new directory and name (rename(2)); the name
// fits, since it passed the walk.
func moveName(k, dir int32, nm []byte) {
	unhookName(k)
	d := &dentries[k]
	if n := &Inodes[d.inode]; n.IsDir() {
		Inodes[d.dir].subdirs--
		Inodes[dir].subdirs++
	}
	d.dir = dir
	d.nameLen = uint8(len(nm))
	copy(d.nameIn(k)[:len(nm)], nm)
	insertName(k)
}

// Parent returns the directory holding directory i in its own instance
// (the root's is itself), or -1 for a removed directory; DotDot
// (mount.go) is ".." through the mount tree.
func Parent(i int32) int32 {
	if i == RootIno || Supers[Inodes[i].Super].Root == i {
		return i
	}
	if k := Inodes[i].dentry; k >= 0 {
		return dentries[k].dir
	}
	return -1
}

// PathOf writes the absolute path of directory p into buf, built from
// its name up through its parents and the mounts it is under, and
// returns its length: ENOENT for a removed directory (or one in a
// detached mount), ENAMETOOLONG if the path does not fit (getcwd(2),
// Linux's d_path).
func PathOf(p Path, buf []byte) (int, unix.Errno) {
	n, _, e := pathUp(p, RootPath(), buf, false)
	return n, e
}

// PathFrom is PathOf as a process whose root is root sees it (getcwd
// after chroot, Linux's d_path with the task's root): reachable is
// false when p is not under root, and the path is then the tree's.
func PathFrom(root, p Path, buf []byte) (n int, reachable bool, e unix.Errno) {
	return pathUp(p, root, buf, false)
}

// pathUp builds the path of directory p up to root (or the tree's root,
// reachable false, when p is not under it), or with inSuper up to the
// root of p's instance (PathInSuper).
func pathUp(p, root Path, buf []byte, inSuper bool) (int, bool, unix.Errno) {
	end := len(buf)
	reachable := true
	for i := p.Ino; ; {
		if inSuper && i == Supers[Inodes[i].Super].Root || !inSuper && (Path{p.Mnt, i}) == root {
			break
		}
		if !inSuper && p.Mnt == RootMount && i == RootIno {
			reachable = false
			break
		}
		if !inSuper && i == Mounts[p.Mnt].Root {
			if Mounts[p.Mnt].Parent < 0 {
				return 0, false, unix.ENOENT
			}
			p.Mnt, i = Mounts[p.Mnt].Parent, Mounts[p.Mnt].Point
			continue
		}
		k := Inodes[i].dentry
		if k < 0 {
			return 0, false, unix.ENOENT
		}
		nm := name(k)
		if end < len(nm)+1 {
			return 0, false, unix.ENAMETOOLONG
		}
		end -= len(nm)
		copy(buf[end:], nm)
		end--
		buf[end] = '/'
		i = dentries[k].dir
	}
	if end == len(buf) {
		if end == 0 {
			return 0, false, unix.ENAMETOOLONG
		}
		end--
		buf[end] = '/'
	}
	return copy(buf, buf[end:]), reachable, 0
}

// Entry returns the entry of directory i at getdents position pos or
// after it: the inode it names, its name, and the position after it; ok
// is false past the last. Positions 0 and 1 are "." and "..", as Linux's
// tmpfs lists them first.
func Entry(i int32, pos int64) (ino int32, nm []byte, next int64, ok bool) {
	switch {
	case pos <= 0:
		refresh(i)
		return i, dotName[:1], 1, true
	case pos == 1:
		if p := Parent(i); p >= 0 {
			return p, dotName[:2], firstEntryPos, true
		}
		pos = firstEntryPos
	}
	for k := Inodes[i].first; k >= 0; k = dentries[k].next {
		if d := &dentries[k]; d.seq >= pos && !Inodes[d.inode].Synth.Hidden {
			return d.inode, d.nameIn(k), d.seq + 1, true
		}
	}
	return 0, nil, pos, false
}

// firstEntryPos is the getdents position of a directory's first entry,
// after "." and "..".
const firstEntryPos = 2

var dotName = [2]byte{'.', '.'}

// PathOfAny writes into buf an absolute path of p, a directory or a
// file (one of its names, the first found: /proc/PID/fd's links), and
// returns its length; 0 when it has none (unlinked) or the path does
// not fit.
func PathOfAny(p Path, buf []byte) int {
	i := p.Ino
	if Inodes[i].IsDir() {
		n, e := PathOf(p, buf)
		if e != 0 {
			return 0
		}
		return n
	}
	for k := range dentries {
		d := &dentries[k]
		if d.inode != i {
			continue
		}
		n, e := PathOf(Path{p.Mnt, d.dir}, buf)
		nm := d.nameIn(int32(k))
		if e != 0 || n+1+len(nm) > len(buf) {
			return 0
		}
		if n > 1 {
			buf[n] = '/'
			n++
		}
		return n + copy(buf[n:], nm)
	}
	return 0
}
