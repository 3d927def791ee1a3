package ext4fs

import (
	"github.com/gometal/gometal/kernel/ext4"

	"golang.org/x/sys/unix"
)

// Changing a file's extent tree (fs/ext4/extents.c, for the trees this
// side makes and mke2fs's): the root in the inode holds up to four
// extents; when it is full they move to a leaf block and the root
// becomes an index of up to four leaves (ext4_ext_grow_indepth); a full
// leaf splits, an append starting a leaf of its own
// (ext4_ext_split's common case). Deeper trees are read, not changed
// (EFBIG). in is the inode as parsed (for its checksum seed), raw its
// bytes in the transaction; i_blocks counts the leaves.

// maxTreeDepth is the deepest tree this side changes.
const maxTreeDepth = 1

// extentAdd maps logical blocks [lblk, lblk+n) of a file to [phys,
// phys+n); they must be a hole. The leaf blocks it takes come near phys.
func extentAdd(v *volume, in *ext4.Inode, raw []byte, lblk uint32, phys uint64, n uint32) unix.Errno {
	r := &v.r
	root := ext4.InodeBlockArea(raw)
	cnt, _, depth, ee := ext4.ExtentNode(root)
	if ee != ext4.OK {
		return errno(ee)
	}
	if depth > maxTreeDepth {
		return unix.EFBIG
	}
	if depth == 0 {
		ee = ext4.ExtentInsert(root, lblk, phys, n)
		if ee != ext4.ENOSPC {
			return errno(ee)
		}
		// Grow: the root's extents into a leaf, the root an index.
		blk, leaf, e := newLeaf(v, phys)
		if e != 0 {
			return e
		}
		for k := 0; k < int(cnt); k++ {
			ext4.PutExtent(leaf, k, ext4.GetExtent(root, k))
		}
		ext4.SetExtentEntries(leaf, cnt)
		first := ext4.GetExtent(leaf, 0).Lblk
		ext4.InitExtentNode(root, 1)
		ext4.PutIndex(root, 0, first, blk)
		ext4.SetExtentEntries(root, 1)
		if e := errno(r.AddInodeBlocks(raw, int64(r.BlockSize/512))); e != 0 {
			return e
		}
		if e := errno(r.SetExtentBlockCsum(in, leaf)); e != 0 {
			return e
		}
		cnt = 1
	}
	// Depth 1: the leaf whose range holds lblk.
	k := 0
	for k+1 < int(cnt) {
		if l, _ := ext4.GetIndex(root, k+1); l > lblk {
			break
		}
		k++
	}
	l0, child := ext4.GetIndex(root, k)
	leaf, e := tx.get(child)
	if e != 0 {
		return e
	}
	if _, _, d, ee := ext4.ExtentNode(leaf); ee != ext4.OK || d != 0 {
		return unix.EUCLEAN
	}
	ee = ext4.ExtentInsert(leaf, lblk, phys, n)
	if ee == ext4.OK {
		if lblk < l0 {
			ext4.PutIndex(root, k, lblk, child)
		}
		return errno(r.SetExtentBlockCsum(in, leaf))
	}
	if ee != ext4.ENOSPC {
		return errno(ee)
	}
	// Split the leaf: a new one after it in the index.
	if _, max, _, _ := ext4.ExtentNode(root); cnt == max {
		return unix.EFBIG
	}
	blk, nl, e := newLeaf(v, child+1)
	if e != 0 {
		return e
	}
	lc, _, _, _ := ext4.ExtentNode(leaf)
	if last := ext4.GetExtent(leaf, int(lc)-1); lblk >= last.Lblk+last.Len {
		// An append: the new leaf starts with it.
		ext4.PutExtent(nl, 0, ext4.Extent{Lblk: lblk, Len: n, Phys: phys})
		ext4.SetExtentEntries(nl, 1)
	} else {
		half := int(lc) / 2
		for j := half; j < int(lc); j++ {
			ext4.PutExtent(nl, j-half, ext4.GetExtent(leaf, j))
		}
		ext4.SetExtentEntries(nl, lc-uint16(half))
		ext4.SetExtentEntries(leaf, uint16(half))
		into := leaf
		if lblk >= ext4.GetExtent(nl, 0).Lblk {
			into = nl
		}
		if ee := ext4.ExtentInsert(into, lblk, phys, n); ee != ext4.OK {
			return errno(ee)
		}
	}
	if ee := ext4.OpenEntry(root, k+1); ee != ext4.OK {
		return errno(ee)
	}
	ext4.PutIndex(root, k+1, ext4.GetExtent(nl, 0).Lblk, blk)
	if e := errno(r.AddInodeBlocks(raw, int64(r.BlockSize/512))); e != 0 {
		return e
	}
	if e := errno(r.SetExtentBlockCsum(in, leaf)); e != 0 {
		return e
	}
	return errno(r.SetExtentBlockCsum(in, nl))
}

// newLeaf takes a block near goal for an empty leaf.
func newLeaf(v *volume, goal uint64) (uint64, []byte, unix.Errno) {
	blk, b, e := newBlock(v, goal)
	if e == 0 {
		ext4.InitExtentNode(b, 0)
	}
	return blk, b, e
}

// extentCut frees a file's blocks from logical block from on
// (ext4_ext_remove_space for a truncate), taking the leaves it empties
// and, when none is left, the root back to an empty leaf.
func extentCut(v *volume, in *ext4.Inode, raw []byte, from uint32) unix.Errno {
	r := &v.r
	if ext4.InodeFlags(raw)&ext4.FlagExtents == 0 {
		return 0 // a fast symlink or a device: no blocks
	}
	root := ext4.InodeBlockArea(raw)
	cnt, _, depth, ee := ext4.ExtentNode(root)
	if ee != ext4.OK {
		return errno(ee)
	}
	switch {
	case depth == 0:
		return cutLeaf(v, raw, root, from)
	case depth > maxTreeDepth:
		return unix.EFBIG
	}
	for k := int(cnt) - 1; k >= 0; k-- {
		_, child := ext4.GetIndex(root, k)
		leaf, e := tx.get(child)
		if e != 0 {
			return e
		}
		if _, _, d, ee := ext4.ExtentNode(leaf); ee != ext4.OK || d != 0 {
			return unix.EUCLEAN
		}
		if e := cutLeaf(v, raw, leaf, from); e != 0 {
			return e
		}
		lc, _, _, _ := ext4.ExtentNode(leaf)
		if lc == 0 {
			if e := freeBlocks(v, child, 1); e != 0 {
				return e
			}
			ext4.CloseEntry(root, k)
			if e := errno(r.AddInodeBlocks(raw, -int64(r.BlockSize/512))); e != 0 {
				return e
			}
			continue
		}
		if e := errno(r.SetExtentBlockCsum(in, leaf)); e != 0 {
			return e
		}
		if ext4.GetExtent(leaf, 0).Lblk < from {
			break // the leaves before keep everything
		}
	}
	if c, _, _, _ := ext4.ExtentNode(root); c == 0 {
		ext4.InitExtentNode(root, 0)
	}
	return 0
}

// cutLeaf frees a leaf's blocks from logical block from on.
func cutLeaf(v *volume, raw, leaf []byte, from uint32) unix.Errno {
	r := &v.r
	cnt, _, _, _ := ext4.ExtentNode(leaf)
	for k := int(cnt) - 1; k >= 0; k-- {
		x := ext4.GetExtent(leaf, k)
		if x.Lblk+x.Len <= from {
			break
		}
		drop := x.Len
		if x.Lblk < from {
			drop = x.Lblk + x.Len - from
		}
		if e := freeBlocks(v, x.Phys+uint64(x.Len-drop), drop); e != 0 {
			return e
		}
		if e := errno(r.AddInodeBlocks(raw, -int64(drop)*int64(r.BlockSize/512))); e != 0 {
			return e
		}
		if drop == x.Len {
			ext4.CloseEntry(leaf, k)
		} else {
			x.Len -= drop
			ext4.PutExtent(leaf, k, x)
		}
	}
	return 0
}
