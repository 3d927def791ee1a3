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
