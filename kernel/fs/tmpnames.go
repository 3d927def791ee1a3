package fs

import (
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// The tmpfs namespace: each name is an absolute path (in a page of its
// own, so it may be PATH_MAX long) and the node it names. A node is an
// inode: its data, mode and times, and how many names it has (Nlink). A
// file may have several names (link(2)); a directory has exactly one,
// which its node keeps (dirName) so that a directory description knows
// its path. A node without names lives on while a description has it
// open (TmpRelease).

// MaxTmpNames bounds the namespace: every node's first name and as many
// hard links again.
const MaxTmpNames = 2 * MaxTmpNodes

type tmpName struct {
	node int32 // 1 + index into TmpNodes; 0: the slot is free
	page uintptr
	n    int
}

var tmpNames [MaxTmpNames]tmpName

func (m *tmpName) path() []byte { return mm.PageBytes(m.page)[:m.n] }

// lookupName returns the slot of name path, or -1.
func lookupName(path []byte) int32 {
	for k := range tmpNames {
		if m := &tmpNames[k]; m.node != 0 && string(m.path()) == string(path) {
			return int32(k)
		}
	}
	return -1
}

// addName makes path a name of node i.
func addName(path []byte, i int32) (int32, unix.Errno) {
	if len(path) > PathMax {
		return -1, unix.ENAMETOOLONG
	}
	for k := range tmpNames {
		m := &tmpNames[k]
		if m.node != 0 {
			continue
		}
		if m.page == 0 {
			if m.page = mm.Pages.Get(); m.page == 0 {
				return -1, unix.ENOSPC
			}
		}
		m.node = i + 1
		m.n = copy(mm.PageBytes(m.page)[:], path)
		n := &TmpNodes[i]
		n.Nlink++
		if n.IsDir() {
			n.dirName = int32(k)
		}
		return int32(k), 0
	}
	return -1, unix.ENOSPC
}

// dropName removes name k; its node goes too once it has no names and
// no open descriptions.
func dropName(k int32) {
	m := &tmpNames[k]
	i := m.node - 1
	mm.Pages.Put(m.page)
	*m = tmpName{}
	TmpNodes[i].Nlink--
	TmpRelease(i)
}

// TmpChild returns the first name from slot k on that is directly inside
// directory dir: the slot, the name's last component and its node; slot
// -1 when there is none. getdents walks a directory with it.
func TmpChild(dir []byte, k int) (int, []byte, *TmpNode) {
	for ; k < MaxTmpNames; k++ {
		m := &tmpNames[k]
		if m.node == 0 {
			continue
		}
		if p := m.path(); IsChildPath(dir, p) {
			base := p[len(ParentOf(p)):]
			if len(base) > 0 && base[0] == '/' {
				base = base[1:]
			}
			return k, base, &TmpNodes[m.node-1]
		}
	}
	return -1, nil, nil
}

// Link makes newPath another name of the file at oldPath (link(2)):
// directories cannot be linked (EPERM), nor can the initramfs's files
// (EXDEV: another file system, as far as link can tell).
func Link(oldPath, newPath []byte) unix.Errno {
	r, ok := LookupAny(oldPath)
	switch {
	case !ok:
		return unix.ENOENT
	case r.IsDir():
		return unix.EPERM
	case r.Tmp < 0:
		return unix.EXDEV
	}
	if _, ok := LookupAny(newPath); ok {
		return unix.EEXIST
	}
	if !DirExists(ParentOf(newPath)) {
		return unix.ENOENT
	}
	_, e := addName(newPath, r.Tmp)
	return e
}
