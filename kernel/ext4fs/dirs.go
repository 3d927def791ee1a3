package ext4fs

import (
	"github.com/gometal/gometal/kernel/ext4"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Changing directories (fs/ext4/namei.c): a name goes into the first
// block with room for it, or a new block at the directory's end; a name
// comes out of the block that holds it (the entry before absorbs it).
// An htree directory keeps its index while names only go (a leaf stays
// where its hash says); the first name added to one turns it into a
// linear directory (ext4.InitDirBlock over its index blocks,
// EXT4_INDEX_FL off), which every lookup here and in Linux reads alike.

var (
	// dirHint is the directory block a name last went into or out of:
	// the next change to that directory looks there first (a linear
	// directory is read block by block, each checked, so a thousand
	// creates in one directory would read it a thousand times over).
	dirHint struct {
		v    *volume
		ino  uint32
		lblk uint32
	}
	dirScratch [mm.PageSize]byte // a block tried before it joins the transaction
	dxKids     [512]uint32       // an index block's children (at most 508)
	dxKids2    [512]uint32
	editInode  ext4.Inode // the directory being changed
)

// dirPhys maps block lblk of directory in; a hole is corruption.
func dirPhys(v *volume, in *ext4.Inode, lblk uint32) (uint64, unix.Errno) {
	var m ext4.Mapping
	if e := v.r.MapBlock(in, lblk, &m); e != ext4.OK {
		return 0, errno(e)
	}
	if m.Hole || m.Unwritten || m.Phys >= v.r.BlocksCount {
		return 0, unix.EUCLEAN
	}
	return m.Phys, 0
}

// dirLeaf reads block lblk of directory din, checked: its disk block,
// its bytes and the end of its entries; nil bytes for an index block,
// which holds no names.
func dirLeaf(v *volume, din *ext4.Inode, lblk uint32) (uint64, []byte, uint32, unix.Errno) {
	phys, e := dirPhys(v, din, lblk)
	if e != 0 {
		return 0, nil, 0, e
	}
	b, ee := v.src.Block(phys)
	if ee != ext4.OK {
		return 0, nil, 0, unix.EIO
	}
	kind, end, ee := v.r.CheckDirBlock(din, lblk, b)
	if ee != ext4.OK {
		return 0, nil, 0, errno(ee)
	}
	if kind != ext4.DirLeaf {
		return phys, nil, 0, 0
	}
	return phys, b, end, 0
}

// dirBlocks is how many blocks directory in has.
func dirBlocks(v *volume, in *ext4.Inode) uint32 {
	return uint32(in.Size >> v.r.LogBlockSize)
}

// dirAdd puts name (inode ino, entry type typ) into directory dino.
func dirAdd(v *volume, dino uint32, name []byte, ino uint32, typ uint8) unix.Errno {
	r := &v.r
	din := &editInode
	if e := r.Inode(dino, din); e != ext4.OK {
		return errno(e)
	}
	if din.Flags&ext4.FlagIndex != 0 {
		if e := unindex(v, din); e != 0 {
			return e
		}
		if e := r.Inode(dino, din); e != ext4.OK {
			return errno(e)
		}
	}
	n := dirBlocks(v, din)
	for k := uint32(0); k < n; k++ {
		lblk := hinted(v, dino, k, n)
		phys, b, end, e := dirLeaf(v, din, lblk)
		if e != 0 {
			return e
		}
		if b == nil {
			continue
		}
		sc := dirScratch[:r.BlockSize]
		copy(sc, b)
		if r.DirAdd(sc, end, ino, typ, name) != ext4.OK {
			continue
		}
		tb, e := tx.get(phys)
		if e != 0 {
			return e
		}
		copy(tb, sc)
		setHint(v, dino, lblk)
		return errno(r.SetDirBlockCsum(din, lblk, tb))
	}
	// No room: a new block at the end, after the last one.
	last := uint64(0)
	if n > 0 {
		var e unix.Errno
		if last, e = dirPhys(v, din, n-1); e != 0 {
			return e
		}
	}
	phys, tb, e := newBlock(v, last+1)
	if e != 0 {
		return e
	}
	end := r.InitDirBlock(tb)
	if ee := r.DirAdd(tb, end, ino, typ, name); ee != ext4.OK {
		return errno(ee)
	}
	raw, e := inodeRaw(v, dino)
	if e != 0 {
		return e
	}
	if e := extentAdd(v, din, raw, n, phys, 1); e != 0 {
		freeBlocks(v, phys, 1)
		return e
	}
	ext4.SetInodeSize(raw, uint64(n+1)<<r.LogBlockSize)
	if e := errno(r.AddInodeBlocks(raw, int64(r.BlockSize/512))); e != 0 {
		return e
	}
	r.SetInodeCsum(dino, raw)
	setHint(v, dino, n)
	return errno(r.SetDirBlockCsum(din, n, tb))
}

// hinted is the k-th block of directory dino's n to look in: from the
// hint on, round to it.
func hinted(v *volume, dino, k, n uint32) uint32 {
	if dirHint.v != v || dirHint.ino != dino || dirHint.lblk >= n {
		return k
	}
	return (dirHint.lblk + k) % n
}

func setHint(v *volume, dino, lblk uint32) {
	dirHint.v, dirHint.ino, dirHint.lblk = v, dino, lblk
}

// dirEdit finds name in directory dino and takes it out (set false) or
// points it at ino with type typ (set true); it answers the inode the
// name was for, ENOENT when there is none.
func dirEdit(v *volume, dino uint32, name []byte, set bool, ino uint32, typ uint8) (uint32, unix.Errno) {
	r := &v.r
	din := &editInode
	if e := r.Inode(dino, din); e != ext4.OK {
		return 0, errno(e)
	}
	n := dirBlocks(v, din)
	for k := uint32(0); k < n; k++ {
		lblk := hinted(v, dino, k, n)
		phys, b, end, e := dirLeaf(v, din, lblk)
		if e != 0 {
			return 0, e
		}
		if b == nil {
			continue
		}
		if _, _, ee := r.DirFind(b, end, name); ee == ext4.ENOENT {
			continue
		}
		tb, e := tx.get(phys)
		if e != 0 {
			return 0, e
		}
		var old uint32
		var ee ext4.Errno
		if set {
			old, ee = r.DirSetEntry(tb, end, name, ino, typ)
		} else {
			old, ee = r.DirRemove(tb, end, name)
		}
		if ee != ext4.OK {
			return 0, errno(ee)
		}
		setHint(v, dino, lblk)
		return old, errno(r.SetDirBlockCsum(din, lblk, tb))
	}
	return 0, unix.ENOENT
}

// dirEmpty says whether directory dino holds no names but "." and "..".
func dirEmpty(v *volume, dino uint32) (bool, unix.Errno) {
	r := &v.r
	din := &editInode
	if e := r.Inode(dino, din); e != ext4.OK {
		return false, errno(e)
	}
	for lblk := uint32(0); lblk < dirBlocks(v, din); lblk++ {
		_, b, end, e := dirLeaf(v, din, lblk)
		if e != 0 {
			return false, e
		}
		if b == nil {
			continue
		}
		if empty, ee := r.DirEmpty(b, end); ee != ext4.OK || !empty {
			return false, errno(ee)
		}
	}
	return true, 0
}

// unindex turns htree directory din into a linear one: block 0 becomes
// "." and "..", each interior index block an empty block, and the
// inode loses EXT4_INDEX_FL; the leaves stay as they are.
func unindex(v *volume, din *ext4.Inode) unix.Errno {
	r := &v.r
	phys, e := dirPhys(v, din, 0)
	if e != 0 {
		return e
	}
	b, ee := v.src.Block(phys)
	if ee != ext4.OK {
		return unix.EIO
	}
	levels, nk, ee := r.DxRoot(b, dxKids[:])
	if ee != ext4.OK {
		return unix.EUCLEAN
	}
	if levels > 1 {
		return unix.EFBIG // a three-level tree (largedir): millions of names
	}
	parent := uint32(b[12]) | uint32(b[13])<<8 | uint32(b[14])<<16 | uint32(b[15])<<24
	// The interior blocks: levels 1 and 2 below the root.
	for l := 1; l <= levels; l++ {
		next := 0
		for k := 0; k < nk; k++ {
			p, e := dirPhys(v, din, dxKids[k])
			if e != 0 {
				return e
			}
			ib, ee := v.src.Block(p)
			if ee != ext4.OK {
				return unix.EIO
			}
			if l < levels {
				m, ee := r.DxNode(ib, dxKids2[next:])
				if ee != ext4.OK {
					return unix.EUCLEAN
				}
				next += m
			}
			tb, e := tx.get(p)
			if e != 0 {
				return e
			}
			r.InitDirBlock(tb)
			r.SetLeafBlockCsum(din, tb)
		}
		nk = copy(dxKids[:], dxKids2[:next])
	}
	tb, e := tx.get(phys)
	if e != 0 {
		return e
	}
	r.InitDotsBlock(tb, din.Ino, parent)
	r.SetLeafBlockCsum(din, tb)
	raw, e := inodeRaw(v, din.Ino)
	if e != 0 {
		return e
	}
	ext4.SetInodeFlags(raw, ext4.InodeFlags(raw)&^ext4.FlagIndex)
	r.SetInodeCsum(din.Ino, raw)
	return 0
}
