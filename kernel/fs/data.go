package fs

import (
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// File data. A file the app writes keeps its bytes in pages reached
// through a two-level index (a root page of 512 leaf-index pages, each of
// 512 data pages: 1 GiB at most per file). A file that came in the
// initramfs is read straight out of the archive until it is first
// changed; then its bytes are copied into pages (copy on write), so the
// root file system is writable, as Linux's initramfs (a tmpfs) is.

// A file's pages are found through an index of pages of indexN slots,
// as tall as the file's last page needs (Linux's xarray grows the same
// way): height 1 is one page of slots pointing at data pages (2 MiB of
// file), each level more multiplies by indexN (1 GiB, 512 GiB, 256 TiB).
// A small file pays one index page; growing past what the height holds
// puts a new root over the old one, which becomes its slot 0.
const (
	indexN     = mm.PageSize / 8 // slots per index page
	indexShift = 9               // log2(indexN)
	maxHeight  = 4
	MaxSize    = 1 << (indexShift*maxHeight + mm.PageShift) // 256 TiB
)

// The shift must be indexN's.
const _ = uint(indexN-1<<indexShift) + uint(1<<indexShift-indexN)

// The size limit, as Linux's tmpfs has one: past it a write fails with
// ENOSPC instead of taking the memory the app's own page faults need.
// dataPages counts data and index pages alike (the archive's bytes are
// not counted: they were in memory before the kernel started).
var (
	dataPages    uintptr
	maxDataPages uintptr
)

// page returns the data page for byte offset off, allocating it (and
// index pages) if alloc is set; 0 means a hole (or no memory).
func page(n *Inode, off int64, alloc bool) uintptr { return pageOf(n, off, alloc, false) }

// pageOf is page; with raw, the data page it allocates (never an index
// page) is a backed file's cache page left unzeroed, for a store's read
// that writes every byte of it (storedPage).
func pageOf(n *Inode, off int64, alloc, raw bool) uintptr {
	pg := uint64(off) / mm.PageSize
	if pg >= MaxSize/mm.PageSize {
		return 0
	}
	slot := leafSlot(n, pg, alloc)
	if slot == nil {
		return 0
	}
	if *slot == 0 && alloc && raw {
		*slot = uint64(getCachePageAs(n.Super, true))
	}
	return indexSlot(slot, alloc, n.Super)
}

// heightFor is the index height that reaches page pg.
func heightFor(pg uint64) uint8 {
	h := uint8(1)
	for pg>>(indexShift*uint64(h)) != 0 {
		h++
	}
	return h
}

// growIndex makes n's index reach page pg when alloc is set: a first
// root as tall as pg needs, or new roots over the old one. It reports
// whether the index reaches pg (false: no memory, or a hole past it).
func growIndex(n *Inode, pg uint64, alloc bool) bool {
	want := heightFor(pg)
	if n.root == 0 {
		if !alloc {
			return false
		}
		if n.root = getPage(n.Super); n.root == 0 {
			return false
		}
		n.height = want
		return true
	}
	for n.height < want {
		if !alloc {
			return false
		}
		top := getPage(n.Super)
		if top == 0 {
			return false
		}
		indexWords(top)[0] = uint64(n.root)
		n.root, n.height = top, n.height+1
	}
	return true
}

// leafSlot is the slot of n's index that holds page pg's address,
// making the index pages on the way when alloc is set; nil when none
// reaches it (or no memory).
func leafSlot(n *Inode, pg uint64, alloc bool) *uint64 {
	if !growIndex(n, pg, alloc) {
		return nil
	}
	node := n.root
	for h := n.height; h > 1; h-- {
		if node = indexSlot(&indexWords(node)[pg>>(indexShift*(h-1))%indexN], alloc, n.Super); node == 0 {
			return nil
		}
	}
	return &indexWords(node)[pg%indexN]
}

// slotPages is how many pages one slot of an index page at level h
// covers (1 at the level of data pages).
func slotPages(h uint8) uint64 { return 1 << (indexShift * uint64(h-1)) }

// indexSlot returns the page a slot points to, filling an empty slot with
// a new zeroed page when alloc is set.
func indexSlot[T uintptr | uint64](slot *T, alloc bool, s uint8) uintptr {
	if *slot == 0 && alloc {
		*slot = T(getPage(s))
	}
	return uintptr(*slot)
}

// getPage takes a page for a file of instance s: 0 past the
// machine-wide bound or the instance's size=. A backed instance's pages
// are a cache of its store (store.go): they count apart, and when none
// is to be had, clean ones no mapping uses are given back first.
func getPage(s uint8) uintptr {
	if Stores[Supers[s].Type] != nil {
		return getCachePage(s)
	}
	if dataPages >= maxDataPages || !chargePage(s) {
		return 0
	}
	p := mm.Pages.Get()
	if p == 0 {
		Supers[s].Pages--
		return 0
	}
	dataPages++
	return p
}

// putPage gives back the file's use of page p: the frame itself goes
// once no mapping counts it either (mm.Alloc.Unref; truncation has
// unmapped the pages past the end first: UnmapFile).
func putPage(s uint8, p uintptr) {
	mm.Pages.Unref(p)
	if Stores[Supers[s].Type] != nil {
		cachePages--
	} else {
		dataPages--
	}
	Supers[s].Pages--
}

func indexWords(pa uintptr) *[indexN]uint64 {
	return (*[indexN]uint64)(usermem.PtrOf(mm.PageBytes(pa)))
}

// dropFrom frees the data pages from page keep on under index page node
// of height h, whose first page is base, and the index pages below it
// that are left empty; it reports whether node is empty now.
func dropFrom(s uint8, node uintptr, h uint8, base, keep uint64) (empty bool) {
	w := indexWords(node)
	span := slotPages(h)
	empty = true
	for k := range w {
		if w[k] == 0 {
			continue
		}
		first := base + uint64(k)*span
		switch {
		case first+span <= keep:
			empty = false // wholly kept
		case h == 1 || dropFrom(s, uintptr(w[k]), h-1, first, keep):
			putPage(s, uintptr(w[k]))
			w[k] = 0
		default:
			empty = false
		}
	}
	return empty
}

// unshare copies a file's archive bytes into pages of its own, before
// its first change: ENOSPC (and nothing changed) if they do not fit.
func unshare(n *Inode) unix.Errno {
	if n.archive == nil || n.IsSymlink() {
		return 0
	}
	src := n.archive
	for off := 0; off < len(src); off += mm.PageSize {
		p := page(n, int64(off), true)
		if p == 0 {
			// The pages so far go (dropPast, not Truncate: no
			// mapping has them yet, and a fault that got here holds
			// its space's lock, which Truncate's unmapping takes).
			dropPast(n, 0)
			n.archive, n.Size = src, int64(len(src))
			return unix.ENOSPC
		}
		copy(mm.PageBytes(p)[:], src[off:])
	}
	n.archive = nil
	return 0
}

// Truncate sets the size, freeing whole pages past it and zeroing the
// tail of the last one (ftruncate(2)).
func Truncate(n *Inode, size int64) unix.Errno {
	if n.Running > 0 {
		return unix.ETXTBSY
	}
	if size == 0 {
		n.archive = nil // nothing left to copy
	}
	if e := unshare(n); e != 0 {
		return e
	}
	now := clock.Realtime()
	if wr := WriterOf(n.Index()); wr != nil && size != n.Size {
		storeAttr = Attr{Valid: AttrSize | AttrMtime, Size: size, Mtime: now}
		if e := wr.Setattr(n.Index(), &storeAttr); e != 0 {
			return e
		}
	}
	if size < n.Size && n.Opens > 0 {
		// Mappings first (a mapping holds the inode: Opens), so a
		// touch past the new end is SIGBUS and no mapping keeps the
		// freed pages' contents (Linux's truncate_pagecache).
		mm.UnmapFile(n.Index(), uintptr(size+mm.PageSize-1)&^(mm.PageSize-1))
	}
	if size <= n.Size {
		// At the size too: a write that failed may have left pages
		// past it (writeData trims them, and release relies on this
		// to free every page of a file of size 0).
		dropPast(n, size)
	}
	n.Size = size
	n.Mtime = now
	return 0
}

// dropPast frees n's pages wholly past byte size and zeroes the rest of
// the page size ends in, so that nothing past the end is kept or
// becomes visible when the file grows (holes read as zeros).
func dropPast(n *Inode, size int64) {
	endInflight(n) // what is in flight comes in, to be dropped with the rest
	if n.root == 0 {
		return
	}
	keep := (uint64(size) + mm.PageSize - 1) / mm.PageSize
	dropFrom(n.Super, n.root, n.height, 0, keep)
	if keep == 0 {
		putPage(n.Super, n.root)
		n.root, n.height = 0, 0
	} else if rem := size % mm.PageSize; rem != 0 {
		if p := page(n, size, false); p != 0 {
			clear(mm.PageBytes(p)[rem:])
		}
	}
}

// readPage is n's page at off for a read: a backed file's read from its
// store if it is not in memory (storedPage), else the page or 0 for a
// hole.
func readPage(n *Inode, off int64) (uintptr, unix.Errno) {
	if n.Store != 0 {
		return storedPage(n, off)
	}
	return page(n, off, false), 0
}

// readData copies file bytes at off to the app. A sleepy caller
// (read(2) through vfs.Read) may get vfs.DiskWaitErr: a backed file's
// page is being read in flight, and it sleeps until that completes
// (inflight.go).
func readData(n *Inode, buf uintptr, count uint64, off int64) uint64 {
	return readDataAs(n, buf, count, off, false)
}

func readDataAs(n *Inode, buf uintptr, count uint64, off int64, sleepy bool) uint64 {
	if sleepy && n.Store != 0 {
		sweepInflight()
	}
	if off >= n.Size {
		return 0
	}
	if rest := uint64(n.Size - off); count > rest {
		count = rest
	}
	if n.archive != nil {
		if !usermem.CopyOut(buf, n.archive[off:off+int64(count)]) {
			return vfs.Err(unix.EFAULT)
		}
		return count
	}
	var zero [256]byte
	done := uint64(0)
	for done < count {
		pos := off + int64(done)
		in := uint64(pos % mm.PageSize)
		chunk := min(mm.PageSize-in, count-done)
		var ok bool
		var p uintptr
		var e unix.Errno
		if sleepy && n.Store != 0 {
			var q *sched.Queue
			if p, e, q = pageOrSleep(n, pos); q != nil {
				// Start the rest of this read's runs too, so that they
				// are in flight together, then sleep on the first
				// unless the polling that started them answered it.
				readAhead(n, pos+mm.PageSize, off+int64(count), aheadRuns)
				if k := findInflight(n.Index(), pos/mm.PageSize); k >= 0 && !block.Requests[inflight[k].req].Done {
					return sleepFor(q, done)
				}
				continue
			}
		} else {
			p, e = readPage(n, pos)
		}
		if e != 0 {
			if done > 0 {
				return done
			}
			return vfs.Err(e)
		}
		if p != 0 {
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
	if sleepy && n.Store != 0 {
		// The next run, before the reader asks for it.
		readAhead(n, off+int64(count), off+int64(count)+StoreRun*mm.PageSize, 1)
	}
	return done
}

// writeData copies app bytes into the file at off.
func writeData(n *Inode, buf uintptr, count uint64, off int64) uint64 {
	// Past the largest file the instance holds: EFBIG, and a write that
	// reaches over it stops there (generic_write_check_limits).
	max := FileMax(n.Super)
	if off < 0 || off >= max {
		return vfs.Err(unix.EFBIG)
	}
	count = min(count, uint64(max-off))
	if e := unshare(n); e != 0 {
		return vfs.Err(e)
	}
	done := uint64(0)
	var e unix.Errno
	// A backed file's bytes are written through, a run of pages at a
	// time (storewrite.go): pend bytes are in the cache, not yet in the
	// store, and count once it took them.
	wr := WriterOf(n.Index())
	// The write's time, the tree's and the store's alike (a store's
	// Write takes the file's times from the tree: the tree and a disk
	// read after a reboot must agree to the nanosecond).
	mt := clock.Realtime()
	if wr != nil {
		n.Mtime, n.Ctime = mt, mt
	}
	pend := uint64(0)
	for done+pend < count {
		pos := off + int64(done+pend)
		in := uint64(pos % mm.PageSize)
		chunk := min(mm.PageSize-in, count-done-pend)
		if pend > 0 && writeReads(n, pos, in, chunk) {
			// The store's read must not run with a run pending.
			if e = sendRun(wr, n, pend); e != 0 {
				pend = 0
				break
			}
			done, pend = done+pend, 0
		}
		var p uintptr
		if p, e = writePage(n, pos, in, chunk); e != 0 {
			break
		}
		if !usermem.CopyIn(mm.PageBytes(p)[in:in+chunk], buf+uintptr(done+pend)) {
			e = unix.EFAULT
			break
		}
		if wr == nil {
			done += chunk
			continue
		}
		addToRun(n, p, pos, in)
		pend += chunk
		if writeRunN == StoreRun {
			if e = sendRun(wr, n, pend); e != 0 {
				pend = 0
				break
			}
			done, pend = done+pend, 0
		}
	}
	if pend > 0 {
		// What was copied before the loop ended goes too.
		if e2 := sendRun(wr, n, pend); e2 == 0 {
			done += pend
		} else if e == 0 {
			e = e2
		}
	}
	if end := off + int64(done); done > 0 && end > n.Size {
		n.Size = end // (a write of nothing past the end grows nothing)
	}
	if wr != nil {
		storeWrote(n)
	}
	if e != 0 {
		// The chunk that failed had its page (and index pages)
		// allocated first, and a copy that faulted may have put bytes
		// in it past the end: neither may stay. Kept, a file whose
		// every write failed held its pages after its last name and
		// user were gone (release frees pages only below the size),
		// as the fuzzer's children showed: three pages of a file
		// nobody had left.
		dropPast(n, n.Size)
		if done == 0 {
			return vfs.Err(e)
		}
	}
	n.Mtime = mt
	return done
}

// Chunk returns n's bytes at off, up to the end of off's page (or the
// file): a slice of the archive or of a data page, or of zero for a
// hole. The file's end gives an empty slice; a backed file's page is
// read from its store first (EIO, and no bytes, when it cannot be).
func Chunk(n *Inode, off int64, zero *[mm.PageSize]byte) ([]byte, unix.Errno) {
	if off >= n.Size {
		return nil, 0
	}
	if n.archive != nil {
		return n.archive[off:], 0
	}
	in := off % mm.PageSize
	end := min(int64(mm.PageSize), in+n.Size-off)
	p, e := readPage(n, off)
	if e != 0 {
		return nil, e
	}
	if p != 0 {
		return mm.PageBytes(p)[in:end], 0
	}
	return zero[in:end], 0
}

// Fallocate is fallocate(2) with mode 0 or FALLOC_FL_KEEP_SIZE (keep)
// on a file with pages (Linux's shmem_fallocate): the pages of [off,
// off+length) are taken now, so that a later write, or a mapping's
// fault, finds them (ENOSPC now rather than SIGBUS then: the Go linker
// calls it before it maps its output), and the size grows to off+length
// unless keep. With keep no page past the size is taken (dropPast would
// free it at the next failed write): the call only checks those fit.
func Fallocate(n *Inode, off, length int64, keep bool) unix.Errno {
	end := off + length
	if end > FileMax(n.Super) || end < off {
		return unix.EFBIG
	}
	if e := unshare(n); e != 0 {
		return e
	}
	last := end
	if keep {
		last = min(end, (n.Size+mm.PageSize-1)&^(mm.PageSize-1))
	}
	for pos := off &^ (mm.PageSize - 1); pos < last; pos += mm.PageSize {
		if page(n, pos, true) == 0 {
			dropPast(n, n.Size)
			return unix.ENOSPC
		}
	}
	if !keep && end > n.Size {
		n.Size = end
		n.Mtime = clock.Realtime()
	}
	return 0
}

// MapPage is mm.FilePage: the page cache's frame for inode i's page at
// off, a hole filled with a zeroed page. A file still in the archive is
// copied into pages first (unshare): the archive's bytes are not page
// aligned in the cpio image (its entries are 4-byte aligned), so they
// cannot be mapped in place, and one kind of page keeps truncation,
// write(2) and every mapping seeing the same bytes. A page at or past the
// end, or none to be had within the file system's size, is SIGBUS, as
// shmem_fault answers.
func MapPage(i int32, off uintptr) (uintptr, mm.FaultResult) {
	n := &Inodes[i]
	if off >= uintptr(n.Size) || unshare(n) != 0 { // unsigned: an offset past 1<<63 too
		return 0, mm.FaultBus
	}
	if n.Store != 0 {
		// A page the store cannot give is SIGBUS, as filemap_fault's
		// failed read answers VM_FAULT_SIGBUS.
		if p, e := storedPage(n, int64(off)); e == 0 {
			return p, mm.FaultOK
		}
		return 0, mm.FaultBus
	}
	if p := page(n, int64(off), true); p != 0 {
		return p, mm.FaultOK
	}
	return 0, mm.FaultBus
}

// NewAnonFile makes the file behind anonymous shared memory
// (MAP_SHARED|MAP_ANONYMOUS, MAP_SHARED of /dev/zero): an unnamed
// regular file of size bytes in the root instance, as Linux's
// shmem_zero_setup makes one in its internal tmpfs, so that a fork's
// copies of the mapping share its pages. It has no name and no user
// yet: the mapping's VMA takes its one use, and DropUnused frees it if
// the mapping failed.
func NewAnonFile(size int64) (int32, unix.Errno) {
	if size > MaxSize {
		return -1, unix.ENOMEM
	}
	i, e := newInode(Inodes[RootIno].Super, unix.S_IFREG|0o777)
	if e != 0 {
		return -1, e
	}
	Inodes[i].Size = size
	return i, 0
}

// DropUnused frees inode i if nothing names or uses it (NewAnonFile's
// file when its mapping failed).
func DropUnused(i int32) { release(i) }

// CachedPage is mm.FileCached: inode i's page at off if it has one
// within its size (a file still in the archive has none), else 0.
func CachedPage(i int32, off uintptr) uintptr {
	n := &Inodes[i]
	if off >= uintptr(n.Size) || n.archive != nil {
		return 0
	}
	return page(n, int64(off), false)
}

// MappedPages counts the file pages some address space maps
// (/proc/meminfo's Mapped): those the allocator counts more than once,
// the file's use being one. A walk of every file's index, for a rare
// reader; a fork's share of a page of a private mapping is the space's,
// not the file's, and is not among them.
func MappedPages() uintptr {
	n := uintptr(0)
	for i := range Inodes {
		in := &Inodes[i]
		if !in.Used || in.root == 0 {
			continue
		}
		n += mappedUnder(in.root, in.height)
	}
	return n
}

// mappedUnder counts the data pages under index page node of height h
// that an address space maps too.
func mappedUnder(node uintptr, h uint8) uintptr {
	n := uintptr(0)
	for _, p := range indexWords(node) {
		switch {
		case p == 0:
		case h > 1:
			n += mappedUnder(uintptr(p), h-1)
		case mm.Pages.Refs(uintptr(p)) > 1:
			n++
		}
	}
	return n
}

// DataPages counts the pages file data holds (/proc/meminfo's Shmem:
// the root is a tmpfs).
func DataPages() uintptr { return dataPages }

// CachePages counts the pages the backed file systems' files hold
// (/proc/meminfo's Cached beside Shmem: they can be dropped).
func CachePages() uintptr { return cachePages }

// MaxDataPages is the machine-wide bound on file pages (the root's
// size, as /proc/mounts shows it).
func MaxDataPages() uintptr { return maxDataPages }
