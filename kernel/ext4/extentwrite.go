package ext4

import "encoding/binary"

// Changing extent tree nodes (fs/ext4/extents.c), one node at a time: the
// mount's write side walks the tree and splits it; these keep a node's
// entries sorted and its header true. A block node's checksum tail is
// the caller's (SetExtentBlockCsum) once it is done with the node.

// Extent is one leaf entry (struct ext4_extent), its length decoded.
type Extent struct {
	Lblk      uint32
	Len       uint32 // blocks
	Unwritten bool
	Phys      uint64
}

// MaxExtentLen is the longest initialized extent (EXT_INIT_MAX_LEN).
const MaxExtentLen = extentInitMaxLen

// InitExtentNode makes b an empty node of depth: the inode's i_block
// (60 bytes, 4 entries) or a block (its entries up to the tail).
func InitExtentNode(b []byte, depth uint16) {
	le := binary.LittleEndian
	room := (len(b) - extentHdrSize) / extentEntrySize
	if len(b) > inodeBlockLen {
		room = (len(b) - extentHdrSize - 4) / extentEntrySize
	}
	clear(b)
	le.PutUint16(b[0:], extentMagic)
	le.PutUint16(b[2:], 0)
	le.PutUint16(b[4:], uint16(room))
	le.PutUint16(b[6:], depth)
}

// ExtentNode answers a checked node's entries, max and depth.
func ExtentNode(b []byte) (entries, max, depth uint16, e Errno) {
	var h extentHeader
	if e := parseExtentHeader(b, &h); e != OK {
		return 0, 0, 0, e
	}
	return h.entries, h.max, h.depth, OK
}

// SetExtentEntries sets a node's entry count.
func SetExtentEntries(b []byte, n uint16) { binary.LittleEndian.PutUint16(b[2:], n) }

func entryAt(b []byte, k int) []byte { return b[extentHdrSize+extentEntrySize*k:] }

// GetExtent reads leaf entry k.
func GetExtent(b []byte, k int) Extent {
	le := binary.LittleEndian
	e := entryAt(b, k)
	x := Extent{Lblk: le.Uint32(e[0:]), Len: uint32(le.Uint16(e[4:]))}
	if x.Len > extentInitMaxLen {
		x.Len -= extentInitMaxLen
		x.Unwritten = true
	}
	x.Phys = uint64(le.Uint16(e[6:]))<<32 | uint64(le.Uint32(e[8:]))
	return x
}

// PutExtent writes leaf entry k.
func PutExtent(b []byte, k int, x Extent) {
	le := binary.LittleEndian
	e := entryAt(b, k)
	n := x.Len
	if x.Unwritten {
		n += extentInitMaxLen
	}
	le.PutUint32(e[0:], x.Lblk)
	le.PutUint16(e[4:], uint16(n))
	le.PutUint16(e[6:], uint16(x.Phys>>32))
	le.PutUint32(e[8:], uint32(x.Phys))
}

// GetIndex reads index entry k (struct ext4_extent_idx): the first
// logical block under it and the child node's block.
func GetIndex(b []byte, k int) (lblk uint32, child uint64) {
	le := binary.LittleEndian
	e := entryAt(b, k)
	return le.Uint32(e[0:]), uint64(le.Uint16(e[8:]))<<32 | uint64(le.Uint32(e[4:]))
}

// PutIndex writes index entry k.
func PutIndex(b []byte, k int, lblk uint32, child uint64) {
	le := binary.LittleEndian
	e := entryAt(b, k)
	le.PutUint32(e[0:], lblk)
	le.PutUint32(e[4:], uint32(child))
	le.PutUint16(e[8:], uint16(child>>32))
	le.PutUint16(e[10:], 0)
}

// OpenEntry makes room for an entry at k, moving k and those after it
// up one (the count grows by one); ENOSPC when the node is full.
func OpenEntry(b []byte, k int) Errno {
	n, max, _, e := ExtentNode(b)
	if e != OK {
		return e
	}
	if n == max {
		return ENOSPC
	}
	copy(entryAt(b, k+1)[:extentEntrySize*(int(n)-k)], entryAt(b, k)[:extentEntrySize*(int(n)-k)])
	SetExtentEntries(b, n+1)
	return OK
}

// EntryLblk is the first logical block entry k of a node covers: a
// leaf's extent start or an index's key (both the entry's first le32).
func EntryLblk(b []byte, k int) uint32 { return binary.LittleEndian.Uint32(entryAt(b, k)) }

// MoveEntries moves src's entries from k on to the end of dst, a node
// of the same depth: the upper half a split gives its new sibling
// (ext4_ext_split), or a full root's entries into the block that takes
// its place (ext4_ext_grow_indepth). ENOSPC when dst has no room for
// them, EINVAL when the depths differ or k is past src's entries.
func MoveEntries(dst, src []byte, k int) Errno {
	dn, dmax, dd, e := ExtentNode(dst)
	if e != OK {
		return e
	}
	sn, _, sd, e := ExtentNode(src)
	if e != OK {
		return e
	}
	if dd != sd || k < 0 || k > int(sn) {
		return EINVAL
	}
	m := int(sn) - k
	if int(dn)+m > int(dmax) {
		return ENOSPC
	}
	copy(entryAt(dst, int(dn))[:extentEntrySize*m], entryAt(src, k)[:extentEntrySize*m])
	SetExtentEntries(dst, dn+uint16(m))
	SetExtentEntries(src, uint16(k))
	return OK
}

// CloseEntry removes entry k, moving those after it down.
func CloseEntry(b []byte, k int) {
	n := binary.LittleEndian.Uint16(b[2:])
	copy(entryAt(b, k)[:extentEntrySize*(int(n)-k-1)], entryAt(b, k+1)[:extentEntrySize*(int(n)-k-1)])
	SetExtentEntries(b, n-1)
}

// ExtentInsert maps logical blocks [lblk, lblk+n) to [phys, phys+n),
// initialized, in a leaf that has no mapping for them: it lengthens the
// extent before when the run continues it on the disk, else the one
// after when the run leads into it, else adds an entry in order
// (ext4_ext_insert_extent's merges). ENOSPC when the leaf is full.
func ExtentInsert(node []byte, lblk uint32, phys uint64, n uint32) Errno {
	cnt, _, depth, e := ExtentNode(node)
	if e != OK {
		return e
	}
	if depth != 0 || n == 0 || n > extentInitMaxLen {
		return EINVAL
	}
	k := 0 // the first entry after lblk
	for k < int(cnt) && GetExtent(node, k).Lblk < lblk {
		k++
	}
	if k > 0 {
		p := GetExtent(node, k-1)
		if p.Lblk+p.Len > lblk {
			return EINVAL // overlaps
		}
		if !p.Unwritten && p.Lblk+p.Len == lblk && p.Phys+uint64(p.Len) == phys && p.Len+n <= extentInitMaxLen {
			p.Len += n
			if k < int(cnt) {
				// The run may now also reach the next extent.
				if x := GetExtent(node, k); !x.Unwritten && x.Lblk == p.Lblk+p.Len && x.Phys == p.Phys+uint64(p.Len) && p.Len+x.Len <= extentInitMaxLen {
					p.Len += x.Len
					CloseEntry(node, k)
				}
			}
			PutExtent(node, k-1, p)
			return OK
		}
	}
	if k < int(cnt) {
		x := GetExtent(node, k)
		if lblk+n > x.Lblk {
			return EINVAL
		}
		if !x.Unwritten && lblk+n == x.Lblk && phys+uint64(n) == x.Phys && x.Len+n <= extentInitMaxLen {
			PutExtent(node, k, Extent{Lblk: lblk, Len: x.Len + n, Phys: phys})
			return OK
		}
	}
	if e := OpenEntry(node, k); e != OK {
		return e
	}
	PutExtent(node, k, Extent{Lblk: lblk, Len: n, Phys: phys})
	return OK
}
