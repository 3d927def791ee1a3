package fs

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// tmpfs: a writable in-memory file system layered over the read-only
// initramfs. New files and directories may be made anywhere a directory
// exists (in either layer); /tmp is a tmpfs directory from boot. Files and
// directories that came in the initramfs stay read-only (EROFS).
//
// Nodes are keyed by their absolute path; file data lives in pages reached
// through a two-level index (a root page of 512 leaf-index pages, each of
// 512 data pages: 1 GiB at most per file).

const (
	MaxTmpNodes = 2048
	tmpIndexN   = mm.PageSize / 8 // entries per index page
	TmpMaxSize  = tmpIndexN * tmpIndexN * mm.PageSize
)

// TmpNode is one tmpfs file, directory or symlink (its names are in
// tmpnames.go), and the vfs.Impl of its descriptions (tmpfile.go).
type TmpNode struct {
	vfs.Base
	Used    bool
	Nlink   int // names (tmpnames.go); 0: unlinked, alive while open
	Mode    uint32
	Size    int64
	Mtime   int64 // ns
	Atime   int64 // ns: set at creation and by utimensat (reads do not touch it: noatime)
	Ino     uint64
	Opens   int
	root    uintptr // index page, 0 until the file has data
	dirName int32   // a directory's one name (tmpNames slot)
	// A symlink's target takes a page of its own, so it may be as long as
	// Linux allows (PATH_MAX) while the table stays small.
	linkPage uintptr // 0: not a symlink
	linkLen  int
	// A FIFO's pipe (1 + index) while it exists, and the tag that
	// tells it apart from a later pipe in the same slot (fifo.go).
	fifoPipe int32
	fifoTag  uint64
}

var TmpNodes [MaxTmpNodes]TmpNode

const tmpInoBase = 1 << 32 // keep tmpfs inode numbers apart from the archive's

// tmpInos counts the nodes made, so a node's inode number is never that
// of an earlier node in the same slot: a bound AF_UNIX socket is found
// by its file's inode number (kernel/socket).
var tmpInos uint64

// DirPath is a directory's absolute path (its one name).
func (n *TmpNode) DirPath() []byte { return tmpNames[n.dirName].path() }

// Link is a symlink's target (nil for other nodes).
func (n *TmpNode) Link() []byte {
	if n.linkPage == 0 {
		return nil
	}
	return mm.PageBytes(n.linkPage)[:n.linkLen]
}

// SetLink stores a symlink's target (symlink(2): at most PATH_MAX-1
// bytes).
func (n *TmpNode) SetLink(target []byte) unix.Errno {
	if len(target) >= PathMax {
		return unix.ENAMETOOLONG
	}
	if n.linkPage == 0 {
		if n.linkPage = mm.Pages.Get(); n.linkPage == 0 {
			return unix.ENOSPC
		}
	}
	n.linkLen = copy(mm.PageBytes(n.linkPage)[:], target)
	return 0
}

// free gives back a node's link page and its slot.
func (n *TmpNode) free() {
	if n.linkPage != 0 {
		mm.Pages.Put(n.linkPage)
	}
	*n = TmpNode{}
}

func (n *TmpNode) Index() int32 {
	return int32((uintptr(unsafe.Pointer(n)) - uintptr(unsafe.Pointer(&TmpNodes[0]))) / unsafe.Sizeof(TmpNodes[0]))
}

func (n *TmpNode) IsDir() bool { return n.Mode&unix.S_IFMT == unix.S_IFDIR }

// TmpLookup finds the tmpfs node named by absolute path.
func TmpLookup(path []byte) int32 {
	if k := lookupName(path); k >= 0 {
		return tmpNames[k].node - 1
	}
	return -1
}

// TmpCreate makes a node named path; the caller has checked the parent.
func TmpCreate(path []byte, mode uint32) (int32, unix.Errno) {
	for i := range TmpNodes {
		n := &TmpNodes[i]
		if !n.Used {
			now := wallNanos()
			tmpInos++
			*n = TmpNode{Used: true, Mode: mode, Ino: tmpInoBase + tmpInos, Mtime: now, Atime: now}
			if _, e := addName(path, int32(i)); e != 0 {
				*n = TmpNode{}
				return -1, e
			}
			return int32(i), 0
		}
	}
	return -1, unix.ENOSPC
}

func wallNanos() int64 { return clock.Realtime() }

// InitTmpfs empties the tmpfs, sets its size limit to limit bytes and
// makes /tmp.
func InitTmpfs(limit uint64) {
	TmpNodes = [MaxTmpNodes]TmpNode{}
	tmpNames = [MaxTmpNames]tmpName{}
	tmpPages = 0
	tmpInos = 0
	tmpMaxPages = uintptr(limit / mm.PageSize)
	TmpCreate([]byte("/tmp"), unix.S_IFDIR|0o1777)
}

// ParentOf returns the directory part of an absolute path ("/" for "/x").
func ParentOf(path []byte) []byte {
	i := len(path) - 1
	for i > 0 && path[i] != '/' {
		i--
	}
	if i == 0 {
		return path[:1]
	}
	return path[:i]
}

// DirExists reports whether path names a directory in either layer.
func DirExists(path []byte) bool {
	if i := TmpLookup(path); i >= 0 {
		return TmpNodes[i].IsDir()
	}
	nd, ok := Lookup(path)
	return ok && nd.Mode&unix.S_IFMT == unix.S_IFDIR
}

// TmpHasChildren reports whether a directory has tmpfs entries.
func TmpHasChildren(dir []byte) bool {
	k, _, _ := TmpChild(dir, 0)
	return k >= 0
}

// IsChildPath reports whether p is directly inside the absolute dir.
func IsChildPath(dir, p []byte) bool {
	if string(dir) == "/" {
		dir = dir[:0]
	}
	if len(p) <= len(dir)+1 || string(p[:len(dir)]) != string(dir) || p[len(dir)] != '/' {
		return false
	}
	for _, c := range p[len(dir)+1:] {
		if c == '/' {
			return false
		}
	}
	return true
}

// TmpRelease frees a node's pages when it has no names and no open
// descriptions.
func TmpRelease(i int32) {
	n := &TmpNodes[i]
	if n.Nlink > 0 || n.Opens > 0 {
		return
	}
	TmpTruncate(n, 0)
	n.free()
}

// tmpPage returns the data page for byte offset off, allocating it (and
// index pages) if alloc is set; 0 means a hole (or no memory).
func tmpPage(n *TmpNode, off int64, alloc bool) uintptr {
	pg := uint64(off) / mm.PageSize
	root := indexSlot(&n.root, alloc)
	if root == 0 {
		return 0
	}
	leaf := indexSlot(&indexWords(root)[pg/tmpIndexN], alloc)
	if leaf == 0 {
		return 0
	}
	return indexSlot(&indexWords(leaf)[pg%tmpIndexN], alloc)
}

// indexSlot returns the page a slot points to, filling an empty slot with
// a new zeroed page when alloc is set.
func indexSlot[T uintptr | uint64](slot *T, alloc bool) uintptr {
	if *slot == 0 && alloc {
		*slot = T(tmpGetPage())
	}
	return uintptr(*slot)
}

// The tmpfs's size limit, as Linux's tmpfs has one: past it a write
// fails with ENOSPC instead of taking the memory the app's own page
// faults need. tmpPages counts data and index pages alike.
var (
	tmpPages    uintptr
	tmpMaxPages uintptr
)

func tmpGetPage() uintptr {
	if tmpPages >= tmpMaxPages {
		return 0
	}
	p := mm.Pages.Get()
	if p != 0 {
		tmpPages++
	}
	return p
}

func tmpPutPage(p uintptr) {
	mm.Pages.Put(p)
	tmpPages--
}

func indexWords(pa uintptr) *[tmpIndexN]uint64 {
	return (*[tmpIndexN]uint64)(usermem.PtrOf(mm.PageBytes(pa)))
}

// TmpTruncate sets the size, freeing whole pages past it and zeroing the
// tail of the last one.
func TmpTruncate(n *TmpNode, size int64) {
	if size < n.Size && n.root != 0 {
		keep := (uint64(size) + mm.PageSize - 1) / mm.PageSize
		rootW := indexWords(n.root)
		for hi := uint64(0); hi < tmpIndexN; hi++ {
			if rootW[hi] == 0 {
				continue
			}
			leaf := indexWords(uintptr(rootW[hi]))
			empty := true
			for lo := uint64(0); lo < tmpIndexN; lo++ {
				if leaf[lo] == 0 {
					continue
				}
				if hi*tmpIndexN+lo >= keep {
					tmpPutPage(uintptr(leaf[lo]))
					leaf[lo] = 0
				} else {
					empty = false
				}
			}
			if empty {
				tmpPutPage(uintptr(rootW[hi]))
				rootW[hi] = 0
			}
		}
		if keep == 0 {
			tmpPutPage(n.root)
			n.root = 0
		} else if rem := size % mm.PageSize; rem != 0 {
			if p := tmpPage(n, size, false); p != 0 {
				clear(mm.PageBytes(p)[rem:])
			}
		}
	}
	n.Size = size
	n.Mtime = wallNanos()
}

// tmpRead copies file bytes at off to the app.
func tmpRead(n *TmpNode, buf uintptr, count uint64, off int64) uint64 {
	if off >= n.Size {
		return 0
	}
	if rest := uint64(n.Size - off); count > rest {
		count = rest
	}
	var zero [256]byte
	done := uint64(0)
	for done < count {
		pos := off + int64(done)
		in := uint64(pos % mm.PageSize)
		chunk := mm.PageSize - in
		if chunk > count-done {
			chunk = count - done
		}
		var ok bool
		if p := tmpPage(n, pos, false); p != 0 {
			ok = usermem.CopyOut(buf+uintptr(done), mm.PageBytes(p)[in:in+chunk])
		} else {
			ok = true
			for z := uint64(0); z < chunk && ok; z += uint64(len(zero)) {
				m := min(uint64(len(zero)), chunk-z)
				ok = usermem.CopyOut(buf+uintptr(done+z), zero[:m])
			}
		}
		if !ok {
			if done > 0 {
				return done
			}
			return vfs.Err(unix.EFAULT)
		}
		done += chunk
	}
	return done
}

// tmpWrite copies app bytes into the file at off.
func tmpWrite(n *TmpNode, buf uintptr, count uint64, off int64) uint64 {
	if off < 0 || uint64(off)+count > TmpMaxSize {
		return vfs.Err(unix.EFBIG)
	}
	done := uint64(0)
	for done < count {
		pos := off + int64(done)
		in := uint64(pos % mm.PageSize)
		chunk := mm.PageSize - in
		if chunk > count-done {
			chunk = count - done
		}
		p := tmpPage(n, pos, true)
		if p == 0 {
			if done > 0 {
				break
			}
			return vfs.Err(unix.ENOSPC)
		}
		if !usermem.CopyIn(mm.PageBytes(p)[in:in+chunk], buf+uintptr(done)) {
			if done > 0 {
				break
			}
			return vfs.Err(unix.EFAULT)
		}
		done += chunk
	}
	if end := off + int64(done); end > n.Size {
		n.Size = end
	}
	n.Mtime = wallNanos()
	return done
}

func TmpStat(st *unix.Stat_t, n *TmpNode) {
	st.Dev = 2
	st.Ino = n.Ino
	st.Mode = n.Mode
	setNlink(&st.Nlink, uint32(n.Nlink))
	if n.IsDir() {
		st.Nlink = 2
	}
	st.Size = n.Size
	if n.Mode&unix.S_IFMT == unix.S_IFLNK {
		st.Size = int64(n.linkLen)
	}
	st.Blksize = mm.PageSize
	st.Blocks = (n.Size + 511) / 512
	st.Mtim = unix.NsecToTimespec(n.Mtime)
	st.Atim = unix.NsecToTimespec(n.Atime)
	st.Ctim = st.Mtim
}

// TmpRename moves a node (and, for a directory, everything below it).
func TmpRename(from, to []byte) unix.Errno {
	i := TmpLookup(from)
	if i < 0 {
		if _, ok := Lookup(from); ok {
			return unix.EROFS
		}
		return unix.ENOENT
	}
	if string(from) == string(to) {
		return 0
	}
	if len(to) > len(from) && string(to[:len(from)]) == string(from) && to[len(from)] == '/' {
		return unix.EINVAL // into itself
	}
	if !DirExists(ParentOf(to)) {
		return unix.ENOENT
	}
	if k := lookupName(to); k >= 0 && tmpNames[k].node-1 == i {
		return 0 // two names of one file: rename(2) does nothing
	} else if k >= 0 {
		dst := &TmpNodes[tmpNames[k].node-1]
		if dst.IsDir() != TmpNodes[i].IsDir() {
			if dst.IsDir() {
				return unix.EISDIR
			}
			return unix.ENOTDIR
		}
		if dst.IsDir() && TmpHasChildren(to) {
			return unix.ENOTEMPTY
		}
		dropName(k)
	} else if _, ok := Lookup(to); ok {
		return unix.EROFS
	}
	// Re-key the node and its descendants: check every new path fits
	// first, so a failure changes nothing.
	for pass := 0; pass < 2; pass++ {
		if e := rekey(from, to, pass == 1); e != 0 {
			return e
		}
	}
	return 0
}

func rekey(from, to []byte, apply bool) unix.Errno {
	for k := range tmpNames {
		m := &tmpNames[k]
		if m.node == 0 {
			continue
		}
		p := m.path()
		if string(p) == string(from) || len(p) > len(from) && string(p[:len(from)]) == string(from) && p[len(from)] == '/' {
			rest := p[len(from):]
			if len(to)+len(rest) > PathMax {
				return unix.ENAMETOOLONG
			}
			if !apply {
				continue
			}
			var tmp [PathMax]byte
			n := copy(tmp[:], to)
			n += copy(tmp[n:], rest)
			m.n = copy(mm.PageBytes(m.page)[:], tmp[:n])
		}
	}
	return 0
}
