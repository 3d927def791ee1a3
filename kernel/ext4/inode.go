package ext4

import "encoding/binary"

// Inodes (struct ext4_inode): 128 bytes, then i_extra_isize more of the
// large inode (the rest of s_inode_size is in-inode extended attributes).
const (
	inodeBlockOff     = 40
	inodeBlockLen     = 60 // i_block: 15 32-bit words
	inodeChecksumLo   = 124
	inodeExtraIsize   = 128
	inodeChecksumHi   = 130
	inodeCtimeExtra   = 132
	inodeMtimeExtra   = 136
	inodeAtimeExtra   = 140
	inodeCrtime       = 144
	inodeCrtimeExtra  = 148
	inodeExtraEnd     = 160 // sizeof(struct ext4_inode)
	epochBits         = 2   // EXT4_EPOCH_BITS
	epochMask         = 1<<epochBits - 1
	fastSymlinkMaxLen = inodeBlockLen

	// i_flags (EXT4_*_FL).
	FlagEncrypt    = 0x00000800
	FlagIndex      = 0x00001000
	FlagHugeFile   = 0x00040000
	FlagExtents    = 0x00080000
	FlagVerity     = 0x00100000
	FlagEaInode    = 0x00200000
	FlagInlineData = 0x10000000
	FlagCasefold   = 0x40000000

	// i_mode's type (stat.h).
	SIFMT   = 0o170000
	SIFSOCK = 0o140000
	SIFLNK  = 0o120000
	SIFREG  = 0o100000
	SIFBLK  = 0o060000
	SIFDIR  = 0o040000
	SIFCHR  = 0o020000
	SIFIFO  = 0o010000
)

// Time is a decoded timestamp: seconds since the epoch (34 bits with the
// extra field's epoch bits) and nanoseconds.
type Time struct {
	Sec  int64
	Nsec uint32
}

// Inode is a parsed inode.
type Inode struct {
	Ino        uint32
	Mode       uint16
	UID, GID   uint32
	Size       uint64
	Atime      Time
	Ctime      Time
	Mtime      Time
	Crtime     Time
	Dtime      uint32
	Links      uint16
	Blocks     uint64 // in 512-byte units, as stat's st_blocks
	Flags      uint32
	Generation uint32
	FileACL    uint64
	ExtraIsize uint16
	Block      [inodeBlockLen]byte // i_block: extent root, fast symlink or device number
	// CsumSeed seeds this inode's extent, directory and xattr checksums:
	// crc32c(crc32c(fs seed, ino), generation) (ext4_iget).
	CsumSeed uint32
}

// InodeLocation is the byte offset of inode ino within its group's inode
// table and the group: the caller reads the table's block
// gd.InodeTable + off/BlockSize.
func (s *Super) InodeLocation(ino uint32) (group uint32, off uint64, e Errno) {
	if ino == 0 || ino > s.InodesCount {
		return 0, 0, EUCLEAN
	}
	idx := (ino - 1) % s.InodesPerGroup
	return (ino - 1) / s.InodesPerGroup, uint64(idx) * uint64(s.InodeSize), OK
}

// decodeTime is ext4_decode_extra_time: the low 32 bits are signed
// seconds, the extra field's low two bits extend them, its upper 30 bits
// are nanoseconds.
func decodeTime(lo uint32, extra uint32, hasExtra bool) Time {
	t := Time{Sec: int64(int32(lo))}
	if hasExtra {
		t.Sec += int64(extra&epochMask) << 32
		t.Nsec = extra >> epochBits
	}
	return t
}

// inodeCsum is ext4_inode_csum: crc32c over the inode number, its
// generation and the whole on-disk inode with its checksum fields zeroed.
func (s *Super) inodeCsum(ino uint32, raw []byte, hasHi bool) uint32 {
	var zero [2]byte
	gen := binary.LittleEndian.Uint32(raw[100:])
	c := crc32cLE32(s.CsumSeed, ino)
	c = crc32cLE32(c, gen)
	c = Crc32c(c, raw[:inodeChecksumLo])
	c = Crc32c(c, zero[:])
	if len(raw) <= goodOldInodeSize {
		return Crc32c(c, raw[inodeChecksumLo+2:])
	}
	c = Crc32c(c, raw[inodeChecksumLo+2:inodeChecksumHi])
	if hasHi {
		c = Crc32c(c, zero[:])
	} else {
		c = Crc32c(c, raw[inodeChecksumHi:inodeChecksumHi+2])
	}
	return Crc32c(c, raw[inodeChecksumHi+2:])
}

// fits says whether the large-inode field at off..off+size is inside
// i_extra_isize (EXT4_FITS_IN_INODE).
func fits(extra uint16, off, size int) bool {
	return off+size <= goodOldInodeSize+int(extra)
}

// ParseInode parses inode ino from raw (its s_inode_size bytes) and checks
// it as ext4_iget does: the checksum, i_extra_isize and the flags this
// package cannot read.
func (s *Super) ParseInode(ino uint32, raw []byte, in *Inode) Errno {
	if len(raw) < int(s.InodeSize) {
		return EINVAL
	}
	raw = raw[:s.InodeSize]
	le := binary.LittleEndian
	*in = Inode{Ino: ino}
	if s.InodeSize > goodOldInodeSize {
		in.ExtraIsize = le.Uint16(raw[inodeExtraIsize:])
		// ext4_iget_extra_inode: within the inode, 4-byte aligned.
		if int(in.ExtraIsize)+goodOldInodeSize > int(s.InodeSize) || in.ExtraIsize&3 != 0 {
			return EUCLEAN
		}
	}
	hasHi := fits(in.ExtraIsize, inodeChecksumHi, 2) && s.InodeSize > goodOldInodeSize
	if s.HasCsum() {
		c := s.inodeCsum(ino, raw, hasHi)
		stored := uint32(le.Uint16(raw[inodeChecksumLo:]))
		if hasHi {
			stored |= uint32(le.Uint16(raw[inodeChecksumHi:])) << 16
		} else {
			c &= 0xFFFF
		}
		if c != stored {
			return EBADMSG
		}
	}
	in.Mode = le.Uint16(raw[0:])
	in.UID = uint32(le.Uint16(raw[2:])) | uint32(le.Uint16(raw[120:]))<<16
	in.GID = uint32(le.Uint16(raw[24:])) | uint32(le.Uint16(raw[122:]))<<16
	in.Size = uint64(le.Uint32(raw[4:])) | uint64(le.Uint32(raw[108:]))<<32
	in.Dtime = le.Uint32(raw[20:])
	in.Links = le.Uint16(raw[26:])
	in.Flags = le.Uint32(raw[32:])
	in.Generation = le.Uint32(raw[100:])
	in.FileACL = uint64(le.Uint32(raw[104:])) | uint64(le.Uint16(raw[118:]))<<32
	copy(in.Block[:], raw[inodeBlockOff:inodeBlockOff+inodeBlockLen])
	x := in.ExtraIsize
	in.Atime = decodeTime(le.Uint32(raw[8:]), extraAt(raw, x, inodeAtimeExtra), fits(x, inodeAtimeExtra, 4))
	in.Ctime = decodeTime(le.Uint32(raw[12:]), extraAt(raw, x, inodeCtimeExtra), fits(x, inodeCtimeExtra, 4))
	in.Mtime = decodeTime(le.Uint32(raw[16:]), extraAt(raw, x, inodeMtimeExtra), fits(x, inodeMtimeExtra, 4))
	if fits(x, inodeCrtime, 4) {
		in.Crtime = decodeTime(le.Uint32(raw[inodeCrtime:]), extraAt(raw, x, inodeCrtimeExtra), fits(x, inodeCrtimeExtra, 4))
	}
	in.Blocks = s.InodeBlocks(raw)
	// A size above 2^63 is ext4_iget's "bad i_size" (EFSCORRUPTED).
	if int64(in.Size) < 0 {
		return EUCLEAN
	}
	if s.HasCsum() {
		in.CsumSeed = crc32cLE32(crc32cLE32(s.CsumSeed, ino), in.Generation)
	}
	return OK
}

func extraAt(raw []byte, extra uint16, off int) uint32 {
	if !fits(extra, off, 4) {
		return 0
	}
	return binary.LittleEndian.Uint32(raw[off:])
}

// SetInodeCsum stores inode ino's checksum in raw (its s_inode_size
// bytes), as ext4_inode_csum_set, after the write side changed it.
func (s *Super) SetInodeCsum(ino uint32, raw []byte) {
	if !s.HasCsum() {
		return
	}
	raw = raw[:s.InodeSize]
	var extra uint16
	if s.InodeSize > goodOldInodeSize {
		extra = binary.LittleEndian.Uint16(raw[inodeExtraIsize:])
	}
	hasHi := s.InodeSize > goodOldInodeSize && fits(extra, inodeChecksumHi, 2)
	c := s.inodeCsum(ino, raw, hasHi)
	binary.LittleEndian.PutUint16(raw[inodeChecksumLo:], uint16(c))
	if hasHi {
		binary.LittleEndian.PutUint16(raw[inodeChecksumHi:], uint16(c>>16))
	}
}

// IsDir, IsReg, IsSymlink test the inode's type.
func (in *Inode) IsDir() bool     { return in.Mode&SIFMT == SIFDIR }
func (in *Inode) IsReg() bool     { return in.Mode&SIFMT == SIFREG }
func (in *Inode) IsSymlink() bool { return in.Mode&SIFMT == SIFLNK }

// Rdev decodes a device inode's number from i_block as ext4_iget does:
// the old 16-bit encoding in word 0, or the new one in word 1
// (new_decode_dev); returned as Linux's major and minor.
func (in *Inode) Rdev() (major, minor uint32) {
	le := binary.LittleEndian
	if old := le.Uint32(in.Block[0:]); old != 0 {
		return (old >> 8) & 0xFF, old & 0xFF
	}
	dev := le.Uint32(in.Block[4:])
	return (dev & 0xFFF00) >> 8, (dev & 0xFF) | ((dev >> 12) & 0xFFF00)
}
