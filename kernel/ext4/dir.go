package ext4

import "encoding/binary"

// Directory blocks (fs/ext4/namei.c): a run of struct ext4_dir_entry_2
// (inode, rec_len, name_len, file_type, name), and with metadata_csum a
// 12-byte struct ext4_dir_entry_tail at the end holding the block's
// checksum. An htree directory (dir_index, EXT4_INDEX_FL) has index
// blocks too: block 0 (dx_root: "." and "..", whose rec_len runs to the
// end, then the root info and the hash/block pairs) and interior nodes (one
// empty entry covering the block, then the pairs), with their own
// checksum tail (struct dx_tail). Read linearly, as Linux's readdir does
// without the hash, an index block holds no names, so a lookup that reads
// every block finds every name; this package does that.
const (
	direntHdrSize = 8  // inode, rec_len, name_len, file_type
	direntTailLen = 12 // sizeof(struct ext4_dir_entry_tail)
	ftDirCsum     = 0xDE
	dxRootCount   = 32 // '.' (12) + '..' header (12) + dx_root_info (8)
	dxNodeCount   = 8  // the fake entry's header
	dxEntrySize   = 8
	dxRootInfoLen = 8
	dxTailLen     = 8
	MaxNameLen    = 255

	// File types in entries (EXT4_FT_*).
	FtUnknown = 0
	FtReg     = 1
	FtDir     = 2
	FtChrdev  = 3
	FtBlkdev  = 4
	FtFifo    = 5
	FtSock    = 6
	FtSymlink = 7
)

// DirEntry is one entry; Name aliases the block it came from.
type DirEntry struct {
	Ino    uint32
	Type   uint8
	Name   []byte
	RecLen uint32
}

// direntRecLen is the space an entry with a name of n bytes needs
// (EXT4_DIR_REC_LEN): the header and the name, rounded up to 4.
func direntRecLen(n int) uint32 { return uint32(direntHdrSize+n+3) &^ 3 }

// recLenFromDisk is ext4_rec_len_from_disk: a 64 KiB block's full length
// does not fit in 16 bits and is stored as 65535 or 0, and its low two bits
// carry bits 16-17.
func (s *Super) recLenFromDisk(v uint16) uint32 {
	if s.BlockSize < 1<<16 {
		return uint32(v)
	}
	if v == 0xFFFF || v == 0 {
		return s.BlockSize
	}
	return uint32(v&0xFFFC) | uint32(v&3)<<16
}

// DirBlockKind says what CheckDirBlock found.
type DirBlockKind uint8

const (
	DirLeaf  DirBlockKind = iota // entries (and the checksum tail)
	DirIndex                     // a dx_root or dx_node: no names past "." and ".."
)

// CheckDirBlock checks block lblk of directory in (its BlockSize bytes)
// as __ext4_read_dirblock does: an index block is block 0 of an indexed
// directory or one whose first entry is empty and covers the block, and is
// checked against its dx_tail; any other block against its entry tail.
// It returns the kind and the end of the entries (where DirNext stops).
func (s *Super) CheckDirBlock(in *Inode, lblk uint32, b []byte) (DirBlockKind, uint32, Errno) {
	if len(b) < int(s.BlockSize) {
		return DirLeaf, 0, EINVAL
	}
	b = b[:s.BlockSize]
	le := binary.LittleEndian
	bs := s.BlockSize
	kind := DirLeaf
	if s.isDxBlock(in, lblk, b) {
		kind = DirIndex
	}
	if !s.HasCsum() {
		return kind, bs, OK
	}
	if kind == DirIndex {
		return kind, bs, s.checkDxTail(in, b)
	}
	t := b[bs-direntTailLen:]
	if le.Uint32(t[0:]) != 0 || le.Uint16(t[4:]) != direntTailLen || t[6] != 0 || t[7] != ftDirCsum {
		return kind, 0, EBADMSG // no room for the checksum: as a bad one
	}
	if le.Uint32(t[8:]) != Crc32c(in.CsumSeed, b[:bs-direntTailLen]) {
		return kind, 0, EBADMSG
	}
	return kind, bs - direntTailLen, OK
}

// dxCountOffset finds an index block's count/limit pair as
// get_dx_countlimit does.
func (s *Super) dxCountOffset(b []byte) (uint32, Errno) {
	le := binary.LittleEndian
	rl := s.recLenFromDisk(le.Uint16(b[4:]))
	if rl == s.BlockSize {
		return dxNodeCount, OK
	}
	if rl != 12 || s.recLenFromDisk(le.Uint16(b[12+4:])) != s.BlockSize-12 {
		return 0, EUCLEAN
	}
	if le.Uint32(b[24:]) != 0 || b[24+5] != dxRootInfoLen {
		return 0, EUCLEAN
	}
	return dxRootCount, OK
}

// dxCsum is ext4_dx_csum: the block up to the last used pair, then the
// tail's reserved word, then the checksum field as zero.
func (s *Super) dxCsum(in *Inode, b []byte, countOff, count, tail uint32) uint32 {
	var zero [4]byte
	c := Crc32c(in.CsumSeed, b[:countOff+count*dxEntrySize])
	c = Crc32c(c, b[tail:tail+4])
	return Crc32c(c, zero[:])
}

func (s *Super) dxTail(b []byte) (countOff, count, tail uint32, e Errno) {
	le := binary.LittleEndian
	countOff, e = s.dxCountOffset(b)
	if e != OK {
		return 0, 0, 0, e
	}
	limit := uint32(le.Uint16(b[countOff:]))
	count = uint32(le.Uint16(b[countOff+2:]))
	tail = countOff + limit*dxEntrySize
	room := s.BlockSize
	if s.HasCsum() {
		room -= dxTailLen // dx_tail after the limit's entries
	}
	if tail > room || count > limit {
		return 0, 0, 0, EUCLEAN
	}
	return countOff, count, tail, OK
}

func (s *Super) checkDxTail(in *Inode, b []byte) Errno {
	countOff, count, tail, e := s.dxTail(b)
	if e != OK {
		return e
	}
	if binary.LittleEndian.Uint32(b[tail+4:]) != s.dxCsum(in, b, countOff, count, tail) {
		return EBADMSG
	}
	return OK
}

// DirNext parses the entry at off of a block CheckDirBlock accepted (end
// is what it returned) and checks it as ext4_check_dir_entry: a rec_len
// that holds the name, is 4-aligned and stays in the block; an inode
// number in range. It returns the next entry's offset; off == end means
// the block is done. An entry with Ino 0 is unused: skip it.
func (s *Super) DirNext(b []byte, off, end uint32, d *DirEntry) (uint32, Errno) {
	// lab:fs begin
	le := binary.LittleEndian
	if end > uint32(len(b)) || off+direntHdrSize > end {
		return 0, EUCLEAN
	}
	e := b[off:end]
	d.Ino = le.Uint32(e[0:])
	d.RecLen = s.recLenFromDisk(le.Uint16(e[4:]))
	n := int(e[6])
	d.Type = e[7]
	if s.Incompat&IncompatFiletype == 0 {
		// Without filetype the byte is the name length's high half
		// (struct ext4_dir_entry).
		d.Type = FtUnknown
	}
	if d.RecLen < direntRecLen(1) || d.RecLen%4 != 0 || d.RecLen < direntRecLen(n) ||
		d.RecLen > end-off || d.Ino > s.InodesCount {
		return 0, EUCLEAN
	}
	d.Name = e[direntHdrSize : direntHdrSize+n]
	return off + d.RecLen, OK
	// lab:fs stub
	// // TODO(lab fs): parse struct ext4_dir_entry_2 at b[off:]: inode
	// // (le32), rec_len (le16, through s.recLenFromDisk), name_len (u8),
	// // file_type (u8; FtUnknown without IncompatFiletype), then the
	// // name. Check it as ext4_check_dir_entry does: the header fits
	// // before end, rec_len is at least direntRecLen(1), a multiple of
	// // 4, holds the name (direntRecLen(name_len)) and stays before end,
	// // and the inode is at most s.InodesCount; else EUCLEAN. Fill d
	// // (Name a slice of b, RecLen) and return the next entry's offset.
	// _ = binary.LittleEndian
	// return 0, EUCLEAN
	// lab:fs end
}

// SetDirBlockCsum stores the checksum of directory block lblk of in after
// a change: a leaf's entry tail (ext4_dirblock_csum_set) or an index
// block's dx_tail (ext4_dx_csum_set). A leaf with no tail is EUCLEAN.
func (s *Super) SetDirBlockCsum(in *Inode, lblk uint32, b []byte) Errno {
	if !s.HasCsum() {
		return OK
	}
	b = b[:s.BlockSize]
	le := binary.LittleEndian
	bs := s.BlockSize
	if s.isDxBlock(in, lblk, b) {
		countOff, count, tail, e := s.dxTail(b)
		if e != OK {
			return e
		}
		le.PutUint32(b[tail+4:], s.dxCsum(in, b, countOff, count, tail))
		return OK
	}
	t := b[bs-direntTailLen:]
	if le.Uint32(t[0:]) != 0 || le.Uint16(t[4:]) != direntTailLen || t[6] != 0 || t[7] != ftDirCsum {
		return EUCLEAN
	}
	s.SetLeafBlockCsum(in, b)
	return OK
}

// isDxBlock is __ext4_read_dirblock's test for an index block.
func (s *Super) isDxBlock(in *Inode, lblk uint32, b []byte) bool {
	le := binary.LittleEndian
	return in.Flags&FlagIndex != 0 &&
		(lblk == 0 || (le.Uint32(b[0:]) == 0 && s.recLenFromDisk(le.Uint16(b[4:])) == s.BlockSize))
}
