package kernel

import (
	"unsafe"

	"gometal/kernel/mm"
	"gometal/kernel/usermem"
	"gometal/kernel/vfs"

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
	maxTmpNodes = 2048
	tmpPathMax  = 256
	tmpIndexN   = mm.PageSize / 8 // entries per index page
	tmpMaxSize  = tmpIndexN * tmpIndexN * mm.PageSize
)

type tmpNode struct {
	vfs.Base
	used     bool
	unlinked bool // removed from the namespace, still open
	mode     uint32
	size     int64
	mtime    int64 // ns
	atime    int64 // ns: set at creation and by utimensat (reads do not touch it: noatime)
	ino      uint64
	opens    int
	root     uintptr // index page, 0 until the file has data
	pathLen  int
	path     [tmpPathMax]byte
	link     [tmpPathMax]byte // symlink target
	linkLen  int
}

var tmpNodes [maxTmpNodes]tmpNode

const tmpInoBase = 1 << 32 // keep tmpfs inode numbers apart from the archive's

func (n *tmpNode) name() []byte { return n.path[:n.pathLen] }

func (n *tmpNode) index() int32 {
	return int32((uintptr(unsafe.Pointer(n)) - uintptr(unsafe.Pointer(&tmpNodes[0]))) / unsafe.Sizeof(tmpNodes[0]))
}

func (n *tmpNode) isDir() bool { return n.mode&unix.S_IFMT == unix.S_IFDIR }

// tmpLookup finds a live tmpfs node by absolute path.
func tmpLookup(path []byte) int32 {
	for i := range tmpNodes {
		n := &tmpNodes[i]
		if n.used && !n.unlinked && string(n.name()) == string(path) {
			return int32(i)
		}
	}
	return -1
}

// tmpCreate makes a node; the caller has checked the parent.
func tmpCreate(path []byte, mode uint32) (int32, unix.Errno) {
	if len(path) > tmpPathMax {
		return -1, unix.ENAMETOOLONG
	}
	for i := range tmpNodes {
		n := &tmpNodes[i]
		if !n.used {
			now := wallNanos()
			*n = tmpNode{used: true, mode: mode, ino: tmpInoBase + uint64(i), mtime: now, atime: now}
			n.pathLen = copy(n.path[:], path)
			return int32(i), 0
		}
	}
	return -1, unix.ENOSPC
}

func wallNanos() int64 {
	ns, _ := nowNanos(unix.CLOCK_REALTIME)
	return ns
}

// initTmpfs makes /tmp.
func initTmpfs() {
	initTmpfsLimit()
	tmpCreate([]byte("/tmp"), unix.S_IFDIR|0o1777)
}

// parentOf returns the directory part of an absolute path ("/" for "/x").
func parentOf(path []byte) []byte {
	i := len(path) - 1
	for i > 0 && path[i] != '/' {
		i--
	}
	if i == 0 {
		return path[:1]
	}
	return path[:i]
}

// dirExists reports whether path names a directory in either layer.
func dirExists(path []byte) bool {
	if i := tmpLookup(path); i >= 0 {
		return tmpNodes[i].isDir()
	}
	nd, ok := lookupPath(path)
	return ok && nd.mode&unix.S_IFMT == unix.S_IFDIR
}

// tmpHasChildren reports whether a directory has tmpfs entries.
func tmpHasChildren(dir []byte) bool {
	for i := range tmpNodes {
		n := &tmpNodes[i]
		if n.used && !n.unlinked && isChildPath(dir, n.name()) {
			return true
		}
	}
	return false
}

// isChildPath reports whether p is directly inside the absolute dir.
func isChildPath(dir, p []byte) bool {
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

// tmpRelease frees a node's pages when it is unlinked and closed.
func tmpRelease(i int32) {
	n := &tmpNodes[i]
	if !n.unlinked || n.opens > 0 {
		return
	}
	tmpTruncate(n, 0)
	n.used = false
}

// tmpPage returns the data page for byte offset off, allocating it (and
// index pages) if alloc is set; 0 means a hole (or no memory).
func tmpPage(n *tmpNode, off int64, alloc bool) uintptr {
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

// The tmpfs's size limit, as Linux's tmpfs has one (default: half of
// memory; boot argument gometal.tmpfs_size=SIZE, e.g. 64M or 25%). Past
// it a write fails with ENOSPC instead of taking the memory the app's own
// page faults need. tmpPages counts data and index pages alike.
var (
	tmpPages    uintptr
	tmpMaxPages uintptr
	// tmpSizeArg is the boot argument's value, nil for the default.
	tmpSizeArg []byte
)

// tmpfsDefaultPercent of memory is the limit without a boot argument.
const tmpfsDefaultPercent = 50

func initTmpfsLimit() {
	total := uint64(mm.Pages.Total() * mm.PageSize)
	size := total / 100 * tmpfsDefaultPercent
	if len(tmpSizeArg) > 0 {
		if n, ok := parseSize(tmpSizeArg, total); ok {
			size = n
		} else if info("ignoring gometal.tmpfs_size=") {
			putBytes(tmpSizeArg)
			puts(": want a size like 64M or 25%")
			infoEnd()
		}
	}
	tmpMaxPages = uintptr(size / mm.PageSize)
}

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

// tmpTruncate sets the size, freeing whole pages past it and zeroing the
// tail of the last one.
func tmpTruncate(n *tmpNode, size int64) {
	if size < n.size && n.root != 0 {
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
	n.size = size
	n.mtime = wallNanos()
}

// tmpRead copies file bytes at off to the app.
func tmpRead(n *tmpNode, buf uintptr, count uint64, off int64) uint64 {
	if off >= n.size {
		return 0
	}
	if rest := uint64(n.size - off); count > rest {
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
			return errno(unix.EFAULT)
		}
		done += chunk
	}
	return done
}

// tmpWrite copies app bytes into the file at off.
func tmpWrite(n *tmpNode, buf uintptr, count uint64, off int64) uint64 {
	if off < 0 || uint64(off)+count > tmpMaxSize {
		return errno(unix.EFBIG)
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
			return errno(unix.ENOSPC)
		}
		if !usermem.CopyIn(mm.PageBytes(p)[in:in+chunk], buf+uintptr(done)) {
			if done > 0 {
				break
			}
			return errno(unix.EFAULT)
		}
		done += chunk
	}
	if end := off + int64(done); end > n.size {
		n.size = end
	}
	n.mtime = wallNanos()
	return done
}

func tmpStat(st *unix.Stat_t, n *tmpNode) {
	st.Dev = 2
	st.Ino = n.ino
	st.Mode = n.mode
	st.Nlink = 1
	if n.isDir() {
		st.Nlink = 2
	}
	st.Size = n.size
	if n.mode&unix.S_IFMT == unix.S_IFLNK {
		st.Size = int64(n.linkLen)
	}
	st.Blksize = mm.PageSize
	st.Blocks = (n.size + 511) / 512
	st.Mtim = unix.NsecToTimespec(n.mtime)
	st.Atim = unix.NsecToTimespec(n.atime)
	st.Ctim = st.Mtim
}

// tmpRename moves a node (and, for a directory, everything below it).
func tmpRename(from, to []byte) unix.Errno {
	i := tmpLookup(from)
	if i < 0 {
		if _, ok := lookupPath(from); ok {
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
	if !dirExists(parentOf(to)) {
		return unix.ENOENT
	}
	if j := tmpLookup(to); j >= 0 {
		dst := &tmpNodes[j]
		if dst.isDir() != tmpNodes[i].isDir() {
			if dst.isDir() {
				return unix.EISDIR
			}
			return unix.ENOTDIR
		}
		if dst.isDir() && tmpHasChildren(to) {
			return unix.ENOTEMPTY
		}
		dst.unlinked = true
		tmpRelease(j)
	} else if _, ok := lookupPath(to); ok {
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
	for k := range tmpNodes {
		n := &tmpNodes[k]
		if !n.used || n.unlinked {
			continue
		}
		p := n.name()
		if string(p) == string(from) || len(p) > len(from) && string(p[:len(from)]) == string(from) && p[len(from)] == '/' {
			rest := p[len(from):]
			if len(to)+len(rest) > tmpPathMax {
				return unix.ENAMETOOLONG
			}
			if !apply {
				continue
			}
			var tmp [tmpPathMax]byte
			m := copy(tmp[:], to)
			m += copy(tmp[m:], rest)
			n.pathLen = copy(n.path[:], tmp[:m])
		}
	}
	return 0
}
