package fs

import (
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Backed file systems: instances whose files live in a store (an ext4
// volume on a disk, kernel/ext4fs) rather than in memory only. The tree
// is a cache of the store, as Linux's dcache and page cache are
// (docs/ARCHITECTURE.md, "Storage"): an inode made from the store knows
// its number there (Inode.Store); a directory's entries are made from
// the store on its first lookup or listing (Fill), and a regular file's
// pages are read on their first use (ReadPages) into the same page index
// a tmpfs file has, so read(2), mmap and the page cache's accounting are
// one code for both. The store's type does the reading through the Store
// its package registers for the type (Stores), as Linux's
// inode_operations and address_space_operations are per type.

// A Store is what a backed type does for the tree. Its methods run under
// the kernel lock and may wait for the disk.
type Store interface {
	// Fill makes the entries of directory dir (an inode of the type
	// whose Filled is false) from the store: an inode and a name each,
	// through MakeStored.
	Fill(dir int32) unix.Errno
	// ReadPages fills pages pas[:n] with inode i's bytes from off (a
	// multiple of the page size, below the size) on. The pages are not
	// zeroed: every byte of each page it says it filled must be written,
	// holes and what lies past the file's end as zeros. It answers how
	// many it filled, at least the first unless it fails (the rest may
	// be read later): readahead, one request for a run the store keeps
	// together.
	ReadPages(i int32, off int64, pas *[StoreRun]uintptr, n int) (int, unix.Errno)
	// StartPages is ReadPages without waiting: it submits one request
	// that reads the first k of the pages (a run the store keeps
	// together on a disk that completes by interrupt) and returns it
	// (a kernel/block request), leaving the bytes of the last page
	// past the file's end for the caller to zero. req -1 with no error
	// says the store cannot (a hole, a block smaller than the run, a
	// share, a disk read by PIO, every slot busy): ReadPages then.
	StartPages(i int32, off int64, pas *[StoreRun]uintptr, n int) (req int32, k int, e unix.Errno)
	// Statfs fills statfs(2)'s answer for instance s.
	Statfs(s uint8, st *unix.Statfs_t)
	// Release ends instance s: its last mount went and nothing of it
	// is in use; the tree has dropped its inodes.
	Release(s uint8)
}

// Stores are the backed types' Stores, by type (nil: a memory type).
var Stores [typeCount]Store

// StoreOf is the Store of the instance inode i is in, nil if it has none.
func StoreOf(i int32) Store { return Stores[Supers[Inodes[i].Super].Type] }

// Stored is what a store says of one of its inodes, for MakeStored.
type Stored struct {
	Num        uint32 // its number in the store (st_ino), not 0
	Ino        uint64 // st_ino when wider than Num (a 9p qid's path); 0: Num
	Mode       uint32
	Links      uint32 // the store's link count (st_nlink)
	UID, GID   uint32
	Size       int64
	Rdev       uint32 // device nodes: major<<8 | minor
	Mtime      int64  // ns
	Atime      int64
	Ctime      int64
	Link       []byte // a symlink's target
	BlocksUsed int64  // 512-byte units (st_blocks)
}

// NewStoredSuper takes a slot for an instance of backed type t on block
// device dev (st_dev), its root made from what the store says of it.
func NewStoredSuper(t Type, dev uint64, root *Stored) (uint8, unix.Errno) {
	s, e := NewSuper(t, root.Mode&0o7777)
	if e != 0 {
		return 0, e
	}
	Supers[s].Dev = dev
	setStored(Supers[s].Root, root)
	return s, 0
}

// MakeStored makes entry nm of directory dir (being filled) from what the
// store says of it: ENOSPC when the tables are full. A file with more
// than one link that the tree has already, through a name elsewhere,
// gets nm as one more name (storedhash.go): its inode, with its pages and
// what was written through it, is the tree's, not the store's answer.
func MakeStored(dir int32, nm []byte, st *Stored) (int32, unix.Errno) {
	if dir == refilling {
		if i := mergeStored(dir, nm, st); i >= 0 {
			return i, 0
		}
	}
	dirMode := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if !dirMode && st.Links > 1 {
		if i := findStored(Inodes[dir].Super, storedIno(st)); i >= 0 {
			if _, e := addName(dir, nm, i); e != 0 {
				return -1, e
			}
			return i, 0
		}
	}
	i, e := makeNode(dir, nm, st.Mode)
	if e != 0 {
		return -1, e
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		if e := Inodes[i].SetLink(st.Link); e != 0 {
			dropName(Inodes[i].dentry)
			return -1, e
		}
	}
	setStored(i, st)
	Inodes[i].storeDir = dir
	if !dirMode {
		hashStored(i)
	}
	return i, 0
}

// StoredPath writes into buf the path of stored inode i from its
// instance's root ("" for the root, "a/b" below it) and returns its
// length: a directory's through its one name, a file's through the
// directory it was filled from and its name there (a read-only tree
// does not move). 0 and false when it does not fit.
func StoredPath(i int32, buf []byte) (int, bool) {
	n := &Inodes[i]
	if n.IsDir() || n.storeDir == 0 {
		k := PathInSuper(i, buf)
		if k == 0 {
			return 0, false
		}
		return trimSlash(buf, k), true
	}
	k, ok := StoredPath(n.storeDir, buf)
	if !ok {
		return 0, false
	}
	for e := Inodes[n.storeDir].first; e >= 0; e = dentries[e].next {
		if dentries[e].inode != i {
			continue
		}
		nm := dentries[e].nameIn(e)
		if k > 0 {
			if k == len(buf) {
				return 0, false
			}
			buf[k] = '/'
			k++
		}
		if k+len(nm) > len(buf) {
			return 0, false
		}
		return k + copy(buf[k:], nm), true
	}
	return 0, false
}

// trimSlash drops PathInSuper's leading slash: "/" becomes "", "/a/b" "a/b".
func trimSlash(buf []byte, k int) int {
	if k > 0 && buf[0] == '/' {
		copy(buf, buf[1:k])
		k--
	}
	return k
}

func setStored(i int32, st *Stored) {
	n := &Inodes[i]
	n.Store, n.Ino, n.Mode = st.Num, storedIno(st), st.Mode
	n.storeLinks, n.UID, n.GID = st.Links, st.UID, st.GID
	n.Size, n.Rdev, n.storeBlocks, n.blocksKept = st.Size, st.Rdev, st.BlocksUsed, false
	n.Mtime, n.Atime, n.Ctime = st.Mtime, st.Atime, st.Ctime
}

// Fill makes directory dir's entries from its store before a lookup in
// it or a listing of it, once: EIO or EUCLEAN when the store cannot be
// read (the entries made so far stay, and the next call tries again).
func Fill(dir int32) unix.Errno {
	n := &Inodes[dir]
	if n.Store == 0 || !n.IsDir() {
		return 0
	}
	if n.Filled {
		return revalidateDir(dir)
	}
	st := StoreOf(dir)
	if st == nil {
		return 0
	}
	// An unread directory has no entries: a fill that failed dropped
	// what it made, and reclaimTrees drops them before it marks one unread.
	fillingDir = dir
	e := st.Fill(dir)
	fillingDir = 0
	if e != 0 {
		removeTree(dir)
		return e
	}
	n.Filled = true
	filled(dir)
	return 0
}

// The tree of a backed instance is a cache too: when the inode table is
// full, the entries of a directory whose entries no one uses are dropped
// and the directory is marked unread, to be filled again from the store
// at its next lookup or listing (Linux's dcache shrinker, prune_dcache_sb,
// a directory's worth at a time so that a filled directory always holds
// all its entries). An entry is in use when it is open, a working
// directory, mapped or running (Opens, Running), a mountpoint (covered),
// or a directory with entries of its own; an open directory keeps its
// entries, and the directory being filled is never chosen, nor its
// parent (the walk holds it without a count).
var (
	fillingDir int32
	treeHand   int32
)

// reclaimTrees drops unused backed directories' entries until at least
// reclaimBatch inodes are free or the table was gone round once, and
// answers how many inodes it freed.
func reclaimTrees() int {
	freed := 0
	for k := int32(0); k < MaxInodes && freed < reclaimBatch; k++ {
		d := (treeHand + k) % MaxInodes
		n := &Inodes[d]
		// An open directory (being listed, a working directory) keeps
		// its entries: a listing's positions must stay those it began with.
		if !n.Used || n.Store == 0 || !n.IsDir() || !n.Filled || n.Opens > 0 || d == fillingDir || !droppable(d) {
			continue
		}
		before := Supers[n.Super].Inodes
		removeTree(d)
		n.Filled = false
		freed += int(before - Supers[n.Super].Inodes)
		treeHand = d + 1
	}
	return freed
}

// droppable says whether no entry of directory d is in use.
func droppable(d int32) bool {
	for k := Inodes[d].first; k >= 0; k = dentries[k].next {
		if c := dentries[k].inode; inUse(c) || c == fillingDir {
			return false
		}
	}
	return Inodes[d].first >= 0
}

// StoreRun is the most pages one ReadPages fills: 128 KiB, Linux's
// default readahead window (VM_READAHEAD_PAGES). A disk's request costs
// far more than its bytes (under QEMU, hundreds of microseconds), so a
// file is read a run at a time, not a page at a time.
const StoreRun = 32

// runPages are the pages of the run being read (under the kernel lock).
var runPages [StoreRun]uintptr

// storedPage returns n's page at off, reading it from the store when it
// is not in memory yet, with the pages after it that are missing too
// (up to StoreRun, within the size): 0 and the error when it cannot be
// had.
func storedPage(n *Inode, off int64) (uintptr, unix.Errno) {
	if p := page(n, off, false); p != 0 {
		return p, 0
	}
	// A read in flight holding it is polled for and taken (inflight.go).
	if e := finishInflight(n, off/mm.PageSize); e != 0 {
		return 0, e
	}
	if p := page(n, off, false); p != 0 {
		return p, 0
	}
	st := Stores[Supers[n.Super].Type]
	off &^= mm.PageSize - 1
	// page walks n's index while it takes pages, and the run's pages
	// must stay: reclaim leaves both (filling, runFirst).
	filling, runFirst = n, off/mm.PageSize
	k := 0
	for k < StoreRun {
		o := off + int64(k)*mm.PageSize
		if o >= n.Size || k > 0 && (page(n, o, false) != 0 || findInflight(n.Index(), o/mm.PageSize) >= 0) {
			break
		}
		// Unzeroed: ReadPages writes every byte of the pages it fills
		// (zeroing each first was a third pass over the bytes), and
		// those it does not fill are dropped below unseen.
		p := pageOf(n, o, true, true)
		if p == 0 {
			break
		}
		runPages[k] = p
		k++
	}
	filling = nil
	if k == 0 {
		return 0, unix.ENOMEM
	}
	got, e := st.ReadPages(n.Index(), off, &runPages, k)
	if e != 0 {
		got = 0
	}
	for j := got; j < k; j++ {
		dropPage(n, off+int64(j)*mm.PageSize) // not read: absent again
	}
	if got == 0 {
		if e == 0 {
			e = unix.EIO
		}
		return 0, e
	}
	return runPages[0], 0
}

// dropPage gives back n's page at off (one whose read failed: it must
// not be found up to date).
func dropPage(n *Inode, off int64) {
	if slot := leafSlot(n, uint64(off)/mm.PageSize, false); slot != nil && *slot != 0 {
		putPage(n.Super, uintptr(*slot))
		*slot = 0
	}
}

// The page cache of backed files: its pages are copies of the store's
// bytes (clean: nothing writes them yet), so one no address space maps
// can be given back whenever memory is short and read again when next
// used (Linux's shrink_page_list over clean, unmapped file pages). They
// are bounded as tmpfs's pages are (the root's size), apart from them.
var (
	cachePages uintptr
	// filling is the file whose index page() is walking while it
	// takes pages for a run starting at page runFirst: reclaim frees
	// neither its index nor the run's pages.
	filling  *Inode
	runFirst int64
	// reclaimHand is the inode the next reclaim starts at: a clock
	// over the inode table, so each pass takes from other files.
	reclaimHand int32
)

// reclaimBatch is how many pages one reclaim frees at most.
const reclaimBatch = 64

// getCachePage takes a page for a backed file of instance s, first
// giving back cached pages when the bound or the allocator says no.
func getCachePage(s uint8) uintptr { return getCachePageAs(s, false) }

// getCachePageAs is getCachePage; raw leaves the page unzeroed
// (mm.Alloc.GetRaw), for a store's read to fill.
func getCachePageAs(s uint8, raw bool) uintptr {
	if cachePages >= maxDataPages && reclaimCache() == 0 {
		return 0
	}
	p := getPageReclaimingAs(raw)
	if p == 0 {
		return 0
	}
	cachePages++
	Supers[s].Pages++
	return p
}

// getPageReclaiming is mm.Pages.Get that, when memory is out, first
// gives back cached pages of backed files (the tree's own pages: names,
// symlink targets).
func getPageReclaiming() uintptr { return getPageReclaimingAs(false) }

// getPageReclaimingAs is getPageReclaiming, unzeroed with raw.
func getPageReclaimingAs(raw bool) uintptr {
	p := getPageAs(raw)
	if p == 0 && reclaimCache() > 0 {
		p = getPageAs(raw)
	}
	return p
}

// getPageAs is mm.Pages.Get, or GetRaw with raw.
func getPageAs(raw bool) uintptr {
	if raw {
		return mm.Pages.GetRaw()
	}
	return mm.Pages.Get()
}

// reclaimUnder frees, under index page node of height h whose first
// page is base, the data pages no mapping holds (but the run being
// read: filling, runFirst) and the index pages that leaves empty,
// counting them in freed; it reports whether it kept anything. The
// file being read keeps its index pages.
func reclaimUnder(n *Inode, node uintptr, h uint8, base uint64, freed *int) (kept bool) {
	w := indexWords(node)
	span := slotPages(h)
	for k := range w {
		p := uintptr(w[k])
		if p == 0 {
			continue
		}
		first := base + uint64(k)*span
		if h == 1 {
			inRun := n == filling && int64(first) >= runFirst && int64(first) < runFirst+StoreRun
			if mm.Pages.Refs(p) == 1 && !inRun {
				putPage(n.Super, p)
				w[k] = 0
				*freed++
			} else {
				kept = true // mapped, or being read: it stays
			}
			continue
		}
		if reclaimUnder(n, p, h-1, first, freed) || n == filling {
			kept = true
		} else {
			putPage(n.Super, p)
			w[k] = 0
			*freed++
		}
	}
	return kept
}

// reclaimCache frees up to reclaimBatch cached data pages of backed
// regular files that no mapping holds (the allocator counts only the
// file's use), and the index pages left empty, going round the inode
// table a whole file at a time, and answers how many.
func reclaimCache() int {
	freed := 0
	for k := int32(0); k < MaxInodes && freed < reclaimBatch; k++ {
		i := (reclaimHand + k) % MaxInodes
		n := &Inodes[i]
		if !n.Used || n.Store == 0 || n.root == 0 || n.IsDir() || n.mappedWrite {
			continue
		}
		if !reclaimUnder(n, n.root, n.height, 0, &freed) && n != filling {
			putPage(n.Super, n.root)
			n.root, n.height = 0, 0
			freed++
		}
		reclaimHand = i + 1
	}
	return freed
}
