package fs

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Inodes: the files, directories, symlinks, device nodes, FIFOs and
// socket files of the one file system. An inode is what a name leads to
// (dentry.go holds the names); it lives while it has a name or an open
// description (or is the working directory), as on Linux.
//
// Each inode is its own vfs.Impl (file.go), a pointer into the fixed
// table, so a description's interface value never allocates.

const (
	// MaxInodes bounds the file system: the initramfs's entries and
	// everything the app makes. A bigger initramfs is refused at boot
	// with both numbers (unpack.go).
	MaxInodes = 8192
	// RootIno is the root directory's slot and inode number, as on a
	// Linux tmpfs (whose root is inode 1).
	RootIno = 1
)

// Inode is one file of any type.
type Inode struct {
	vfs.Base
	Used  bool
	Nlink int // names (dentries); 0: unlinked, alive while open
	Mode  uint32
	Rdev  uint32 // device nodes: major<<8 | minor, as stat's st_rdev
	Size  int64
	Mtime int64 // ns
	Atime int64 // ns: set at creation and by utimensat (reads do not touch it: noatime)
	Ino   uint64
	Opens int // open descriptions, and the working directory
	// Running counts the processes running this file's program (/init,
	// execve). Opening it for writing or truncating it answers ETXTBSY
	// while any does, as Linux's deny_write_access does for a mapped
	// executable.
	Running int32

	// A regular file's data: pages under an index of height levels
	// (data.go), or, for a file the initramfs brought that nobody has
	// written yet, the archive's own bytes (no copy). A symlink's
	// target is in archive too when it came in the initramfs, else in
	// a page of its own, so that it may be as long as Linux allows
	// (PATH_MAX).
	root     uintptr
	height   uint8
	archive  []byte
	linkPage uintptr
	linkLen  int

	// A directory's one name (its dentry; -1 for the root and for a
	// removed directory) and its entries, in the order they were made
	// (dentry.go); nextSeq is the getdents position the next entry
	// gets; subdirs counts the subdirectories, each of whose ".."
	// links here (st_nlink).
	dentry      int32
	first, last int32
	nextSeq     int64
	entries     int32
	subdirs     int32
	// A FIFO's pipe (1 + index) while it exists, and the tag that
	// tells it apart from a later pipe in the same slot (fifo.go).
	fifoPipe int32
	fifoTag  uint64

	// Synth: what a synthetic inode shows (synth.go); zero for the
	// rest. Super: the instance the inode is in (super.go). covered:
	// how many mounts sit on it (mount.go; Linux's DCACHE_MOUNTED), so
	// a walk looks for a mount only where there is one.
	Synth   Synth
	Super   uint8
	covered int32

	// A backed file system's inode (store.go): its number in the
	// store (0: a memory-only inode), whether a directory's entries
	// were made from it yet, and what the store says of the inode that
	// the tree does not count itself (its link count, its blocks).
	Store    uint32
	Filled   bool
	storeDir int32 // a stored file's directory, where its name is (StoredPath)
	// storeNext links a stored file in its chain of storedHash
	// (storedhash.go): slot+1 of the next, 0 at the end.
	storeNext int32
	// checked is when the store was last asked about this inode
	// (monotonic ns; revalidate.go), for a store others change.
	checked int64
	// mappedWrite: a shared mapping that may write has been made of
	// this backed file: its cache pages may hold bytes the store has
	// not (WriteBackMapped), so reclaim leaves them.
	mappedWrite bool
	storeLinks  uint32
	storeBlocks int64
	// blocksKept: the store set storeBlocks after its last write
	// (StoreBlocks), so the estimate from the size is not wanted.
	blocksKept bool
	// UID and GID own the file (what the store says; 0 for the
	// memory file systems); Ctime is the store's change time (ns; 0:
	// the modification time stands for it).
	UID, GID uint32
	Ctime    int64
}

// Inodes is the inode table; slot 0 is never used, so that 0 can mean
// "none" in a zeroed struct.
var Inodes [MaxInodes]Inode

// inos counts the inodes made, so an inode number is never that of an
// earlier inode in the same slot: a bound AF_UNIX socket is found by its
// file's inode number (kernel/socket), and getcwd's fallback in Go's os
// package matches directories by it.
var inos uint64

// inodeHint is where the search for a free slot starts: after the last
// one taken, so a freed slot is not reused at once.
var inodeHint int32 = RootIno

// newInode takes a free slot for an inode of mode in instance s, or
// answers ENOSPC (none free, or the instance's nr_inodes= reached).
func newInode(s uint8, mode uint32) (int32, unix.Errno) {
	if sb := &Supers[s]; sb.MaxInodes != 0 && sb.Inodes >= sb.MaxInodes {
		return -1, unix.ENOSPC
	}
	i, e := takeInode(s, mode)
	if e != 0 && reclaimTrees() > 0 {
		i, e = takeInode(s, mode) // a backed tree's unused part gave way
	}
	return i, e
}

// takeInode is newInode's search for a free slot.
func takeInode(s uint8, mode uint32) (int32, unix.Errno) {
	for k := int32(0); k < MaxInodes; k++ {
		i := (inodeHint + k) % MaxInodes
		if i == 0 || Inodes[i].Used {
			continue
		}
		inodeHint = i + 1
		now := clock.Realtime()
		inos++
		Inodes[i] = Inode{Used: true, Mode: mode, Ino: inos, Mtime: now, Atime: now,
			dentry: -1, first: -1, last: -1, nextSeq: firstEntryPos, Super: s}
		Supers[s].Inodes++
		return i, 0
	}
	return -1, unix.ENOSPC
}

// Index is n's slot in Inodes.
func (n *Inode) Index() int32 {
	return int32((uintptr(unsafe.Pointer(n)) - uintptr(unsafe.Pointer(&Inodes[0]))) / unsafe.Sizeof(Inodes[0]))
}

func (n *Inode) IsDir() bool     { return n.Mode&unix.S_IFMT == unix.S_IFDIR }
func (n *Inode) IsSymlink() bool { return n.Mode&unix.S_IFMT == unix.S_IFLNK }
func (n *Inode) IsFIFO() bool    { return n.Mode&unix.S_IFMT == unix.S_IFIFO }

// Hold counts one more user of inode i (an open description, the working
// directory); Drop gives it back. The inode goes with its last name and
// last user.
func Hold(i int32) { Inodes[i].Opens++ }

func Drop(i int32) {
	Inodes[i].Opens--
	release(i)
}

// release frees inode i once it has no names and no users.
func release(i int32) {
	n := &Inodes[i]
	if n.Nlink > 0 || n.Opens > 0 || i == RootIno {
		return
	}
	if wr := WriterOf(i); wr != nil {
		dropPast(n, 0) // the store keeps the bytes until it forgets them
		wr.Forget(i)
	} else {
		Truncate(n, 0)
	}
	if n.linkPage != 0 {
		mm.Pages.Put(n.linkPage)
	}
	if n.Store != 0 && !n.IsDir() {
		unhashStored(i)
	}
	Supers[n.Super].Inodes--
	*n = Inode{}
}

// Link is a symlink's target (nil for other inodes).
func (n *Inode) Link() []byte {
	switch {
	case !n.IsSymlink():
		return nil
	case n.Synth.Kind != 0:
		return LinkBuf[:SynthLink(n.Index())]
	case n.linkPage != 0:
		return mm.PageBytes(n.linkPage)[:n.linkLen]
	}
	return n.archive
}

// SetLink stores a symlink's target (symlink(2): at most PATH_MAX-1
// bytes).
func (n *Inode) SetLink(target []byte) unix.Errno {
	if len(target) >= PathMax {
		return unix.ENAMETOOLONG
	}
	if n.linkPage == 0 {
		if n.linkPage = getPageReclaiming(); n.linkPage == 0 {
			return unix.ENOSPC
		}
	}
	n.archive = nil
	n.linkLen = copy(mm.PageBytes(n.linkPage)[:], target)
	return 0
}

// Stat is stat(2) of n.
func (n *Inode) StatTo(st *unix.Stat_t) {
	st.Dev = Dev(n.Super) // os.SameFile and find -xdev tell instances apart by it
	st.Ino = n.Ino
	st.Mode = n.Mode
	st.Rdev = uint64(n.Rdev)
	setNlink(&st.Nlink, uint32(n.Nlink))
	st.Size = n.Size
	if n.IsDir() {
		// "." and the name in the parent, and each subdirectory's "..".
		setNlink(&st.Nlink, uint32(2+n.subdirs))
		st.Size = 0
	}
	if n.IsSymlink() {
		st.Size = int64(len(n.Link()))
	}
	st.Blksize = mm.PageSize
	st.Blocks = (st.Size + 511) / 512
	st.Mtim = unix.NsecToTimespec(n.Mtime)
	st.Atim = unix.NsecToTimespec(n.Atime)
	st.Ctim = st.Mtim
	st.Uid, st.Gid = n.UID, n.GID
	if n.Store != 0 {
		// The store's counts: a file's other names may be in
		// directories not read yet, and its blocks are the disk's.
		if !n.IsDir() || !n.Filled {
			setNlink(&st.Nlink, n.storeLinks)
		}
		st.Blocks = n.storeBlocks
		st.Ctim = unix.NsecToTimespec(n.Ctime)
		if n.IsDir() {
			st.Size = n.Size // the directory's blocks, as ext4 says
		}
	}
}

// setNlink stores a link count in a Stat_t field whose width differs by
// architecture (uint32 on arm64, uint64 on the amd64 host the tests run
// on).
func setNlink[T uint32 | uint64](p *T, n uint32) { *p = T(n) }
