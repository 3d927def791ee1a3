package ext4fs

import (
	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/ext4"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Writing a mounted volume: ext4's fs.Writer (kernel/fs/storewrite.go).
// Each change joins the running transaction (txn.go), changes its
// metadata blocks there (alloc.go, tree.go, dirs.go, orphan.go) and
// returns; the journal makes it durable at the next commit. File data
// is written in place, straight from the page cache, before the
// transaction that points at it commits (ordered mode, as Debian mounts
// ext4): a crash leaves a file's old bytes or its new ones, never
// another file's. Any failure once a change has begun leaves the volume
// read-only (errors=remount-ro): the transaction's changes are dropped
// and the tree read again.

// The parsed inodes a change works on, in package memory (an
// interface's methods take them).
var (
	wInode ext4.Inode
	wChild ext4.Inode
)

// wstore is the volumes' Writer.
var wstore ext4Writer

type ext4Writer struct{}

// change begins a change of instance s's volume: EROFS when it is not
// writable.
func change(s uint8, forData bool) (*volume, unix.Errno) {
	v := volOf(s)
	if !v.rw || fs.Supers[s].ReadOnly {
		return nil, unix.EROFS
	}
	return v, tx.begin(v, forData)
}

// failed ends a change that went wrong after it began: the volume goes
// read-only with the error's name in the log, unless the change had
// failed before touching anything (nothing names a block yet).
func failed(v *volume, e unix.Errno) unix.Errno {
	switch e {
	case 0, unix.ENOSPC, unix.EEXIST, unix.ENOTEMPTY, unix.EMLINK, unix.ENOENT:
		return e
	}
	tx.v, tx.n = nil, 0
	failVolume(v, "a change failed: read-only now (errors=remount-ro)")
	return e
}

// failVolume makes v read-only after an error, as errors=remount-ro
// does: the kernel log says why, every later change is EROFS, the
// directories are read again from the disk.
func failVolume(v *volume, why string) {
	if !v.rw {
		return
	}
	v.rw = false
	fs.Supers[v.super].ReadOnly = true
	say(v, levelErr, why)
}

// timeNow is Now as ext4 stores it.
func timeNow() ext4.Time {
	ns := now()
	return ext4.Time{Sec: ns / 1e9, Nsec: uint32(ns % 1e9)}
}

// linkMax is EXT4_LINK_MAX: past it a directory's count stays 1
// (dir_nlink).
const linkMax = 65000

// Create makes an inode of mode and its name nm in directory dir.
func (*ext4Writer) Create(dir int32, nm []byte, mode, rdev uint32, target []byte, st *fs.Stored) unix.Errno {
	v, e := change(fs.Inodes[dir].Super, false)
	if e != 0 {
		return e
	}
	r := &v.r
	if mode&unix.S_IFMT == unix.S_IFLNK && len(target) >= int(r.BlockSize) {
		// The target and its NUL must fit a block (ext4_symlink),
		// checked before anything changes.
		return unix.ENAMETOOLONG
	}
	dino := fs.Inodes[dir].Store
	isDir := mode&unix.S_IFMT == unix.S_IFDIR
	if isDir {
		// The parent's count first: EMLINK changes nothing.
		praw, e := inodeRaw(v, dino)
		if e != 0 {
			return failed(v, e)
		}
		if l := ext4.InodeLinks(praw); l >= linkMax-1 && r.RoCompat&ext4.RoCompatDirNlink == 0 {
			return unix.EMLINK
		}
	}
	ino, e := allocInode(v, (dino-1)/r.InodesPerGroup, isDir)
	if e != 0 {
		return failed(v, e)
	}
	raw, e := inodeRaw(v, ino)
	if e != 0 {
		return failed(v, e)
	}
	t := timeNow()
	r.InitInode(raw, uint16(mode), 0, 0, t, uint32(now())^ino)
	ext4.SetInodeLinks(raw, 1)
	root := ext4.InodeBlockArea(raw)
	switch mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFDIR:
		ext4.SetInodeFlags(raw, ext4.FlagExtents)
		ext4.InitExtentNode(root, 0)
	case unix.S_IFLNK:
		if len(target) < len(root) {
			copy(root, target) // a fast symlink (ext4_inode_is_fast_symlink)
		} else {
			ext4.SetInodeFlags(raw, ext4.FlagExtents)
			ext4.InitExtentNode(root, 0)
		}
		ext4.SetInodeSize(raw, uint64(len(target)))
	case unix.S_IFCHR, unix.S_IFBLK:
		ext4.PutDevice(raw, rdev>>8, rdev&0xff)
	}
	r.SetInodeCsum(ino, raw)
	in := &wChild
	if ee := r.Inode(ino, in); ee != ext4.OK {
		return failed(v, errno(ee))
	}
	switch {
	case isDir:
		e = newDirBlock(v, in, raw, dino)
	case mode&unix.S_IFMT == unix.S_IFLNK && len(target) >= len(root):
		e = symlinkBlock(v, in, raw, target)
	}
	if e == 0 {
		e = dirAdd(v, dino, nm, ino, r.DirTypeOf(mode))
	}
	if e != 0 {
		return unmake(v, ino, e)
	}
	if e := touchDir(v, dino, isDir, 1); e != 0 {
		return failed(v, e)
	}
	if ee := r.Inode(ino, in); ee != ext4.OK {
		return failed(v, errno(ee))
	}
	return failed(v, stored(v, in, st))
}

// firstBlock gives new inode in (raw: its bytes) its block 0, zeroed,
// in the transaction.
func firstBlock(v *volume, in *ext4.Inode, raw []byte) ([]byte, unix.Errno) {
	r := &v.r
	phys, b, e := newBlock(v, 0)
	if e != 0 {
		return nil, e
	}
	if e := extentAdd(v, in, raw, 0, phys, 1); e != 0 {
		freeBlocks(v, phys, 1)
		return nil, e
	}
	if e := errno(r.AddInodeBlocks(raw, int64(r.BlockSize/512))); e != 0 {
		return nil, e
	}
	r.SetInodeCsum(in.Ino, raw)
	return b, 0
}

// unmake takes back inode ino, made by a create that then failed (a
// full disk: no block for the new directory's first block or for the
// parent's next one), so that the transaction holds no inode without a
// name; a failure that leaves the volume read-only needs nothing.
func unmake(v *volume, ino uint32, e unix.Errno) unix.Errno {
	if failed(v, e); !v.rw {
		return e
	}
	if ee := evict(v, ino); ee != 0 {
		failed(v, ee)
	}
	return e
}

// newDirBlock gives new directory in (raw: its bytes) its first block,
// "." and "..".
func newDirBlock(v *volume, in *ext4.Inode, raw []byte, parent uint32) unix.Errno {
	r := &v.r
	b, e := firstBlock(v, in, raw)
	if e != 0 {
		return e
	}
	r.InitDotsBlock(b, in.Ino, parent)
	ext4.SetInodeLinks(raw, 2)
	ext4.SetInodeSize(raw, uint64(r.BlockSize))
	r.SetInodeCsum(in.Ino, raw)
	r.SetLeafBlockCsum(in, b)
	return 0
}

// symlinkBlock writes a slow symlink's target into a block of its own.
func symlinkBlock(v *volume, in *ext4.Inode, raw, target []byte) unix.Errno {
	b, e := firstBlock(v, in, raw)
	if e != 0 {
		return e
	}
	copy(b, target)
	return 0
}

// touchDir sets directory dino's mtime and ctime to now and adds links
// to its count when a subdirectory came (1) or went (-1).
func touchDir(v *volume, dino uint32, subdir bool, links int) unix.Errno {
	raw, e := inodeRaw(v, dino)
	if e != 0 {
		return e
	}
	if subdir {
		l := int(ext4.InodeLinks(raw))
		switch {
		case l == 1: // past EXT4_LINK_MAX already: stays 1
		case links > 0 && l+links >= linkMax:
			l = 1
		default:
			l = max(l+links, 2)
		}
		ext4.SetInodeLinks(raw, uint16(l))
	}
	v.r.InodeTimes(raw, ext4.TimeM|ext4.TimeC, timeNow())
	v.r.SetInodeCsum(dino, raw)
	return 0
}

// dropLink takes one name's count off inode ino (all of a directory's),
// the name being child in the tree (-1: not there): one with none left
// that something still uses goes on the orphan list until its last user
// is gone (Forget); one nothing uses is freed by Forget in this same
// system call, so in this same transaction (Forget joins it without a
// commit between), and needs no listing.
func dropLink(v *volume, ino uint32, child int32) unix.Errno {
	raw, e := inodeRaw(v, ino)
	if e != 0 {
		return e
	}
	l := ext4.InodeLinks(raw)
	if ext4.InodeMode(raw)&ext4.SIFMT == ext4.SIFDIR || l <= 1 {
		l = 0
	} else {
		l--
	}
	ext4.SetInodeLinks(raw, l)
	v.r.InodeTimes(raw, ext4.TimeC, timeNow())
	// Listed unless Forget is sure to join this transaction: nothing
	// uses the file and the transaction has room (join commits first
	// only past half of a change's reserve, which the rest of this
	// change does not use up).
	if l == 0 && (child < 0 || fs.Inodes[child].Opens > 0 || tx.n >= maxTxnBlocks-opBlocks) {
		if e := orphanAdd(v, ino, raw); e != 0 {
			return e
		}
	}
	v.r.SetInodeCsum(ino, raw)
	return 0
}

// Remove takes nm out of dir: a directory must hold nothing but "." and
// "..".
func (*ext4Writer) Remove(dir int32, nm []byte, rmdir bool) unix.Errno {
	v, e := change(fs.Inodes[dir].Super, false)
	if e != 0 {
		return e
	}
	dino := fs.Inodes[dir].Store
	child := fs.LookupIn(dir, nm)
	ino, e := storedIno(v, dino, nm, child)
	if e != 0 {
		return failed(v, e)
	}
	if rmdir {
		empty, e := dirEmpty(v, ino)
		if e != 0 {
			return failed(v, e)
		}
		if !empty {
			return unix.ENOTEMPTY
		}
	}
	if _, e := dirEdit(v, dino, nm, false, 0, 0); e != 0 {
		return failed(v, e)
	}
	if e := dropLink(v, ino, child); e != 0 {
		return failed(v, e)
	}
	return failed(v, touchDir(v, dino, rmdir, -1))
}

// storedIno is the inode name nm of directory dino is for: the tree's
// entry child says (the walk that led here filled the directory), or,
// with none, the directory's blocks (a linear one read from its start).
func storedIno(v *volume, dino uint32, nm []byte, child int32) (uint32, unix.Errno) {
	if child >= 0 {
		return fs.Inodes[child].Store, 0
	}
	ino, ee := v.r.Lookup(dirInodeOf(v, dino), nm)
	return ino, errno(ee)
}

// dirInodeOf parses directory dino into wInode (0 on failure: the
// lookup that follows fails).
func dirInodeOf(v *volume, dino uint32) *ext4.Inode {
	if v.r.Inode(dino, &wInode) != ext4.OK {
		wInode = ext4.Inode{}
	}
	return &wInode
}

// Rename moves fromDir's fromName to toDir's toName, over what is there.
func (*ext4Writer) Rename(fromDir int32, fromName []byte, toDir int32, toName []byte) unix.Errno {
	v, e := change(fs.Inodes[fromDir].Super, false)
	if e != 0 {
		return e
	}
	r := &v.r
	from, to := fs.Inodes[fromDir].Store, fs.Inodes[toDir].Store
	ino, e := storedIno(v, from, fromName, fs.LookupIn(fromDir, fromName))
	if e != 0 {
		return failed(v, e)
	}
	cin := &wChild
	if ee := r.Inode(ino, cin); ee != ext4.OK {
		return failed(v, errno(ee))
	}
	isDir := cin.IsDir()
	typ := r.DirTypeOf(uint32(cin.Mode))
	target := fs.LookupIn(toDir, toName)
	old, ee := uint32(0), ext4.ENOENT
	if target >= 0 {
		old, ee = fs.Inodes[target].Store, ext4.OK
	}
	switch {
	case ee == ext4.OK && old == ino:
		return 0 // two names of one file: rename(2) does nothing
	case ee == ext4.OK:
		if _, e := dirEdit(v, to, toName, true, ino, typ); e != 0 {
			return failed(v, e)
		}
		if e := dropLink(v, old, target); e != 0 {
			return failed(v, e)
		}
		if isDir {
			// The directory replaced (empty: checked on the tree)
			// took its ".." from to.
			if e := touchDir(v, to, true, -1); e != 0 {
				return failed(v, e)
			}
		}
	case ee == ext4.ENOENT:
		if e := dirAdd(v, to, toName, ino, typ); e != 0 {
			return failed(v, e)
		}
	default:
		return failed(v, errno(ee))
	}
	if _, e := dirEdit(v, from, fromName, false, 0, 0); e != 0 {
		if e == unix.ENOENT {
			e = unix.EUCLEAN // the new name is in: the old one must be too
		}
		return failed(v, e)
	}
	if isDir && from != to {
		if e := setDotDot(v, ino, to); e != 0 {
			return failed(v, e)
		}
		if e := touchDir(v, to, true, 1); e != 0 {
			return failed(v, e)
		}
	}
	if e := touchDir(v, from, isDir && from != to, -1); e != 0 {
		return failed(v, e)
	}
	if from != to {
		if e := touchDir(v, to, false, 0); e != 0 {
			return failed(v, e)
		}
	}
	raw, e := inodeRaw(v, ino)
	if e != 0 {
		return failed(v, e)
	}
	r.InodeTimes(raw, ext4.TimeC, timeNow())
	r.SetInodeCsum(ino, raw)
	return 0
}

// setDotDot points directory dino's ".." at parent.
func setDotDot(v *volume, dino, parent uint32) unix.Errno {
	din := &wChild
	if e := v.r.Inode(dino, din); e != ext4.OK {
		return errno(e)
	}
	phys, e := dirPhys(v, din, 0)
	if e != 0 {
		return e
	}
	b, e := tx.get(phys)
	if e != 0 {
		return e
	}
	if ee := v.r.SetDotDot(b, parent); ee != ext4.OK {
		return errno(ee)
	}
	return errno(v.r.SetDirBlockCsum(din, 0, b))
}

// Link names file i nm in dir too.
func (*ext4Writer) Link(i, dir int32, nm []byte) unix.Errno {
	v, e := change(fs.Inodes[dir].Super, false)
	if e != 0 {
		return e
	}
	ino := fs.Inodes[i].Store
	raw, e := inodeRaw(v, ino)
	if e != 0 {
		return failed(v, e)
	}
	l := ext4.InodeLinks(raw)
	if l >= linkMax {
		return unix.EMLINK
	}
	if e := dirAdd(v, fs.Inodes[dir].Store, nm, ino, v.r.DirTypeOf(uint32(ext4.InodeMode(raw)))); e != 0 {
		return failed(v, e)
	}
	if raw, e = inodeRaw(v, ino); e != 0 {
		return failed(v, e)
	}
	ext4.SetInodeLinks(raw, l+1)
	v.r.InodeTimes(raw, ext4.TimeC, timeNow())
	v.r.SetInodeCsum(ino, raw)
	return failed(v, touchDir(v, fs.Inodes[dir].Store, false, 0))
}

// Setattr changes the mode, size or times of file i.
func (*ext4Writer) Setattr(i int32, a *fs.Attr) unix.Errno {
	v, e := change(fs.Inodes[i].Super, false)
	if e != 0 {
		return e
	}
	r := &v.r
	ino := fs.Inodes[i].Store
	if a.Valid&fs.AttrSize != 0 {
		if e := truncate(v, ino, a.Size); e != 0 {
			return failed(v, e)
		}
	}
	raw, e := inodeRaw(v, ino)
	if e != 0 {
		return failed(v, e)
	}
	t := timeNow()
	if a.Valid&fs.AttrMode != 0 {
		ext4.SetInodeMode(raw, ext4.InodeMode(raw)&ext4.SIFMT|uint16(a.Mode&0o7777))
	}
	if a.Valid&fs.AttrAtime != 0 {
		r.InodeTimes(raw, ext4.TimeA, ext4.Time{Sec: a.Atime / 1e9, Nsec: uint32(a.Atime % 1e9)})
	}
	if a.Valid&fs.AttrMtime != 0 {
		r.InodeTimes(raw, ext4.TimeM, ext4.Time{Sec: a.Mtime / 1e9, Nsec: uint32(a.Mtime % 1e9)})
	}
	if a.Valid&fs.AttrSize != 0 && a.Valid&fs.AttrMtime == 0 {
		r.InodeTimes(raw, ext4.TimeM, t)
	}
	r.InodeTimes(raw, ext4.TimeC, t)
	r.SetInodeCsum(ino, raw)
	fs.StoreBlocks(i, int64(r.InodeBlocks(raw)))
	return 0
}

// truncate sets file ino's size: the blocks past a smaller one freed;
// a larger one gets zeros past the old end (zeroTail).
func truncate(v *volume, ino uint32, size int64) unix.Errno {
	r := &v.r
	in := &wInode
	if e := r.Inode(ino, in); e != ext4.OK {
		return errno(e)
	}
	if size < 0 || uint64(size) > maxBytes(v) {
		return unix.EFBIG
	}
	bs := uint64(r.BlockSize)
	if uint64(size) < in.Size {
		raw, e := inodeRaw(v, ino)
		if e != 0 {
			return e
		}
		if e := extentCut(v, in, raw, uint32((uint64(size)+bs-1)/bs)); e != 0 {
			return e
		}
	} else if e := zeroTail(v, in, in.Size); e != 0 {
		return e
	}
	raw, e := inodeRaw(v, ino)
	if e != 0 {
		return e
	}
	ext4.SetInodeSize(raw, uint64(size))
	r.SetInodeCsum(ino, raw)
	return 0
}

// zeroTail zeroes on the disk the bytes of file in's last block past its
// end, old, before the file grows over them: a truncate that shrank the
// file left them as they were (zeroing them then would be data written
// before the truncate commits: a crash would leave the old size over
// zeros), and whatever they hold must read as zeros once they are
// inside the file (ext4_block_truncate_page's purpose, done at growth
// so that the crash leaves either size with the right bytes).
func zeroTail(v *volume, in *ext4.Inode, old uint64) unix.Errno {
	r := &v.r
	bs := uint64(r.BlockSize)
	tail := old % bs
	if tail == 0 {
		return 0
	}
	var m ext4.Mapping
	if e := r.MapBlock(in, uint32(old/bs), &m); e != ext4.OK {
		return errno(e)
	}
	if m.Hole || m.Unwritten {
		return 0
	}
	b, e := bcache.Get(v.disk, v.sector(m.Phys), r.BlockSize)
	if e != 0 {
		return e
	}
	copy(dataBuf[:bs], b)
	clear(dataBuf[tail:bs])
	return bcache.Write(v.disk, v.sector(m.Phys), dataBuf[:bs])
}

// maxBytes is the largest file v holds, Linux's s_maxbytes
// (ext4_max_size): 32-bit logical block numbers, so 2^32-1 blocks (4 TiB
// less a block with 1 KiB blocks, 16 TiB less one with 4 KiB).
func maxBytes(v *volume) uint64 { return (1<<32 - 1) << v.r.LogBlockSize }

// dataBuf is a block of file data being changed.
var dataBuf [mm.PageSize]byte

// sector is block n's first sector on the disk.
func (v *volume) sector(n uint64) uint64 {
	return v.start + n*uint64(v.r.BlockSize/bcache.SectorSize)
}

// Write puts n bytes at off of file i on the disk: the blocks they touch
// are written whole from the page cache (pas, from byte in of the
// first); a hole gets blocks first, a run as long as the write needs.
func (*ext4Writer) Write(i int32, off int64, pas *[fs.StoreRun]uintptr, in, n uint32) unix.Errno {
	v, e := change(fs.Inodes[i].Super, true)
	if e != 0 {
		return e
	}
	r := &v.r
	ino := fs.Inodes[i].Store
	fin := &wInode
	if ee := r.Inode(ino, fin); ee != ext4.OK {
		return failed(v, errno(ee))
	}
	bs := uint64(r.BlockSize)
	end := uint64(off) + uint64(n)
	if n == 0 || end > maxBytes(v) {
		return unix.EFBIG
	}
	base := uint64(off) - uint64(in) // the file offset of pas[0]'s first byte
	old := fin.Size
	if old < uint64(off) && old/bs < uint64(off)/bs {
		// A gap past the end: the old last block is not rewritten
		// here, and its bytes past the old end become the file's.
		if e := zeroTail(v, fin, old); e != 0 {
			return failed(v, e)
		}
	}
	goal := uint64(0)
	for lb := uint64(off) / bs; lb < (end+bs-1)/bs; {
		var m ext4.Mapping
		if ee := r.MapBlock(fin, uint32(lb), &m); ee != ext4.OK {
			return failed(v, errno(ee))
		}
		cnt := min(uint64(m.Len), (end+bs-1)/bs-lb)
		switch {
		case m.Unwritten:
			// A preallocated extent (fallocate, which this kernel
			// does not make): writing into one is not supported.
			return unix.EOPNOTSUPP
		case m.Hole:
			if goal == 0 {
				goal = holeGoal(v, fin, uint32(lb))
			}
			phys, got, e := allocBlocks(v, goal, uint32(min(cnt, ext4.MaxExtentLen)))
			if e != 0 {
				return writeFailed(v, i, ino, old, e)
			}
			raw, e := inodeRaw(v, ino)
			if e != 0 {
				return failed(v, e)
			}
			if e := extentAdd(v, fin, raw, uint32(lb), phys, got); e != 0 {
				freeBlocks(v, phys, got)
				return writeFailed(v, i, ino, old, e)
			}
			if e := errno(r.AddInodeBlocks(raw, int64(got)*int64(bs/512))); e != 0 {
				return failed(v, e)
			}
			r.SetInodeCsum(ino, raw)
			if ee := r.Inode(ino, fin); ee != ext4.OK {
				return failed(v, errno(ee))
			}
			m.Phys, cnt = phys, uint64(got)
		}
		if e := writeData(v, m.Phys, lb*bs-base, cnt, pas); e != 0 {
			return failed(v, e)
		}
		goal = m.Phys + cnt
		lb += cnt
	}
	raw, e := inodeRaw(v, ino)
	if e != 0 {
		return failed(v, e)
	}
	if end > ext4.InodeSize(raw) {
		ext4.SetInodeSize(raw, end)
	}
	// The write's time is the tree's (fs.writeData stamps the file
	// first), so the disk and the tree agree.
	mt := fs.Inodes[i].Mtime
	r.InodeTimes(raw, ext4.TimeM|ext4.TimeC, ext4.Time{Sec: mt / 1e9, Nsec: uint32(mt % 1e9)})
	r.SetInodeCsum(ino, raw)
	fs.StoreBlocks(i, int64(r.InodeBlocks(raw)))
	return 0
}

// writeFailed ends a write that ran out of room (ENOSPC) after it may
// have mapped blocks past the file's end, old: they go back (the tree
// counts none of the run's bytes, and ext4 wants no initialized block
// past i_size), so the volume stays consistent; other errors make it
// read-only.
func writeFailed(v *volume, i int32, ino uint32, old uint64, e unix.Errno) unix.Errno {
	if failed(v, e); !v.rw {
		return e
	}
	in := &wChild
	if ee := v.r.Inode(ino, in); ee != ext4.OK {
		return failed(v, errno(ee))
	}
	raw, ee := inodeRaw(v, ino)
	if ee != 0 {
		return failed(v, ee)
	}
	bs := uint64(v.r.BlockSize)
	if ee := extentCut(v, in, raw, uint32((old+bs-1)/bs)); ee != 0 {
		return failed(v, ee)
	}
	v.r.SetInodeCsum(ino, raw)
	fs.StoreBlocks(i, int64(v.r.InodeBlocks(raw)))
	return e
}

// holeGoal is where a hole at lblk of in should get its blocks: after
// the block mapped before it, or in the inode's group.
func holeGoal(v *volume, in *ext4.Inode, lblk uint32) uint64 {
	if lblk > 0 {
		var m ext4.Mapping
		if v.r.MapBlock(in, lblk-1, &m) == ext4.OK && !m.Hole {
			return m.Phys + 1
		}
	}
	g := (in.Ino - 1) / v.r.InodesPerGroup
	return uint64(v.r.FirstDataBlock) + uint64(g)*uint64(v.r.BlocksPerGroup)
}

// writeData writes cnt blocks to the disk from phys on, from the page
// cache's pages at byte at of the run pas: the whole pages among them in
// one request (bcache.WriteData; the blocks are contiguous on the disk,
// whatever their size), the blocks before the first page boundary and
// after the last one by themselves.
func writeData(v *volume, phys, at, cnt uint64, pas *[fs.StoreRun]uintptr) unix.Errno {
	bs := uint64(v.r.BlockSize)
	per := mm.PageSize / bs
	k := uint64(0)
	for ; k < cnt && (at+k*bs)%mm.PageSize != 0; k++ {
		if e := writeBlock(v, phys+k, at+k*bs, pas); e != 0 {
			return e
		}
	}
	if pages := (cnt - k) / per; pages > 0 {
		first := (at + k*bs) / mm.PageSize
		copy(runBuf[:pages], pas[first:first+pages])
		if e := bcache.WriteData(v.disk, v.sector(phys+k), &runBuf, int(pages)); e != 0 {
			return e
		}
		k += pages * per
	}
	for ; k < cnt; k++ {
		if e := writeBlock(v, phys+k, at+k*bs, pas); e != 0 {
			return e
		}
	}
	return 0
}

// writeBlock writes one block, phys, from byte at of the run pas.
func writeBlock(v *volume, phys, at uint64, pas *[fs.StoreRun]uintptr) unix.Errno {
	bs := uint64(v.r.BlockSize)
	p := mm.PageBytes(pas[at/mm.PageSize])
	return bcache.Write(v.disk, v.sector(phys), p[at%mm.PageSize:at%mm.PageSize+bs])
}

// Sync makes file i durable: the running transaction committed (it
// holds every change so far, the file's among them) and the disk's
// cache flushed (its data).
func (*ext4Writer) Sync(i int32, dataOnly bool) unix.Errno {
	v := volOf(fs.Inodes[i].Super)
	return syncVolume(v)
}

// syncVolume commits v's transaction and flushes the disk.
func syncVolume(v *volume) unix.Errno {
	if tx.v == v {
		if e := tx.commitNow(); e != 0 {
			return e
		}
	}
	if !v.rw {
		return 0
	}
	return bcache.Flush(v.disk)
}

// SyncAll is sync(2) and the end of the run: every volume's changes
// durable.
func SyncAll() {
	for k := range vols {
		if v := &vols[k]; v.used && v.rw {
			syncVolume(v)
		}
	}
}

// Forget is the tree's last use of file i gone: with no name left on
// the disk either, it is freed (off the orphan list).
func (*ext4Writer) Forget(i int32) {
	v := volOf(fs.Inodes[i].Super)
	if !v.rw {
		return
	}
	ino := fs.Inodes[i].Store
	in := &wInode
	if v.r.Inode(ino, in) != ext4.OK || in.Links != 0 || !inodeInUse(v, ino) {
		return
	}
	if tx.join(v) != 0 {
		return
	}
	if e := orphanDel(v, ino); e != 0 {
		failed(v, e)
		return
	}
	failed(v, evict(v, ino))
}

// inodeInUse says whether ino's bit is set in its group's bitmap.
func inodeInUse(v *volume, ino uint32) bool {
	g := (ino - 1) / v.r.InodesPerGroup
	var gd ext4.GroupDesc
	if groupDesc(v, g, &gd) != 0 || gd.Flags&ext4.BgInodeUninit != 0 {
		return false
	}
	bm, e := v.src.Block(gd.InodeBitmap)
	return e == ext4.OK && ext4.TestBit(bm, (ino-1)%v.r.InodesPerGroup)
}
