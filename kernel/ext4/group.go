package ext4

import "encoding/binary"

// Group descriptors (struct ext4_group_desc): 32 bytes, or s_desc_size
// (64) with the 64bit feature, packed in the blocks after the superblock's.
const (
	gdChecksumOff = 30

	BgInodeUninit = 0x0001 // EXT4_BG_INODE_UNINIT
	BgBlockUninit = 0x0002 // EXT4_BG_BLOCK_UNINIT
	BgInodeZeroed = 0x0004 // EXT4_BG_INODE_ZEROED
)

// GroupDesc is one parsed group descriptor.
type GroupDesc struct {
	BlockBitmap     uint64
	InodeBitmap     uint64
	InodeTable      uint64
	FreeBlocks      uint32
	FreeInodes      uint32
	UsedDirs        uint32
	Flags           uint16
	ItableUnused    uint32
	BlockBitmapCsum uint32
	InodeBitmapCsum uint32
	Checksum        uint16
}

// GroupDescLocation is the block holding group g's descriptor and the
// byte offset in it. Without meta_bg (refused by Support) the table starts
// in the block after the superblock's (ext4_group_desc_loc).
func (s *Super) GroupDescLocation(g uint32) (block uint64, off uint32) {
	perBlock := s.BlockSize / uint32(s.DescSize)
	return uint64(s.FirstDataBlock) + 1 + uint64(g/perBlock), (g % perBlock) * uint32(s.DescSize)
}

// groupDescCsum is ext4_group_desc_csum with metadata_csum: crc32c of the
// group number and the descriptor with its checksum field left out, low 16
// bits.
func (s *Super) groupDescCsum(g uint32, d []byte) uint16 {
	var zero [2]byte
	c := crc32cLE32(s.CsumSeed, g)
	c = Crc32c(c, d[:gdChecksumOff])
	c = Crc32c(c, zero[:])
	c = Crc32c(c, d[gdChecksumOff+2:s.DescSize])
	return uint16(c)
}

// ParseGroupDesc parses group g's descriptor from d (its DescSize bytes)
// and checks its checksum and that its bitmaps and inode table lie inside
// the volume (ext4_check_descriptors).
func (s *Super) ParseGroupDesc(g uint32, d []byte, gd *GroupDesc) Errno {
	if g >= s.Groups || len(d) < int(s.DescSize) {
		return EINVAL
	}
	le := binary.LittleEndian
	*gd = GroupDesc{
		BlockBitmap:     uint64(le.Uint32(d[0:])),
		InodeBitmap:     uint64(le.Uint32(d[4:])),
		InodeTable:      uint64(le.Uint32(d[8:])),
		FreeBlocks:      uint32(le.Uint16(d[12:])),
		FreeInodes:      uint32(le.Uint16(d[14:])),
		UsedDirs:        uint32(le.Uint16(d[16:])),
		Flags:           le.Uint16(d[18:]),
		BlockBitmapCsum: uint32(le.Uint16(d[24:])),
		InodeBitmapCsum: uint32(le.Uint16(d[26:])),
		ItableUnused:    uint32(le.Uint16(d[28:])),
		Checksum:        le.Uint16(d[gdChecksumOff:]),
	}
	if s.DescSize >= descSize64 {
		gd.BlockBitmap |= uint64(le.Uint32(d[32:])) << 32
		gd.InodeBitmap |= uint64(le.Uint32(d[36:])) << 32
		gd.InodeTable |= uint64(le.Uint32(d[40:])) << 32
		gd.FreeBlocks |= uint32(le.Uint16(d[44:])) << 16
		gd.FreeInodes |= uint32(le.Uint16(d[46:])) << 16
		gd.UsedDirs |= uint32(le.Uint16(d[48:])) << 16
		gd.ItableUnused |= uint32(le.Uint16(d[50:])) << 16
		gd.BlockBitmapCsum |= uint32(le.Uint16(d[56:])) << 16
		gd.InodeBitmapCsum |= uint32(le.Uint16(d[58:])) << 16
	}
	if s.HasCsum() && s.groupDescCsum(g, d) != gd.Checksum {
		return EBADMSG
	}
	itBlocks := (uint64(s.InodesPerGroup)*uint64(s.InodeSize) + uint64(s.BlockSize) - 1) / uint64(s.BlockSize)
	if gd.BlockBitmap <= uint64(s.FirstDataBlock) || gd.BlockBitmap >= s.BlocksCount ||
		gd.InodeBitmap <= uint64(s.FirstDataBlock) || gd.InodeBitmap >= s.BlocksCount ||
		gd.InodeTable <= uint64(s.FirstDataBlock) || gd.InodeTable+itBlocks > s.BlocksCount ||
		gd.InodeTable+itBlocks < gd.InodeTable {
		return EUCLEAN
	}
	return OK
}

// SetGroupDescCsum stores group g's checksum in its descriptor bytes d
// (the write side's update after a bitmap or count change).
func (s *Super) SetGroupDescCsum(g uint32, d []byte) {
	binary.LittleEndian.PutUint16(d[gdChecksumOff:], s.groupDescCsum(g, d))
}

// Descriptor fields the write side sets besides the counts (write.go).
const (
	gdUsedDirsLo     = 16
	gdFlagsOff       = 18
	gdItableUnusedLo = 28
	gdUsedDirsHi     = 48
	gdItableUnusedHi = 50
)

// SetGroupFlags stores bg_flags in descriptor d of group g, with its
// checksum.
func (s *Super) SetGroupFlags(g uint32, d []byte, flags uint16) {
	binary.LittleEndian.PutUint16(d[gdFlagsOff:], flags)
	s.SetGroupDescCsum(g, d)
}

// SetItableUnused stores bg_itable_unused (the inodes at the table's end
// never used, which e2fsck and the allocator skip), with the checksum.
func (s *Super) SetItableUnused(g uint32, d []byte, n uint32) {
	s.put32(d, gdItableUnusedLo, gdItableUnusedHi, n)
	s.SetGroupDescCsum(g, d)
}

// AddUsedDirs adds delta to bg_used_dirs_count, with the checksum.
func (s *Super) AddUsedDirs(g uint32, d []byte, delta int32) {
	le := binary.LittleEndian
	v := uint32(le.Uint16(d[gdUsedDirsLo:]))
	if s.DescSize >= descSize64 {
		v |= uint32(le.Uint16(d[gdUsedDirsHi:])) << 16
	}
	s.put32(d, gdUsedDirsLo, gdUsedDirsHi, uint32(int32(v)+delta))
	s.SetGroupDescCsum(g, d)
}

// put32 stores a descriptor count split in a _lo and a _hi half.
func (s *Super) put32(d []byte, lo, hi int, v uint32) {
	le := binary.LittleEndian
	le.PutUint16(d[lo:], uint16(v))
	if s.DescSize >= descSize64 {
		le.PutUint16(d[hi:], uint16(v>>16))
	}
}

// GroupHasSuper says whether group g holds a copy of the superblock and
// the descriptor table: every group, or with sparse_super group 0, 1 and
// the powers of 3, 5 and 7 (ext4_bg_has_super).
func (s *Super) GroupHasSuper(g uint32) bool {
	if g <= 1 || s.RoCompat&RoCompatSparseSuper == 0 {
		return true
	}
	if g&1 == 0 {
		return false
	}
	for _, p := range [3]uint32{3, 5, 7} {
		n := p
		for n < g {
			n *= p
		}
		if n == g {
			return true
		}
	}
	return false
}

// GroupBlocks is how many blocks group g has (the last may be short).
func (s *Super) GroupBlocks(g uint32) uint32 {
	first := uint64(s.FirstDataBlock) + uint64(g)*uint64(s.BlocksPerGroup)
	return uint32(min(uint64(s.BlocksPerGroup), s.BlocksCount-first))
}

// InitBlockBitmap makes b the block bitmap of a group still marked
// BLOCK_UNINIT (ext4_init_block_bitmap): the superblock copy, the
// descriptor table and its reserved blocks where the group has them,
// the group's own bitmaps and inode table when they lie in it, and the
// bits past its last block set.
func (s *Super) InitBlockBitmap(g uint32, gd *GroupDesc, b []byte) {
	b = b[:s.BlockSize]
	clear(b)
	first := uint64(s.FirstDataBlock) + uint64(g)*uint64(s.BlocksPerGroup)
	if s.GroupHasSuper(g) {
		perBlock := s.BlockSize / uint32(s.DescSize)
		n := 1 + (s.Groups+perBlock-1)/perBlock + uint32(s.ReservedGdt)
		for k := uint32(0); k < n; k++ {
			SetBit(b, k)
		}
	}
	mark := func(blk, n uint64) {
		for k := blk; k < blk+n; k++ {
			if k >= first && k < first+uint64(s.BlocksPerGroup) {
				SetBit(b, uint32(k-first))
			}
		}
	}
	mark(gd.BlockBitmap, 1)
	mark(gd.InodeBitmap, 1)
	mark(gd.InodeTable, (uint64(s.InodesPerGroup)*uint64(s.InodeSize)+uint64(s.BlockSize)-1)/uint64(s.BlockSize))
	for k := s.GroupBlocks(g); k < s.BlockSize*8; k++ {
		SetBit(b, k)
	}
}

// InitInodeBitmap makes b the inode bitmap of a group still marked
// INODE_UNINIT: no inode used, the bits past the group's inodes set
// (ext4_read_inode_bitmap's init).
func (s *Super) InitInodeBitmap(b []byte) {
	b = b[:s.BlockSize]
	clear(b)
	for k := s.InodesPerGroup; k < s.BlockSize*8; k++ {
		SetBit(b, k)
	}
}
