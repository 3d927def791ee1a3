package ext4

import "encoding/binary"

// The extent tree (fs/ext4/ext4_extents.h): a node is a 12-byte header and
// up to eh_max 12-byte entries; the root is the inode's i_block (four
// entries), every other node a block ending in a checksum tail. Index
// entries point at the next level down; leaf entries map a run of logical
// blocks to physical ones.
const (
	extentMagic     = 0xF30A
	extentEntrySize = 12
	extentHdrSize   = 12
	// MaxExtentDepth is EXT4_MAX_EXTENT_DEPTH: a tree deeper than this is
	// corrupt, which also bounds a walk over a tree whose index points
	// back up (a cycle): each step must go exactly one level down.
	MaxExtentDepth = 5
	// extentInitMaxLen is EXT_INIT_MAX_LEN: an ee_len above it is an
	// unwritten (preallocated) extent of ee_len - 32768 blocks.
	extentInitMaxLen = 1 << 15
	// maxLogicalBlock is EXT_MAX_BLOCKS: logical blocks are 32 bits.
	maxLogicalBlock = 0xFFFFFFFF
)

// Mapping is where a run of logical blocks lives.
type Mapping struct {
	Phys      uint64 // first physical block; 0 for a hole
	Len       uint32 // blocks the mapping covers from the asked block on
	Hole      bool   // no block: reads as zeros
	Unwritten bool   // allocated but unwritten: reads as zeros too
}

// ExtentWalk is one lookup of a logical block in an inode's tree: Map
// starts it at the root, and while it answers EAGAIN the caller reads
// block Next and gives it to Step. At most MaxExtentDepth steps.
type ExtentWalk struct {
	s     *Super
	in    *Inode
	lblk  uint32
	depth uint16 // the depth the node in Next must have
	Next  uint64 // the block Step wants
	// end is the first logical block past the current subtree, from the
	// index entry that led here: a leaf's hole ends there at the latest.
	end uint64
}

// Map starts mapping logical block lblk of in. It returns OK with m when
// the root answers, EAGAIN when Step needs block w.Next, or an error.
func (s *Super) Map(in *Inode, lblk uint32, w *ExtentWalk, m *Mapping) Errno {
	if in.Flags&FlagInlineData != 0 {
		return EOPNOTSUPP
	}
	if in.Flags&FlagExtents == 0 {
		// Indirect block maps (ext2/3 files) are not read; a file with
		// no blocks at all (a fast symlink, a device) maps to nothing.
		return EOPNOTSUPP
	}
	*w = ExtentWalk{s: s, in: in, lblk: lblk, end: maxLogicalBlock + 1}
	var hdr extentHeader
	if e := parseExtentHeader(in.Block[:], &hdr); e != OK {
		return e
	}
	if hdr.depth > MaxExtentDepth {
		return EUCLEAN
	}
	w.depth = hdr.depth
	return w.node(in.Block[:], &hdr, m)
}

// Step continues the walk with the contents of block w.Next.
func (w *ExtentWalk) Step(b []byte, m *Mapping) Errno {
	if w.s == nil || len(b) < int(w.s.BlockSize) {
		return EINVAL
	}
	b = b[:w.s.BlockSize]
	var hdr extentHeader
	if e := parseExtentHeader(b, &hdr); e != OK {
		return e
	}
	if hdr.depth != w.depth {
		return EUCLEAN
	}
	if w.s.HasCsum() {
		tail := extentHdrSize + extentEntrySize*int(hdr.max)
		if binary.LittleEndian.Uint32(b[tail:]) != Crc32c(w.in.CsumSeed, b[:tail]) {
			return EBADMSG
		}
	}
	return w.node(b, &hdr, m)
}

type extentHeader struct {
	entries, max, depth uint16
}

// parseExtentHeader checks a node's header as __ext4_ext_check: magic,
// entries within max, max within the node (leaving room for the tail in
// a block).
func parseExtentHeader(b []byte, h *extentHeader) Errno {
	le := binary.LittleEndian
	if len(b) < extentHdrSize || le.Uint16(b[0:]) != extentMagic {
		return EUCLEAN
	}
	h.entries = le.Uint16(b[2:])
	h.max = le.Uint16(b[4:])
	h.depth = le.Uint16(b[6:])
	room := (len(b) - extentHdrSize) / extentEntrySize
	if len(b) > inodeBlockLen {
		// A block keeps 4 bytes for struct ext4_extent_tail.
		room = (len(b) - extentHdrSize - 4) / extentEntrySize
	}
	if h.max == 0 || int(h.max) > room || h.entries > h.max {
		return EUCLEAN
	}
	return OK
}

// node looks lblk up in one checked node.
func (w *ExtentWalk) node(b []byte, h *extentHeader, m *Mapping) Errno {
	le := binary.LittleEndian
	s := w.s
	// Entries must be sorted (ext4_valid_extent_entries); find the last
	// one starting at or before lblk.
	found := -1
	var prevEnd uint64
	for i := 0; i < int(h.entries); i++ {
		e := b[extentHdrSize+extentEntrySize*i:]
		start := uint64(le.Uint32(e[0:]))
		if start < prevEnd || (i > 0 && start == prevEnd && h.depth > 0) {
			return EUCLEAN
		}
		if h.depth == 0 {
			n := uint64(le.Uint16(e[4:]))
			if n > extentInitMaxLen {
				n -= extentInitMaxLen
			}
			phys := uint64(le.Uint16(e[6:]))<<32 | uint64(le.Uint32(e[8:]))
			// ext4_valid_extent: a non-empty run inside the volume,
			// past the first data block, not wrapping logical blocks.
			if n == 0 || phys <= uint64(s.FirstDataBlock) || phys+n > s.BlocksCount || start+n > maxLogicalBlock+1 {
				return EUCLEAN
			}
			prevEnd = start + n
		} else {
			phys := uint64(le.Uint16(e[8:]))<<32 | uint64(le.Uint32(e[4:]))
			if phys <= uint64(s.FirstDataBlock) || phys >= s.BlocksCount {
				return EUCLEAN
			}
			prevEnd = start
		}
		if start <= uint64(w.lblk) {
			found = i
		}
	}
	lblk := uint64(w.lblk)
	if h.depth > 0 {
		if found < 0 {
			*m = Mapping{Hole: true, Len: holeLen(lblk, firstStart(b, h), w.end)}
			return OK
		}
		e := b[extentHdrSize+extentEntrySize*found:]
		if found+1 < int(h.entries) {
			w.end = uint64(le.Uint32(b[extentHdrSize+extentEntrySize*(found+1):]))
		}
		w.Next = uint64(le.Uint16(e[8:]))<<32 | uint64(le.Uint32(e[4:]))
		w.depth = h.depth - 1
		return EAGAIN
	}
	if found >= 0 {
		e := b[extentHdrSize+extentEntrySize*found:]
		start := uint64(le.Uint32(e[0:]))
		n := uint64(le.Uint16(e[4:]))
		unwritten := n > extentInitMaxLen
		if unwritten {
			n -= extentInitMaxLen
		}
		if lblk < start+n {
			phys := uint64(le.Uint16(e[6:]))<<32 | uint64(le.Uint32(e[8:]))
			*m = Mapping{Phys: phys + lblk - start, Len: uint32(start + n - lblk), Unwritten: unwritten}
			return OK
		}
	}
	next := w.end
	if found+1 < int(h.entries) {
		next = uint64(le.Uint32(b[extentHdrSize+extentEntrySize*(found+1):]))
	}
	*m = Mapping{Hole: true, Len: holeLen(lblk, next, w.end)}
	return OK
}

func firstStart(b []byte, h *extentHeader) uint64 {
	if h.entries == 0 {
		return maxLogicalBlock + 1
	}
	return uint64(binary.LittleEndian.Uint32(b[extentHdrSize:]))
}

// holeLen is how many blocks from lblk are unmapped: up to next, the
// start of the following extent, and no further than end.
func holeLen(lblk, next, end uint64) uint32 {
	if end < next {
		next = end
	}
	if next <= lblk {
		return 1
	}
	if next-lblk > 1<<31 {
		return 1 << 31
	}
	return uint32(next - lblk)
}

// SetExtentBlockCsum stores the checksum tail of extent block b (a
// non-root node of in's tree), as ext4_extent_block_csum_set.
func (s *Super) SetExtentBlockCsum(in *Inode, b []byte) Errno {
	var hdr extentHeader
	if e := parseExtentHeader(b[:s.BlockSize], &hdr); e != OK {
		return e
	}
	if s.HasCsum() {
		tail := extentHdrSize + extentEntrySize*int(hdr.max)
		binary.LittleEndian.PutUint32(b[tail:], Crc32c(in.CsumSeed, b[:tail]))
	}
	return OK
}
