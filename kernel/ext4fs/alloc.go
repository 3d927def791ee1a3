package ext4fs

import (
	"github.com/gometal/gometal/kernel/ext4"

	"golang.org/x/sys/unix"
)

// Allocating and freeing inodes and blocks (fs/ext4/ialloc.c,
// mballoc.c, much simplified): a bit in the group's bitmap, the group's
// counts and checksums, the superblock's counts, all in the running
// transaction. Inodes go near the directory they are made in, blocks
// near a goal (the block before, or the inode's group), a run as long as
// the bitmap gives contiguously. A group never used yet (BLOCK_UNINIT,
// INODE_UNINIT: mke2fs's lazy init) gets its bitmap made first.

// groupDesc parses group g's descriptor as the volume (and the running
// transaction) holds it.
func groupDesc(v *volume, g uint32, gd *ext4.GroupDesc) unix.Errno {
	db, doff := v.r.GroupDescLocation(g)
	b, e := v.src.Block(db)
	if e != ext4.OK {
		return unix.EIO
	}
	if e := v.r.ParseGroupDesc(g, b[doff:], gd); e != ext4.OK {
		return errno(e)
	}
	return 0
}

// groupDescRaw is group g's descriptor bytes in the transaction.
func groupDescRaw(v *volume, g uint32) ([]byte, unix.Errno) {
	db, doff := v.r.GroupDescLocation(g)
	b, e := tx.get(db)
	if e != 0 {
		return nil, e
	}
	return b[doff : doff+uint32(v.r.DescSize)], 0
}

// superRaw is the superblock's 1024 bytes in the transaction.
func superRaw(v *volume) ([]byte, unix.Errno) {
	bs := uint64(v.r.BlockSize)
	b, e := tx.get(sbOffset / bs)
	if e != 0 {
		return nil, e
	}
	return b[sbOffset%bs : sbOffset%bs+sbSize], 0
}

// inodeRaw is inode ino's bytes in the transaction, to change (then
// SetInodeCsum).
func inodeRaw(v *volume, ino uint32) ([]byte, unix.Errno) {
	g, off, ee := v.r.InodeLocation(ino)
	if ee != ext4.OK {
		return nil, errno(ee)
	}
	var gd ext4.GroupDesc
	if e := groupDesc(v, g, &gd); e != 0 {
		return nil, e
	}
	bs := uint64(v.r.BlockSize)
	b, e := tx.get(gd.InodeTable + off/bs)
	if e != 0 {
		return nil, e
	}
	o := off % bs
	return b[o : o+uint64(v.r.InodeSize)], 0
}

// groupBits gets group g's descriptor bytes and bitmap block (the one
// at bitmap) in the transaction, to change.
func groupBits(v *volume, g uint32, bitmap uint64) (d, bm []byte, e unix.Errno) {
	if d, e = groupDescRaw(v, g); e != 0 {
		return nil, nil, e
	}
	if bm, e = tx.get(bitmap); e != 0 {
		return nil, nil, e
	}
	return d, bm, 0
}

// newBlock takes one free block near goal and its copy in the
// transaction, zeroed (a new directory, extent or symlink block).
func newBlock(v *volume, goal uint64) (uint64, []byte, unix.Errno) {
	blk, _, e := allocBlocks(v, goal, 1)
	if e != 0 {
		return 0, nil, e
	}
	b, e := tx.getNew(blk)
	return blk, b, e
}

// allocInode takes a free inode, from group goal on, for a directory
// or not: ENOSPC when no group has one.
func allocInode(v *volume, goal uint32, dir bool) (uint32, unix.Errno) {
	r := &v.r
	for k := uint32(0); k < r.Groups; k++ {
		g := (goal + k) % r.Groups
		var gd ext4.GroupDesc
		if e := groupDesc(v, g, &gd); e != 0 {
			return 0, e
		}
		if gd.FreeInodes == 0 {
			continue
		}
		d, bm, e := groupBits(v, g, gd.InodeBitmap)
		if e != 0 {
			return 0, e
		}
		if gd.Flags&ext4.BgInodeUninit != 0 {
			r.InitInodeBitmap(bm)
			r.SetGroupFlags(g, d, gd.Flags&^ext4.BgInodeUninit)
		}
		bit, ee := ext4.FindFree(bm, r.InodesPerGroup, 0)
		if ee != ext4.OK {
			continue // the count was wrong: e2fsck's to mend
		}
		ino := g*r.InodesPerGroup + bit + 1
		if ino < r.FirstIno {
			return 0, unix.EUCLEAN // a reserved inode not marked used
		}
		ext4.SetBit(bm, bit)
		r.SetInodeBitmapCsum(g, d, bm)
		r.AddGroupFree(g, d, 0, -1)
		if dir {
			r.AddUsedDirs(g, d, 1)
		}
		if gd.ItableUnused > 0 && bit >= r.InodesPerGroup-gd.ItableUnused {
			r.SetItableUnused(g, d, r.InodesPerGroup-bit-1)
		}
		sb, e := superRaw(v)
		if e != 0 {
			return 0, e
		}
		r.AddSuperFree(sb, 0, -1)
		r.FreeInodes--
		return ino, 0
	}
	return 0, unix.ENOSPC
}

// freeInode gives inode ino back to its group (its blocks are freed
// already), marking it deleted (i_dtime, as e2fsck expects).
func freeInode(v *volume, ino uint32, raw []byte, dir bool) unix.Errno {
	r := &v.r
	g := (ino - 1) / r.InodesPerGroup
	bit := (ino - 1) % r.InodesPerGroup
	var gd ext4.GroupDesc
	if e := groupDesc(v, g, &gd); e != 0 {
		return e
	}
	d, bm, e := groupBits(v, g, gd.InodeBitmap)
	if e != 0 {
		return e
	}
	if !ext4.TestBit(bm, bit) {
		return unix.EUCLEAN
	}
	ext4.ClearBit(bm, bit)
	r.SetInodeBitmapCsum(g, d, bm)
	r.AddGroupFree(g, d, 0, 1)
	if dir {
		r.AddUsedDirs(g, d, -1)
	}
	sb, e := superRaw(v)
	if e != 0 {
		return e
	}
	r.AddSuperFree(sb, 0, 1)
	r.FreeInodes++
	ext4.SetInodeLinks(raw, 0)
	// i_dtime 0 would say "not deleted" to e2fsck: a clock that was
	// never set still gives 1.
	ext4.SetInodeDtime(raw, uint32(max(now()/1e9, 1)))
	r.SetInodeCsum(ino, raw)
	return 0
}

// allocBlocks takes up to want free blocks in a run, from block goal on
// (0: anywhere): the first free block at or after the goal in its group,
// then the groups after it, and as many after that one as are free. It
// answers the run's first block and length; ENOSPC when none is free.
func allocBlocks(v *volume, goal uint64, want uint32) (uint64, uint32, unix.Errno) {
	r := &v.r
	first := uint64(r.FirstDataBlock)
	if goal < first || goal >= r.BlocksCount {
		goal = first
	}
	gGoal := uint32((goal - first) / uint64(r.BlocksPerGroup))
	for k := uint32(0); k < r.Groups; k++ {
		g := (gGoal + k) % r.Groups
		var gd ext4.GroupDesc
		if e := groupDesc(v, g, &gd); e != 0 {
			return 0, 0, e
		}
		if gd.FreeBlocks == 0 {
			continue
		}
		d, e := groupDescRaw(v, g)
		if e != 0 {
			return 0, 0, e
		}
		var bm []byte
		if gd.Flags&ext4.BgBlockUninit != 0 {
			if bm, e = tx.getNew(gd.BlockBitmap); e != 0 {
				return 0, 0, e
			}
			r.InitBlockBitmap(g, &gd, bm)
			r.SetGroupFlags(g, d, gd.Flags&^ext4.BgBlockUninit)
		} else if bm, e = tx.get(gd.BlockBitmap); e != 0 {
			return 0, 0, e
		}
		gFirst := first + uint64(g)*uint64(r.BlocksPerGroup)
		n := r.GroupBlocks(g)
		start := uint32(0)
		if k == 0 {
			start = uint32(goal - gFirst)
		}
		bit, ee := ext4.FindFree(bm, n, start)
		if ee != ext4.OK {
			continue
		}
		run := uint32(1)
		for run < want && bit+run < n && !ext4.TestBit(bm, bit+run) {
			run++
		}
		for j := uint32(0); j < run; j++ {
			ext4.SetBit(bm, bit+j)
		}
		r.SetBlockBitmapCsum(g, d, bm)
		r.AddGroupFree(g, d, -int32(run), 0)
		sb, e := superRaw(v)
		if e != 0 {
			return 0, 0, e
		}
		r.AddSuperFree(sb, -int64(run), 0)
		return gFirst + uint64(bit), run, 0
	}
	return 0, 0, unix.ENOSPC
}

// freeBlocks gives blocks [start, start+n) back, group by group.
func freeBlocks(v *volume, start uint64, n uint32) unix.Errno {
	r := &v.r
	first := uint64(r.FirstDataBlock)
	if start < first || start+uint64(n) > r.BlocksCount || start+uint64(n) < start {
		return unix.EUCLEAN
	}
	for n > 0 {
		g := uint32((start - first) / uint64(r.BlocksPerGroup))
		gFirst := first + uint64(g)*uint64(r.BlocksPerGroup)
		bit := uint32(start - gFirst)
		run := min(n, r.BlocksPerGroup-bit)
		var gd ext4.GroupDesc
		if e := groupDesc(v, g, &gd); e != 0 {
			return e
		}
		d, bm, e := groupBits(v, g, gd.BlockBitmap)
		if e != 0 {
			return e
		}
		for j := uint32(0); j < run; j++ {
			if !ext4.TestBit(bm, bit+j) {
				return unix.EUCLEAN // freeing a free block: the tree is bad
			}
			ext4.ClearBit(bm, bit+j)
		}
		r.SetBlockBitmapCsum(g, d, bm)
		r.AddGroupFree(g, d, int32(run), 0)
		sb, e := superRaw(v)
		if e != 0 {
			return e
		}
		r.AddSuperFree(sb, int64(run), 0)
		tx.freed = true
		start += uint64(run)
		n -= run
	}
	return 0
}
