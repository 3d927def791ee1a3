package ext4

import "encoding/binary"

// The write side's primitives, pure functions over the same blocks: a bit
// from a bitmap with its checksum, a directory entry in or out of a block,
// an extent added to a leaf, and the checksums each change leaves to set
// (SetInodeCsum, SetDirBlockCsum, SetExtentBlockCsum, SetGroupDescCsum,
// SetSuperCsum). What calls them in order (a transaction) is the mount's.

// ENOSPC: no room (bitmap full, block full, leaf full).
const ENOSPC Errno = 28

// FindFree returns the first clear bit of bitmap at or after goal, then
// wrapping to 0, among its first n bits (ext4_find_next_zero_bit).
func FindFree(bitmap []byte, n, goal uint32) (uint32, Errno) {
	if n > uint32(len(bitmap))*8 {
		return 0, EINVAL
	}
	if goal >= n {
		goal = 0
	}
	for i := uint32(0); i < n; i++ {
		bit := goal + i
		if bit >= n {
			bit -= n
		}
		if bitmap[bit/8]&(1<<(bit%8)) == 0 {
			return bit, OK
		}
	}
	return 0, ENOSPC
}

// SetBit and ClearBit change one bit; TestBit reads it.
func SetBit(bitmap []byte, bit uint32)       { bitmap[bit/8] |= 1 << (bit % 8) }
func ClearBit(bitmap []byte, bit uint32)     { bitmap[bit/8] &^= 1 << (bit % 8) }
func TestBit(bitmap []byte, bit uint32) bool { return bitmap[bit/8]&(1<<(bit%8)) != 0 }

// Bitmap checksums (ext4_block_bitmap_csum_set,
// ext4_inode_bitmap_csum_set): crc32c of the bitmap's used bytes, the
// low 16 bits in the descriptor's _lo field and the high in _hi with
// 64-byte descriptors.
const (
	gdBlockBitmapCsumLo = 24
	gdInodeBitmapCsumLo = 26
	gdBlockBitmapCsumHi = 56
	gdInodeBitmapCsumHi = 58
	gdFreeBlocksLo      = 12
	gdFreeInodesLo      = 14
	gdFreeBlocksHi      = 44
	gdFreeInodesHi      = 46
)

// SetBlockBitmapCsum stores block bitmap b's checksum in descriptor d of
// group g and the descriptor's own checksum.
func (s *Super) SetBlockBitmapCsum(g uint32, d, b []byte) {
	s.setBitmapCsum(g, d, b[:s.BlocksPerGroup/8], gdBlockBitmapCsumLo, gdBlockBitmapCsumHi)
}

// SetInodeBitmapCsum is SetBlockBitmapCsum for the inode bitmap.
func (s *Super) SetInodeBitmapCsum(g uint32, d, b []byte) {
	s.setBitmapCsum(g, d, b[:s.InodesPerGroup/8], gdInodeBitmapCsumLo, gdInodeBitmapCsumHi)
}

func (s *Super) setBitmapCsum(g uint32, d, used []byte, lo, hi int) {
	if s.HasCsum() {
		c := Crc32c(s.CsumSeed, used)
		binary.LittleEndian.PutUint16(d[lo:], uint16(c))
		if s.DescSize >= descSize64 {
			binary.LittleEndian.PutUint16(d[hi:], uint16(c>>16))
		}
	}
	s.SetGroupDescCsum(g, d)
}

// AddGroupFree adds delta (negative to take) to group g's free block and
// free inode counts in descriptor d and sets its checksum.
func (s *Super) AddGroupFree(g uint32, d []byte, blocks, inodes int32) {
	le := binary.LittleEndian
	fb := uint32(le.Uint16(d[gdFreeBlocksLo:]))
	fi := uint32(le.Uint16(d[gdFreeInodesLo:]))
	if s.DescSize >= descSize64 {
		fb |= uint32(le.Uint16(d[gdFreeBlocksHi:])) << 16
		fi |= uint32(le.Uint16(d[gdFreeInodesHi:])) << 16
	}
	fb = uint32(int32(fb) + blocks)
	fi = uint32(int32(fi) + inodes)
	le.PutUint16(d[gdFreeBlocksLo:], uint16(fb))
	le.PutUint16(d[gdFreeInodesLo:], uint16(fi))
	if s.DescSize >= descSize64 {
		le.PutUint16(d[gdFreeBlocksHi:], uint16(fb>>16))
		le.PutUint16(d[gdFreeInodesHi:], uint16(fi>>16))
	}
	s.SetGroupDescCsum(g, d)
}

// AddSuperFree adds to the superblock's free counts (sb: its 1024 bytes)
// and sets its checksum.
func (s *Super) AddSuperFree(sb []byte, blocks int64, inodes int32) {
	le := binary.LittleEndian
	fb := uint64(le.Uint32(sb[12:]))
	if s.Incompat&Incompat64bit != 0 {
		fb |= uint64(le.Uint32(sb[344:])) << 32
	}
	fb = uint64(int64(fb) + blocks)
	le.PutUint32(sb[12:], uint32(fb))
	if s.Incompat&Incompat64bit != 0 {
		le.PutUint32(sb[344:], uint32(fb>>32))
	}
	le.PutUint32(sb[16:], uint32(int32(le.Uint32(sb[16:]))+inodes))
	s.FreeBlocks = fb
	SetSuperCsum(sb)
}

// SetRecover puts needs_recovery on superblock sb (its 1024 bytes), with
// the checksum: the journal holds transactions a mount must replay
// (set while a volume is mounted read-write, as Linux keeps it).
func SetRecover(sb []byte) {
	le := binary.LittleEndian
	le.PutUint32(sb[superIncompatOff:], le.Uint32(sb[superIncompatOff:])|IncompatRecover)
	SetSuperCsum(sb)
}

// ClearRecover takes needs_recovery off superblock sb (its 1024 bytes)
// once the journal is replayed (ext4_mark_recovery_complete), with the
// checksum.
func ClearRecover(sb []byte) {
	le := binary.LittleEndian
	le.PutUint32(sb[superIncompatOff:], le.Uint32(sb[superIncompatOff:])&^IncompatRecover)
	SetSuperCsum(sb)
}

// SetSuperCsum stores the superblock's checksum (ext4_superblock_csum_set).
func SetSuperCsum(sb []byte) {
	if binary.LittleEndian.Uint32(sb[100:])&RoCompatMetadataCsum == 0 {
		return
	}
	binary.LittleEndian.PutUint32(sb[superChecksumOff:], Crc32c(^uint32(0), sb[:superChecksumOff]))
}

// DirAdd puts an entry (ino, type, name) into a directory block's entries
// [0, end): into an unused entry big enough, or the slack after a used
// one, which it splits (ext4_insert_dentry). ENOSPC when neither is there.
// The caller then sets the block's checksum.
func (s *Super) DirAdd(b []byte, end, ino uint32, typ uint8, name []byte) Errno {
	if len(name) == 0 || len(name) > MaxNameLen {
		return EINVAL
	}
	need := direntRecLen(len(name))
	le := binary.LittleEndian
	var d DirEntry
	for off := uint32(0); off < end; {
		next, e := s.DirNext(b, off, end, &d)
		if e != OK {
			return e
		}
		if string(d.Name) == string(name) && d.Ino != 0 {
			return EINVAL // EEXIST is the caller's: it looked the name up
		}
		used := uint32(0)
		if d.Ino != 0 {
			used = direntRecLen(len(d.Name))
		}
		if d.RecLen-used >= need {
			at := off
			if used != 0 {
				s.putRecLen(b[off+4:], used)
				at = off + used
			}
			s.putRecLen(b[at+4:], d.RecLen-used)
			le.PutUint32(b[at:], ino)
			b[at+6] = byte(len(name))
			b[at+7] = typ
			copy(b[at+direntHdrSize:], name)
			return OK
		}
		off = next
	}
	return ENOSPC
}

// DirRemove takes name out of a block's entries: the previous entry
// absorbs its space, or, first in the block, it becomes unused
// (ext4_generic_delete_entry). It returns the inode the name was for.
func (s *Super) DirRemove(b []byte, end uint32, name []byte) (uint32, Errno) {
	var d DirEntry
	off, prev, e := s.findEntry(b, end, name, &d)
	if e != OK {
		return 0, e
	}
	if prev == noPrev {
		binary.LittleEndian.PutUint32(b[off:], 0)
		return d.Ino, OK
	}
	var p DirEntry
	if _, e := s.DirNext(b, prev, end, &p); e != OK {
		return 0, e
	}
	s.putRecLen(b[prev+4:], p.RecLen+d.RecLen)
	return d.Ino, OK
}

// noPrev is findEntry's prev for the block's first entry.
const noPrev = ^uint32(0)

// findEntry finds name's entry among a block's entries [0, end): its
// offset, the offset of the entry before it (noPrev for the first), the
// entry in d; ENOENT when the block does not hold it.
func (s *Super) findEntry(b []byte, end uint32, name []byte, d *DirEntry) (off, prev uint32, e Errno) {
	prev = noPrev
	for off < end {
		next, e := s.DirNext(b, off, end, d)
		if e != OK {
			return 0, 0, e
		}
		if d.Ino != 0 && string(d.Name) == string(name) {
			return off, prev, OK
		}
		prev, off = off, next
	}
	return 0, 0, ENOENT
}

// putRecLen is ext4_rec_len_to_disk.
func (s *Super) putRecLen(b []byte, n uint32) {
	v := uint16(n)
	if s.BlockSize >= 1<<16 {
		if n == s.BlockSize {
			v = 0xFFFF
		} else {
			v = uint16(n&0xFFFC) | uint16(n>>16)&3
		}
	}
	binary.LittleEndian.PutUint16(b, v)
}
