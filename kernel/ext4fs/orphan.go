package ext4fs

import (
	"encoding/binary"

	"github.com/gometal/gometal/kernel/ext4"

	"golang.org/x/sys/unix"
)

// The orphan list (fs/ext4/orphan.c): an inode whose last name went
// while it was still open is listed from the superblock's
// s_last_orphan through each inode's i_dtime, so that a crash before
// its last close leaves it to be freed by the next mount
// (orphanCleanup) instead of lost. Its last close takes it off and frees
// it (evict).

// superLastOrphan is s_last_orphan's offset in the superblock.
const superLastOrphan = 232

// xattr block header fields (struct ext4_xattr_header).
const (
	xattrMagic    = 0xEA020000
	xattrRefcount = 4
	xattrCsum     = 16
)

// orphanAdd puts inode ino (raw: its bytes, whose checksum the caller
// sets) at the head of the list.
func orphanAdd(v *volume, ino uint32, raw []byte) unix.Errno {
	sb, e := superRaw(v)
	if e != 0 {
		return e
	}
	le := binary.LittleEndian
	ext4.SetInodeDtime(raw, le.Uint32(sb[superLastOrphan:]))
	le.PutUint32(sb[superLastOrphan:], ino)
	ext4.SetSuperCsum(sb)
	return 0
}

// orphanDel takes inode ino off the list if it is on it.
func orphanDel(v *volume, ino uint32) unix.Errno {
	sb, e := superRaw(v)
	if e != 0 {
		return e
	}
	le := binary.LittleEndian
	prev, cur := uint32(0), le.Uint32(sb[superLastOrphan:])
	for n := uint32(0); cur != 0 && cur != ino; n++ {
		if n > v.r.InodesCount {
			return unix.EUCLEAN // a cycle
		}
		raw, e := inodeRaw(v, cur)
		if e != 0 {
			return e
		}
		prev, cur = cur, ext4.InodeDtime(raw)
	}
	if cur == 0 {
		return 0
	}
	raw, e := inodeRaw(v, ino)
	if e != 0 {
		return e
	}
	next := ext4.InodeDtime(raw)
	ext4.SetInodeDtime(raw, 0)
	v.r.SetInodeCsum(ino, raw)
	if prev == 0 {
		le.PutUint32(sb[superLastOrphan:], next)
		ext4.SetSuperCsum(sb)
		return 0
	}
	praw, e := inodeRaw(v, prev)
	if e != 0 {
		return e
	}
	ext4.SetInodeDtime(praw, next)
	v.r.SetInodeCsum(prev, praw)
	return 0
}

// orphanCleanup frees the inodes a crash left on the list
// (ext4_orphan_cleanup), at a read-write mount.
func orphanCleanup(v *volume) unix.Errno {
	if sb, e := v.src.Block(sbOffset / uint64(v.r.BlockSize)); e != ext4.OK {
		return unix.EIO
	} else if binary.LittleEndian.Uint32(sb[sbOffset%v.r.BlockSize+superLastOrphan:]) == 0 {
		return 0 // none: nothing to commit
	}
	for n := uint32(0); ; n++ {
		if e := tx.begin(v, false); e != 0 {
			return e
		}
		sb, e := superRaw(v)
		if e != 0 {
			return e
		}
		le := binary.LittleEndian
		ino := le.Uint32(sb[superLastOrphan:])
		if ino == 0 {
			return tx.commitNow()
		}
		if n > v.r.InodesCount || ino < v.r.FirstIno || ino > v.r.InodesCount {
			return unix.EUCLEAN
		}
		raw, e := inodeRaw(v, ino)
		if e != 0 {
			return e
		}
		le.PutUint32(sb[superLastOrphan:], ext4.InodeDtime(raw))
		ext4.SetSuperCsum(sb)
		ext4.SetInodeDtime(raw, 0)
		v.r.SetInodeCsum(ino, raw)
		if ext4.InodeLinks(raw) == 0 {
			if e := evict(v, ino); e != 0 {
				return e
			}
		}
		say(v, levelInfo, "orphan inode freed")
	}
}

// evict frees inode ino, which has no names left: its blocks, its
// extended attribute block's reference, the inode.
func evict(v *volume, ino uint32) unix.Errno {
	r := &v.r
	in := &evictInode
	if e := r.Inode(ino, in); e != ext4.OK {
		return errno(e)
	}
	raw, e := inodeRaw(v, ino)
	if e != 0 {
		return e
	}
	if e := extentCut(v, in, raw, 0); e != 0 {
		return e
	}
	if in.FileACL != 0 {
		if e := dropXattrBlock(v, in.FileACL); e != 0 {
			return e
		}
	}
	return freeInode(v, ino, raw, in.IsDir())
}

var evictInode ext4.Inode

// dropXattrBlock lets go of one reference to a shared extended
// attribute block (ext4_xattr_release_block): the last frees it.
func dropXattrBlock(v *volume, blk uint64) unix.Errno {
	if blk >= v.r.BlocksCount {
		return unix.EUCLEAN
	}
	b, e := tx.get(blk)
	if e != 0 {
		return e
	}
	le := binary.LittleEndian
	if le.Uint32(b[0:]) != xattrMagic {
		return unix.EUCLEAN
	}
	refs := le.Uint32(b[xattrRefcount:])
	if refs <= 1 {
		return freeBlocks(v, blk, 1)
	}
	le.PutUint32(b[xattrRefcount:], refs-1)
	if v.r.HasCsum() {
		// ext4_xattr_block_csum: the block's number, then the block
		// with its checksum as zero.
		var nr [8]byte
		var zero [4]byte
		le.PutUint64(nr[:], blk)
		c := ext4.Crc32c(v.r.CsumSeed, nr[:])
		c = ext4.Crc32c(c, b[:xattrCsum])
		c = ext4.Crc32c(c, zero[:])
		c = ext4.Crc32c(c, b[xattrCsum+4:])
		le.PutUint32(b[xattrCsum:], c)
	}
	return 0
}
