// Package ext4fs mounts ext4 volumes into kernel/fs's tree as a backed
// file system (fs.Store): mount(2) of "ext4" on a block device reads
// the superblock through the buffer cache (kernel/bcache), refuses what
// kernel/ext4 says cannot be mounted, and makes the instance's root; a
// directory's entries and a file's pages are then read from the volume
// when first used; a journal left with committed transactions is
// replayed first (replay.go). A read-write mount makes every change
// through the journal (writer.go, txn.go; docs/ARCHITECTURE.md,
// "Storage"). It owns the volume table, the running transaction and the
// open journal; everything runs under the kernel lock. Builds on the
// host: go test ./kernel/ext4fs (against e2fsprogs' images).
package ext4fs

import (
	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/ext4"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// MaxVolumes bounds the ext4 instances at once.
const MaxVolumes = 8

// sbOffset and sbSize place the superblock: 1024 bytes at byte 1024 of
// the volume, whatever its block size (ext4_fill_super).
const (
	sbOffset = 1024
	sbSize   = 1024
)

// superMagic is EXT4_SUPER_MAGIC, statfs's f_type.
const superMagic = 0xEF53

// A volume is one mounted ext4 file system.
type volume struct {
	used    bool
	r       ext4.Reader
	src     source
	disk    int    // index in block.Disks
	start   uint64 // the partition's first sector
	sectors uint64 // its length
	super   uint8
	name    [16]byte // "vda1", for messages
	nameLen int
	rw      bool // mounted read-write, its journal open
}

// source is a volume's ext4.Source: its blocks through the buffer
// cache, or the running transaction's copy of one it changed.
type source struct{ v *volume }

func (s *source) Block(n uint64) ([]byte, ext4.Errno) {
	if tx.v == s.v {
		if b := tx.copyOf(n); b != nil {
			return b, ext4.OK
		}
	}
	return s.disk(n)
}

// disk is block n as the disk holds it.
func (s *source) disk(n uint64) ([]byte, ext4.Errno) {
	v := s.v
	bs := v.r.BlockSize
	b, e := bcache.Get(v.disk, v.start+n*uint64(bs/bcache.SectorSize), bs)
	if e != 0 {
		return nil, ext4.EIO
	}
	return b, ext4.OK
}

var (
	vols [MaxVolumes]volume
	// bySuper is 1 + the volume of each fs instance, 0 for none.
	bySuper [fs.MaxSupers]int8
	store   ext4Store
	// scratch buffers, used under the kernel lock.
	nameBuf [ext4.MaxNameLen]byte
	linkBuf [fs.PathMax]byte
	msgBuf  [160]byte
	// Inodes being read, in package memory: a Reader's methods hand
	// them on through the Source interface, which a stack variable
	// must not be (it would move to the heap).
	rootInode, dirInode, childInode, pageInode ext4.Inode
)

// Say writes a line to the kernel log (and console), as Linux's
// ext4_msg does; the kernel sets it at boot.
var Say func(level uint8, line []byte)

// Levels for Say (klog's).
const (
	levelErr  = 3
	levelInfo = 6
)

// Mount makes (or finds) the instance on block device major:minor:
// ENXIO when there is no such device, EINVAL when what is on it is not
// an ext4 this kernel can read (the reason goes to the kernel log),
// EROFS when it was asked to write one it cannot (a read-only device, a
// feature it does not write, no journal: the reason in the log). noload mounts a
// volume whose journal needs recovery as it is on the disk, without the
// journal's last transactions (Linux's noload).
func Mount(major, minor uint32, readOnly, noload bool) (uint8, unix.Errno) {
	d, part := block.Find(major, minor)
	if d == nil {
		return 0, unix.ENXIO
	}
	disk := d.Index()
	start, sectors := d.Extent(part)
	for j := range vols {
		if w := &vols[j]; w.used && w.disk == disk && w.start == start {
			if !readOnly && !w.rw {
				return 0, unix.EBUSY // mounted read-only: remount is not offered
			}
			return w.super, 0 // one instance a device, as sget_fc finds it
		}
	}
	k := -1
	for i := range vols {
		if !vols[i].used {
			k = i
			break
		}
	}
	if k < 0 {
		return 0, unix.ENOMEM
	}
	v := &vols[k]
	*v = volume{disk: disk, start: start, sectors: sectors}
	v.src.v = v
	v.nameLen = d.NameOf(part, &v.name)
	if !readOnly && d.ReadOnly {
		// fs/super.c's setup_bdev_super: a read-write mount of a
		// read-only device is EACCES.
		say(v, levelErr, "write access unavailable: the device is read-only")
		return 0, unix.EACCES
	}
	if sectors*bcache.SectorSize < sbOffset+sbSize {
		say(v, levelErr, "too small to hold a superblock")
		return 0, unix.EINVAL
	}
	sb, e := bcache.Get(disk, start+sbOffset/bcache.SectorSize, sbSize)
	if e != 0 {
		say(v, levelErr, "unable to read superblock")
		return 0, e
	}
	m, why, ee := v.r.Mount(sb, &v.src)
	if ee == ext4.OK && m != ext4.MountNo && why == "needs_recovery" && !noload && journal.open {
		say(v, levelErr, "its journal needs replaying while another volume is mounted read-write: one at a time")
		return 0, unix.EBUSY
	}
	if ee == ext4.OK && m != ext4.MountNo && why == "needs_recovery" && !noload {
		if v.r.BlockSize > mm.PageSize {
			say(v, levelErr, "block size larger than a page")
			return 0, unix.EINVAL
		}
		if e := recoverJournal(v); e != 0 {
			return 0, e
		}
		if sb, e = bcache.Get(disk, start+sbOffset/bcache.SectorSize, sbSize); e != 0 {
			say(v, levelErr, "unable to read superblock")
			return 0, e
		}
		m, why, ee = v.r.Mount(sb, &v.src)
	}
	switch {
	case ee == ext4.EUCLEAN || ee == ext4.EBADMSG || ee == ext4.EINVAL:
		// Not ext4 at all, or a superblock that fails its checks:
		// Linux's "VFS: Can't find ext4 filesystem" is EINVAL.
		say(v, levelErr, "can't find an ext4 file system (bad superblock)")
		return 0, unix.EINVAL
	case m == ext4.MountNo:
		sayWhy(v, levelErr, "unsupported feature: ", why)
		return 0, unix.EINVAL
	case why == "needs_recovery" && !noload:
		say(v, levelErr, "the journal still needs recovery after its replay: e2fsck it")
		return 0, unix.EUCLEAN
	case v.r.BlockSize > mm.PageSize:
		say(v, levelErr, "block size larger than a page")
		return 0, unix.EINVAL
	case v.r.BlocksCount > sectors/uint64(v.r.BlockSize/bcache.SectorSize):
		say(v, levelErr, "block count exceeds the size of the device")
		return 0, unix.EINVAL
	}
	root := &rootInode
	if e := v.r.Inode(rootIno, root); e != ext4.OK || !root.IsDir() {
		say(v, levelErr, "the root inode cannot be read")
		return 0, unix.EINVAL
	}
	var st fs.Stored
	if e := stored(v, root, &st); e != 0 {
		return 0, e
	}
	if !readOnly {
		if e := openWritable(v, m, why); e != 0 {
			return 0, e
		}
	}
	s, fe := fs.NewStoredSuper(fs.TypeExt4, unix.Mkdev(major, minor), &st)
	if fe != 0 {
		return 0, fe
	}
	fs.Stores[fs.TypeExt4] = &store
	fs.Writers[fs.TypeExt4] = &wstore
	v.used, v.super = true, s
	fs.Supers[s].MaxBytes = int64(maxBytes(v))
	bySuper[s] = int8(k + 1)
	if readOnly {
		fs.Supers[s].ReadOnly = true
		say(v, levelInfo, "mounted read-only")
		return s, 0
	}
	v.rw = true
	if e := orphanCleanup(v); e != 0 {
		failVolume(v, "the orphan list is bad: read-only now (e2fsck it)")
	}
	say(v, levelInfo, "mounted read-write, ordered data mode")
	return s, 0
}

// openWritable readies v for changes: refused (EROFS, the reason in the
// log) when Support said read-only or the volume has no journal; then
// the journal opened for transactions. (The mount then frees the
// orphans a crash left.)
func openWritable(v *volume, m ext4.Mountable, why string) unix.Errno {
	switch {
	case m != ext4.MountReadWrite:
		sayWhy(v, levelErr, "cannot be written: ", why)
		return unix.EROFS
	case v.r.Compat&ext4.CompatHasJournal == 0 || v.r.JournalInum == 0:
		say(v, levelErr, "cannot be written: no journal (this kernel writes through one)")
		return unix.EROFS
	case v.r.BlockSize > mm.PageSize:
		say(v, levelErr, "cannot be written: block size larger than a page")
		return unix.EROFS
	case journal.open:
		// One journal is open for writing at a time (txn.go's
		// transaction and replay.go's journal are the package's).
		say(v, levelErr, "another ext4 volume is mounted read-write: one at a time")
		return unix.EBUSY
	}
	if e := openJournal(v); e != 0 {
		say(v, levelErr, "cannot be written: the journal cannot be opened")
		return unix.EROFS
	}
	return 0
}

// rootIno is EXT4_ROOT_INO.
const rootIno = 2

// volOf is the volume of instance s.
func volOf(s uint8) *volume { return &vols[bySuper[s]-1] }

// errno turns ext4's answer into the system call's: corruption is
// EUCLEAN, as Linux's EFSCORRUPTED reaches a program.
func errno(e ext4.Errno) unix.Errno { return unix.Errno(e) }

// stored fills st from inode in: what the tree keeps of it.
func stored(v *volume, in *ext4.Inode, st *fs.Stored) unix.Errno {
	*st = fs.Stored{Num: in.Ino, Mode: uint32(in.Mode), Links: uint32(in.Links), UID: in.UID, GID: in.GID,
		Size: int64(in.Size), BlocksUsed: int64(in.Blocks),
		Mtime: ns(in.Mtime), Atime: ns(in.Atime), Ctime: ns(in.Ctime)}
	switch in.Mode & ext4.SIFMT {
	case ext4.SIFCHR, ext4.SIFBLK:
		major, minor := in.Rdev()
		st.Rdev = major<<8 | minor&0xff
	case ext4.SIFLNK:
		n, e := v.r.Readlink(in, linkBuf[:])
		if e != ext4.OK {
			return errno(e)
		}
		st.Link = linkBuf[:n]
	}
	return 0
}

func ns(t ext4.Time) int64 { return t.Sec*1e9 + int64(t.Nsec) }

// ext4Store is the type's fs.Store.
type ext4Store struct{}

// Fill makes directory dir's entries from the volume, in the order its
// blocks hold them.
func (*ext4Store) Fill(dir int32) unix.Errno {
	v := volOf(fs.Inodes[dir].Super)
	di := &dirInode
	if e := v.r.Inode(fs.Inodes[dir].Store, di); e != ext4.OK {
		return errno(e)
	}
	var pos ext4.DirPos
	var d ext4.DirEntry
	for {
		e := v.r.ReadDir(di, &pos, &d)
		if e == ext4.ENOENT {
			return 0
		}
		if e != ext4.OK {
			return errno(e)
		}
		if string(d.Name) == "." || string(d.Name) == ".." {
			continue
		}
		nm := nameBuf[:copy(nameBuf[:], d.Name)] // d.Name is the block's, which the next reads may reuse
		ci := &childInode
		if e := v.r.Inode(d.Ino, ci); e != ext4.OK {
			return errno(e)
		}
		var st fs.Stored
		if e := stored(v, ci, &st); e != 0 {
			return e
		}
		if _, e := fs.MakeStored(dir, nm, &st); e != 0 {
			return e
		}
	}
}

// ReadPages reads inode i's pages from off: the run of whole pages the
// extent keeps together on the disk (up to n) goes from the disk straight
// into the pages, one request, whatever the block size; a hole or an
// unwritten extent is one page of zeros; a page an extent ends inside of
// is copied through the buffer cache alone. The bytes past the file's
// end are zeros, whatever the last block holds there. Every byte of the
// pages it fills is written (they come unzeroed: fs.Store).
func (*ext4Store) ReadPages(i int32, off int64, pas *[fs.StoreRun]uintptr, n int) (int, unix.Errno) {
	v, m, k, sector, e := runAt(i, off, n)
	if e != 0 {
		return 0, e
	}
	in := &pageInode
	switch {
	case (m.Hole || m.Unwritten) && k > 0:
		clear(mm.PageBytes(pas[0])[:]) // the pages come unzeroed (fs.Store)
		return 1, 0
	case k == 0:
		// The mapping ends inside the page: block by block, zeros
		// past the file's end.
		pb := mm.PageBytes(pas[0])[:]
		got, e := v.r.ReadAt(in, uint64(off), pb)
		if e != ext4.OK {
			return 0, errno(e)
		}
		clear(pb[got:])
		return 1, 0
	}
	copy(runBuf[:k], pas[:k])
	if e := bcache.ReadRun(v.disk, sector, &runBuf, k); e != 0 {
		return 0, e
	}
	last := off + int64(k-1)*mm.PageSize
	if rest := int64(in.Size) - last; rest < mm.PageSize {
		clear(mm.PageBytes(pas[k-1])[max(rest, 0):])
	}
	return k, 0
}

// StartPages is ReadPages's common case without waiting (fs.Store): the
// pages the first page's extent maps whole go to the disk as one
// request in flight (bcache.StartRun); a hole, an unwritten extent or
// an extent that ends inside the page is ReadPages's.
func (*ext4Store) StartPages(i int32, off int64, pas *[fs.StoreRun]uintptr, n int) (int32, int, unix.Errno) {
	if bcache.StartRun == nil {
		return -1, 0, 0
	}
	v, m, k, sector, e := runAt(i, off, n)
	if e != 0 || m.Hole || m.Unwritten || k == 0 {
		return -1, 0, e
	}
	copy(runBuf[:k], pas[:k])
	r := bcache.StartRun(v.disk, sector, &runBuf, k)
	if r < 0 {
		return -1, 0, 0
	}
	return r, k, 0
}

// runAt maps inode i's page at off (its inode read into pageInode):
// its volume, the mapping of the page's first block, how many of the n
// pages from there that mapping holds whole (k; 0 when it ends inside
// the page), and, for data on the disk, the whole disk's sector the run
// starts at (EUCLEAN when the mapping points past the volume).
func runAt(i int32, off int64, n int) (v *volume, m ext4.Mapping, k int, sector uint64, e unix.Errno) {
	v = volOf(fs.Inodes[i].Super)
	in := &pageInode
	if e := v.r.Inode(fs.Inodes[i].Store, in); e != ext4.OK {
		return v, m, 0, 0, errno(e)
	}
	bs := uint64(v.r.BlockSize)
	perPage := mm.PageSize / bs
	if e := v.r.MapBlock(in, uint32(uint64(off)/bs), &m); e != ext4.OK {
		return v, m, 0, 0, errno(e)
	}
	k = min(n, int(uint64(m.Len)/perPage))
	if m.Hole || m.Unwritten || k == 0 {
		return v, m, k, 0, 0
	}
	if m.Phys+uint64(k)*perPage > v.r.BlocksCount {
		return v, m, k, 0, unix.EUCLEAN
	}
	return v, m, k, v.start + m.Phys*(bs/bcache.SectorSize), 0
}

// runBuf is a run's pages as bcache.ReadRun takes them; bcache.MaxRun
// must hold fs.StoreRun (checked by the array length below).
var runBuf [bcache.MaxRun]uintptr

var _ [bcache.MaxRun - fs.StoreRun]struct{}

// Statfs answers as ext4_statfs does: the volume's blocks and inodes.
func (*ext4Store) Statfs(s uint8, st *unix.Statfs_t) {
	v := volOf(s)
	st.Type = superMagic
	st.Bsize, st.Frsize = int64(v.r.BlockSize), int64(v.r.BlockSize)
	st.Blocks, st.Bfree, st.Bavail = v.r.BlocksCount, v.r.FreeBlocks, v.r.FreeBlocks
	st.Files, st.Ffree = uint64(v.r.InodesCount), uint64(v.r.FreeInodes)
	st.Namelen = ext4.MaxNameLen
}

// Release frees instance s's volume and its buffers.
func (*ext4Store) Release(s uint8) {
	k := bySuper[s]
	if k == 0 {
		return
	}
	v := &vols[k-1]
	if v.rw {
		syncVolume(v) // umount: every change durable first
		if tx.v == v {
			tx.v, tx.n = nil, 0
		}
		journal.v, journal.open = nil, false
	}
	if dirHint.v == v {
		dirHint.v = nil
	}
	bcache.Forget(v.disk, 0, 0)
	v.used, v.rw = false, false
	bySuper[s] = 0
}

// say logs "ext4: NAME: what".
func say(v *volume, level uint8, what string) { sayWhy(v, level, what, "") }

func sayWhy(v *volume, level uint8, what, why string) {
	if Say == nil {
		return
	}
	n := copy(msgBuf[:], "ext4: ")
	n += copy(msgBuf[n:], v.name[:v.nameLen])
	n += copy(msgBuf[n:], ": ")
	n += copy(msgBuf[n:], what)
	n += copy(msgBuf[n:], why)
	Say(level, msgBuf[:n])
}
