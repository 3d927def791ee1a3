package ext4fs

import (
	"github.com/gometal/gometal/kernel/ext4"

	"golang.org/x/sys/unix"
)

// Changing a file's extent tree (fs/ext4/extents.c): the root in the
// inode holds up to four entries; the nodes below are blocks. An extent
// goes into the leaf whose range holds it; when that leaf is full, the
// nodes from the deepest one on its path with room down to the leaf
// split, each giving its upper half (a leaf, for an append, nothing) to
// a new node after it in its parent (ext4_ext_split); when every node
// on the path is full the root's entries first move into a block of
// their own under it, one level deeper (ext4_ext_grow_indepth). An index
// entry's key is where its child's first entry starts; an insert at a
// node's start moves the keys above it (ext4_ext_correct_indexes). in is
// the inode as parsed (for its checksum seed), raw its bytes in the
// transaction; i_blocks counts the tree's blocks.

// maxTreeDepth is the deepest tree there is (EXT4_MAX_EXTENT_DEPTH,
// fs/ext4/ext4_extents.h): five levels of 4 KiB blocks map more than
// 2^32 blocks; a deeper header is a corrupt one.
const maxTreeDepth = 5

// treeStep is one node of a path from the root to a leaf: its bytes
// (the inode's i_block, or a block in the transaction), its block (0:
// the root) and, in an index, the entry the path follows down.
type treeStep struct {
	node []byte
	blk  uint64
	k    int
}

// treePath is a root-to-leaf path; a tree of depth d fills [0, d].
type treePath [maxTreeDepth + 1]treeStep

// extentAdd maps logical blocks [lblk, lblk+n) of a file to [phys,
// phys+n); they must be a hole. The tree blocks it takes come near phys.
func extentAdd(v *volume, in *ext4.Inode, raw []byte, lblk uint32, phys uint64, n uint32) unix.Errno {
	var p treePath
	d, room, e := descend(ext4.InodeBlockArea(raw), lblk, &p)
	if e != 0 {
		return e
	}
	ee := ext4.ExtentInsert(p[d].node, lblk, phys, n)
	if ee == ext4.ENOSPC {
		if d, e = makeRoom(v, in, raw, lblk, phys, room, &p); e != 0 {
			return e
		}
		ee = ext4.ExtentInsert(p[d].node, lblk, phys, n)
	}
	if ee != ext4.OK {
		return errno(ee)
	}
	if e := nodeCsum(v, in, &p[d]); e != 0 {
		return e
	}
	return fixKeys(v, in, &p, d)
}

// descend fills p from the root down to the leaf whose range holds
// lblk (the last entry whose key is at or before it, else the first),
// checking each node's depth. It returns the tree's depth and the
// deepest level whose node has room for one more entry (-1: none).
func descend(root []byte, lblk uint32, p *treePath) (depth, room int, e unix.Errno) {
	room = -1
	p[0] = treeStep{node: root}
	_, _, d, ee := ext4.ExtentNode(root)
	if ee != ext4.OK {
		return 0, 0, errno(ee)
	}
	if d > maxTreeDepth {
		return 0, 0, unix.EUCLEAN
	}
	for lv := 0; ; lv++ {
		cnt, max, nd, ee := ext4.ExtentNode(p[lv].node)
		if ee != ext4.OK {
			return 0, 0, errno(ee)
		}
		if int(nd) != int(d)-lv {
			return 0, 0, unix.EUCLEAN
		}
		if cnt < max {
			room = lv
		}
		if nd == 0 {
			return int(d), room, 0
		}
		if cnt == 0 {
			return 0, 0, unix.EUCLEAN // an index with no children
		}
		k := entryFor(p[lv].node, cnt, lblk)
		p[lv].k = k
		_, child := ext4.GetIndex(p[lv].node, k)
		b, e := tx.get(child)
		if e != 0 {
			return 0, 0, e
		}
		p[lv+1] = treeStep{node: b, blk: child}
	}
}

// entryFor is the entry of a node of cnt entries whose range holds
// lblk: the last that starts at or before it, else the first.
func entryFor(node []byte, cnt uint16, lblk uint32) int {
	k := 0
	for k+1 < int(cnt) && ext4.EntryLblk(node, k+1) <= lblk {
		k++
	}
	return k
}

// makeRoom splits the full nodes of p below level room, from the top
// down, so that the leaf for lblk takes one more entry, growing the tree
// a level first when room is -1 (the root full too). It follows lblk
// into the halves it makes, leaves p the new path and returns its depth.
func makeRoom(v *volume, in *ext4.Inode, raw []byte, lblk uint32, phys uint64, room int, p *treePath) (int, unix.Errno) {
	root := p[0].node
	if room < 0 {
		if e := growRoot(v, in, raw, phys); e != 0 {
			return 0, e
		}
		// The root is now one entry over a block of the old root's
		// entries, which has room (a block holds more than four).
		_, blk := ext4.GetIndex(root, 0)
		b, e := tx.get(blk)
		if e != 0 {
			return 0, e
		}
		p[0] = treeStep{node: root}
		p[1] = treeStep{node: b, blk: blk}
		room = 1
	}
	_, _, d, _ := ext4.ExtentNode(root)
	for lv := room; lv < int(d); lv++ {
		parent := &p[lv]
		parent.k = entryFor(parent.node, entryCount(parent.node), lblk)
		_, child := ext4.GetIndex(parent.node, parent.k)
		b, e := tx.get(child)
		if e != 0 {
			return 0, e
		}
		p[lv+1] = treeStep{node: b, blk: child}
		if e := split(v, in, raw, lblk, phys, p, lv); e != 0 {
			return 0, e
		}
	}
	return int(d), 0
}

// split halves p's full node at level lv+1 into a new node after it in
// its parent (p[lv], which has room), and moves the path to the half
// that holds lblk.
func split(v *volume, in *ext4.Inode, raw []byte, lblk uint32, phys uint64, p *treePath, lv int) unix.Errno {
	r := &v.r
	parent, node := &p[lv], &p[lv+1]
	cnt, _, depth, ee := ext4.ExtentNode(node.node)
	if ee != ext4.OK {
		return errno(ee)
	}
	blk, nb, e := newBlock(v, phys)
	if e != 0 {
		return e
	}
	ext4.InitExtentNode(nb, depth)
	// Half each, but an append (lblk past the node's last entry) keeps
	// the node full, as ext4_ext_split's cut at the path does: a leaf
	// gives nothing, an index its last entry, which the path follows.
	from := int(cnt) / 2
	if depth == 0 {
		if last := ext4.GetExtent(node.node, int(cnt)-1); lblk >= last.Lblk+last.Len {
			from = int(cnt)
		}
	} else if lblk >= ext4.EntryLblk(node.node, int(cnt)-1) {
		from = int(cnt) - 1
	}
	if ee := ext4.MoveEntries(nb, node.node, from); ee != ext4.OK {
		return errno(ee)
	}
	key := lblk
	if from < int(cnt) {
		key = ext4.EntryLblk(nb, 0)
	}
	if ee := ext4.OpenEntry(parent.node, parent.k+1); ee != ext4.OK {
		return errno(ee)
	}
	ext4.PutIndex(parent.node, parent.k+1, key, blk)
	if e := errno(r.AddInodeBlocks(raw, int64(r.BlockSize/512))); e != 0 {
		return e
	}
	if e := errno(r.SetExtentBlockCsum(in, nb)); e != 0 {
		return e
	}
	if e := nodeCsum(v, in, node); e != 0 {
		return e
	}
	if e := nodeCsum(v, in, parent); e != 0 {
		return e
	}
	if lblk >= key {
		parent.k++
		node.node, node.blk = nb, blk
	}
	return 0
}

// growRoot moves the root's entries into a new block near goal and
// makes the root an index of that one block, a level deeper.
func growRoot(v *volume, in *ext4.Inode, raw []byte, goal uint64) unix.Errno {
	r := &v.r
	root := ext4.InodeBlockArea(raw)
	cnt, _, d, ee := ext4.ExtentNode(root)
	if ee != ext4.OK {
		return errno(ee)
	}
	if d == maxTreeDepth || cnt == 0 {
		return unix.EFBIG
	}
	blk, b, e := newBlock(v, goal)
	if e != 0 {
		return e
	}
	ext4.InitExtentNode(b, d)
	if ee := ext4.MoveEntries(b, root, 0); ee != ext4.OK {
		return errno(ee)
	}
	ext4.InitExtentNode(root, d+1)
	ext4.PutIndex(root, 0, ext4.EntryLblk(b, 0), blk)
	ext4.SetExtentEntries(root, 1)
	if e := errno(r.AddInodeBlocks(raw, int64(r.BlockSize/512))); e != 0 {
		return e
	}
	return errno(r.SetExtentBlockCsum(in, b))
}

// fixKeys carries a change at the start of p's node at level lv up the
// index keys, as far as it is a node's first entry that changed.
func fixKeys(v *volume, in *ext4.Inode, p *treePath, lv int) unix.Errno {
	for ; lv > 0; lv-- {
		first := ext4.EntryLblk(p[lv].node, 0)
		parent := &p[lv-1]
		key, child := ext4.GetIndex(parent.node, parent.k)
		if key == first {
			return 0
		}
		ext4.PutIndex(parent.node, parent.k, first, child)
		if e := nodeCsum(v, in, parent); e != 0 {
			return e
		}
		if parent.k != 0 {
			return 0
		}
	}
	return 0
}

// nodeCsum sets a block node's checksum tail (the root's is the inode's).
func nodeCsum(v *volume, in *ext4.Inode, s *treeStep) unix.Errno {
	if s.blk == 0 {
		return 0
	}
	return errno(v.r.SetExtentBlockCsum(in, s.node))
}

// entryCount is a checked node's entry count.
func entryCount(node []byte) uint16 {
	n, _, _, _ := ext4.ExtentNode(node)
	return n
}

// extentCut frees a file's blocks from logical block from on
// (ext4_ext_remove_space for a truncate), taking the tree blocks it
// empties and, when nothing is left, the root back to an empty leaf.
func extentCut(v *volume, in *ext4.Inode, raw []byte, from uint32) unix.Errno {
	if ext4.InodeFlags(raw)&ext4.FlagExtents == 0 {
		return 0 // a fast symlink or a device: no blocks
	}
	root := ext4.InodeBlockArea(raw)
	_, _, depth, ee := ext4.ExtentNode(root)
	if ee != ext4.OK {
		return errno(ee)
	}
	if depth > maxTreeDepth {
		return unix.EUCLEAN
	}
	if e := cutNode(v, in, raw, root, depth, from); e != 0 {
		return e
	}
	if entryCount(root) == 0 {
		ext4.InitExtentNode(root, 0)
	}
	return 0
}

// cutNode frees what node, at depth, maps from logical block from on,
// from its last entry back to the first that starts before from; a
// child it empties is freed and its entry removed.
func cutNode(v *volume, in *ext4.Inode, raw, node []byte, depth uint16, from uint32) unix.Errno {
	if depth == 0 {
		return cutLeaf(v, raw, node, from)
	}
	r := &v.r
	for k := int(entryCount(node)) - 1; k >= 0; k-- {
		key, child := ext4.GetIndex(node, k)
		b, e := tx.get(child)
		if e != 0 {
			return e
		}
		if _, _, d, ee := ext4.ExtentNode(b); ee != ext4.OK || d != depth-1 {
			return unix.EUCLEAN
		}
		if e := cutNode(v, in, raw, b, depth-1, from); e != 0 {
			return e
		}
		if entryCount(b) == 0 {
			if e := freeBlocks(v, child, 1); e != 0 {
				return e
			}
			ext4.CloseEntry(node, k)
			if e := errno(r.AddInodeBlocks(raw, -int64(r.BlockSize/512))); e != 0 {
				return e
			}
		} else if e := errno(r.SetExtentBlockCsum(in, b)); e != 0 {
			return e
		}
		if key < from {
			break // the entries before map nothing from on
		}
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
