package fs

import (
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Writing a backed instance (docs/ARCHITECTURE.md, "Storage"). Every
// change is made in the store first and in the tree only once the store
// took it, so the tree never shows what the store does not hold: a
// create, remove, rename or link the store refuses leaves the tree as it
// was, with the store's answer (EACCES, ENOSPC, ENOTEMPTY...). Data is
// written through: write(2) puts the bytes in the page cache and sends
// them to the store in the same call, so the cache stays clean (its
// pages can be given back whenever memory runs short) and what a call
// returned for is in the store; fsync asks the store to make it durable.
// A type whose Store takes writes registers a Writer too (Writers).

// A Writer is what a backed type that takes changes does for the tree.
// Its methods run under the kernel lock and may wait for the store.
type Writer interface {
	// Create makes entry nm of directory dir in the store: a regular
	// file, a directory, a FIFO, a socket or a device node of mode (type
	// and permission bits; rdev a device's number), or a symlink to
	// target. st gets what the store says of the new inode.
	Create(dir int32, nm []byte, mode, rdev uint32, target []byte, st *Stored) unix.Errno
	// Remove takes name nm out of directory dir: a directory (rmdir,
	// which must be empty in the store) or anything else.
	Remove(dir int32, nm []byte, rmdir bool) unix.Errno
	// Rename moves fromDir's name fromName to toDir's toName, replacing
	// what is there (rename(2)'s rules were checked on the tree).
	Rename(fromDir int32, fromName []byte, toDir int32, toName []byte) unix.Errno
	// Link makes nm in dir another name of file i.
	Link(i, dir int32, nm []byte) unix.Errno
	// Setattr changes what a.Valid names of inode i.
	Setattr(i int32, a *Attr) unix.Errno
	// Write puts n bytes at offset off of file i: they start at byte in
	// of page pas[0] and run on through the next pages (a write(2)'s
	// run, at most StoreRun pages).
	Write(i int32, off int64, pas *[StoreRun]uintptr, in, n uint32) unix.Errno
	// Sync makes file i durable in the store: its data and, unless
	// dataOnly (fdatasync), its attributes.
	Sync(i int32, dataOnly bool) unix.Errno
	// Forget says the tree is done with inode i, which has no name in
	// the tree and no user left: a store that keeps a file with no
	// name while it is open (ext4's orphans) frees it now.
	Forget(i int32)
}

// Attr is a change of a stored inode's attributes (Linux's struct
// iattr): the fields Valid names.
type Attr struct {
	Valid        uint32
	Mode         uint32 // permission bits
	Size         int64
	Atime, Mtime int64 // ns
}

// Attr.Valid's bits.
const (
	AttrMode = 1 << iota
	AttrSize
	AttrAtime
	AttrMtime
)

// Writers are the backed types' Writers, by type (nil: changes to the
// type are EROFS, its instances mount read-only only).
var Writers [typeCount]Writer

// What the tree hands a Writer lives here, not on the caller's stack: a
// slice or pointer passed through an interface method escapes, and the
// kernel has no heap (ARCHITECTURE.md, "Kernel-side rules"). Under the
// kernel lock, one change at a time.
var (
	storeName, storeName2 [NameMax]byte
	storeTarget           [PathMax]byte
	storeStored           Stored
	storeAttr             Attr
)

// WriterOf is the Writer of the instance inode i is in, nil for a
// memory type or one whose store takes no changes. (A read-only mount
// or instance refused the change before it got here: ReadOnlyAt.)
func WriterOf(i int32) Writer {
	if Inodes[i].Store == 0 {
		return nil
	}
	return Writers[Supers[Inodes[i].Super].Type]
}

// createStored is Create (or Symlink's, with target) in a backed
// directory: the store makes the inode, then the tree its entry.
func createStored(wr Writer, w *Walk, mode uint32, target []byte) (int32, unix.Errno) {
	st := &storeStored
	*st = Stored{}
	if e := wr.Create(w.Dir, nameArg(&storeName, w.Name()), mode, 0, storeTarget[:copy(storeTarget[:], target)], st); e != 0 {
		return -1, e
	}
	i, e := MakeStored(w.Dir, w.Name(), st)
	if e != 0 {
		// In the store but not in the tree (no inode or name left):
		// the directory is read again at its next lookup.
		Inodes[w.Dir].Filled = false
		removeTree(w.Dir)
		return -1, e
	}
	touch(w.Dir)
	return i, 0
}

// storeUnlinked counts a name of stored inode n gone from its store
// (st_nlink is the store's count: the file's other names may be in
// directories not read yet).
func storeUnlinked(n *Inode) {
	if n.storeLinks > 0 {
		n.storeLinks--
	}
}

// rehomeStored points stored file i's storeDir (the directory its path
// to the store goes through: StoredPath) at a directory that still names
// it, once its name in gone went and another name remains (a hard link
// elsewhere). A file with no name left keeps it: nothing walks to it.
func rehomeStored(i, gone int32) {
	n := &Inodes[i]
	if n.Store == 0 || n.IsDir() || n.storeDir != gone || n.Nlink == 0 {
		return
	}
	for k := range dentries {
		if dentries[k].inode == i {
			n.storeDir = dentries[k].dir
			return
		}
	}
}

// storeWrote keeps st_blocks of a file written through at least what its
// bytes take, when its store did not say (StoreBlocks): a share's count
// is the host's, read again with the directory.
func storeWrote(n *Inode) {
	if !n.blocksKept {
		n.storeBlocks = max(n.storeBlocks, (n.Size+511)/512)
	}
}

// StoreBlocks is a Writer's word on stored inode i's st_blocks (512-byte
// units) after a change: what the disk maps, holes not counted.
func StoreBlocks(i int32, blocks int64) {
	Inodes[i].storeBlocks, Inodes[i].blocksKept = blocks, true
}

// writePage is writeData's page at pos for a chunk of n bytes from byte
// in of it: a backed file's page is read from its store first when it
// must be (writeReads), so the bytes around the chunk are the store's.
func writePage(n *Inode, pos int64, in, chunk uint64) (uintptr, unix.Errno) {
	if !writeReads(n, pos, in, chunk) {
		if p := page(n, pos, true); p != 0 {
			return p, 0
		}
		return 0, unix.ENOSPC
	}
	return storedPage(n, pos-int64(in))
}

// writeReads says whether a chunk of a write must read its page from the
// store first: a backed file's page not in memory, which the file has
// bytes of that the chunk does not cover (it starts inside the page, or
// ends before both the page's and the file's end).
func writeReads(n *Inode, pos int64, in, chunk uint64) bool {
	start := pos - int64(in)
	if n.Store == 0 || start >= n.Size || in == 0 && (chunk == mm.PageSize || pos+int64(chunk) >= n.Size) {
		return false
	}
	return page(n, pos, false) == 0
}

// The run a write through sends (writeData): pages whose bytes are in
// the cache but not yet in the store, from byte writeRunIn of the first,
// file offset writeRunOff. While it is pending, reclaim keeps its pages
// (filling, runFirst: the cache takes them for clean copies of the
// store's). Under the kernel lock; in package memory, since the Writer
// gets them through an interface.
var (
	writeRun    [StoreRun]uintptr
	writeRunN   int
	writeRunOff int64
	writeRunIn  uint32
)

// addToRun puts page p, written from byte in at file offset pos, at the
// end of the pending run.
func addToRun(n *Inode, p uintptr, pos int64, in uint64) {
	if writeRunN == 0 {
		writeRunOff, writeRunIn = pos, uint32(in)
		filling, runFirst = n, pos/mm.PageSize
	}
	writeRun[writeRunN] = p
	writeRunN++
}

// sendRun hands the pending run's bytes bytes to the store. A run the
// store refused leaves the cache (its pages hold bytes the store does
// not), so the next read asks the store again.
func sendRun(wr Writer, n *Inode, bytes uint64) unix.Errno {
	e := wr.Write(n.Index(), writeRunOff, &writeRun, writeRunIn, uint32(bytes))
	if e != 0 {
		for k := 0; k < writeRunN; k++ {
			dropPage(n, writeRunOff-int64(writeRunIn)+int64(k)*mm.PageSize)
		}
	}
	writeRunN = 0
	filling = nil
	return e
}

// MappedForWrite marks backed file i as mapped shared and writable (a
// store stores, through write(2), only what it was handed): from now on
// its cache pages are written back whole by WriteBackMapped and kept
// from reclaim.
func MappedForWrite(i int32) { Inodes[i].mappedWrite = true }

// WriteBackMapped hands the store every cached page of file i within its
// size, a run of present pages at a time (Linux's writeback of a shared
// mapping's dirty pages, done for all pages: the cache keeps no dirty
// bits): at msync, fsync, and when a mapping of it goes. Nothing for a
// file never mapped so.
func WriteBackMapped(i int32) unix.Errno {
	n := &Inodes[i]
	wr := WriterOf(i)
	if !n.mappedWrite || wr == nil || n.Size == 0 || ReadOnlyInstance(i) {
		return 0
	}
	var first unix.Errno
	// The stores are the file's change (Linux stamps it at the write
	// fault; here at the write-back): the tree's time, which the store
	// takes.
	n.Mtime = clock.Realtime()
	n.Ctime = n.Mtime
	pages := (n.Size + mm.PageSize - 1) / mm.PageSize
	for pg := int64(0); pg <= pages; pg++ {
		p := uintptr(0)
		if pg < pages {
			p = page(n, pg*mm.PageSize, false)
		}
		if writeRunN > 0 && (p == 0 || writeRunN == StoreRun) {
			bytes := min(int64(writeRunN)*mm.PageSize, n.Size-writeRunOff)
			if e := sendRun(wr, n, uint64(bytes)); e != 0 && first == 0 {
				first = e
			}
		}
		if p != 0 {
			addToRun(n, p, pg*mm.PageSize, 0)
		}
	}
	return first
}

// ReadOnlyInstance says whether inode i's instance takes no changes.
func ReadOnlyInstance(i int32) bool { return Supers[Inodes[i].Super].ReadOnly }

// SyncStored is fsync(2) of inode i: the store's Sync for an inode of a
// writable backed instance, a directory's too (its names: a rename or
// unlink made durable); nothing for the others (memory, or a store
// nothing was written to).
func SyncStored(i int32, dataOnly bool) unix.Errno {
	if wr := WriterOf(i); wr != nil {
		if e := WriteBackMapped(i); e != 0 {
			return e
		}
		return wr.Sync(i, dataOnly)
	}
	return 0
}

// SetattrStored sends a change of attributes of inode i to its store
// first, when it has a writable one (chmod, utimensat).
func SetattrStored(i int32, a *Attr) unix.Errno {
	if wr := WriterOf(i); wr != nil {
		storeAttr = *a
		return wr.Setattr(i, &storeAttr)
	}
	return 0
}

// nameArg copies nm into buf, for a Writer.
func nameArg(buf *[NameMax]byte, nm []byte) []byte { return buf[:copy(buf[:], nm)] }
