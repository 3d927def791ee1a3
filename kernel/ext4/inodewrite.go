package ext4

import "encoding/binary"

// Writing an inode's fields (struct ext4_inode, fs/ext4/ext4.h) in its
// on-disk bytes, for the mount's write side: the setters below, then
// SetInodeCsum. raw is the inode's s_inode_size bytes in the inode
// table block being changed.

// Inode field offsets the setters use (the read side's are in
// ParseInode).
const (
	inodeModeOff   = 0
	inodeUIDLo     = 2
	inodeSizeLo    = 4
	inodeAtime     = 8
	inodeCtime     = 12
	inodeMtime     = 16
	inodeDtime     = 20
	inodeGIDLo     = 24
	inodeLinks     = 26
	inodeBlocksLo  = 28
	inodeFlags     = 32
	inodeGen       = 100
	inodeSizeHi    = 108
	inodeBlocksHi  = 116
	inodeUIDHi     = 120
	inodeGIDHi     = 122
	wantExtraIsize = inodeExtraEnd - goodOldInodeSize // 32: every field of struct ext4_inode
)

// Time fields InodeTimes sets.
const (
	TimeA = 1 << iota
	TimeM
	TimeC
	TimeCr
)

// InitInode makes raw a new inode of mode owned by uid:gid, every time
// now, generation gen, no links (ext4_new_inode's fields; the caller
// sets links, flags and i_block).
func (s *Super) InitInode(raw []byte, mode uint16, uid, gid uint32, now Time, gen uint32) {
	raw = raw[:s.InodeSize]
	clear(raw)
	le := binary.LittleEndian
	le.PutUint16(raw[inodeModeOff:], mode)
	le.PutUint16(raw[inodeUIDLo:], uint16(uid))
	le.PutUint16(raw[inodeUIDHi:], uint16(uid>>16))
	le.PutUint16(raw[inodeGIDLo:], uint16(gid))
	le.PutUint16(raw[inodeGIDHi:], uint16(gid>>16))
	le.PutUint32(raw[inodeGen:], gen)
	if s.InodeSize > goodOldInodeSize {
		le.PutUint16(raw[inodeExtraIsize:], uint16(min(wantExtraIsize, int(s.InodeSize)-goodOldInodeSize)))
	}
	s.InodeTimes(raw, TimeA|TimeM|TimeC|TimeCr, now)
}

// InodeTimes sets the times which names to t, with the extra fields
// where the inode has room for them (ext4_encode_extra_time).
func (s *Super) InodeTimes(raw []byte, which int, t Time) {
	le := binary.LittleEndian
	var extra uint16
	if s.InodeSize > goodOldInodeSize {
		extra = le.Uint16(raw[inodeExtraIsize:])
	}
	has := func(off int) bool { return s.InodeSize > goodOldInodeSize && fits(extra, off, 4) }
	if which&TimeA != 0 {
		putTime(raw, inodeAtime, inodeAtimeExtra, t, has(inodeAtimeExtra))
	}
	if which&TimeM != 0 {
		putTime(raw, inodeMtime, inodeMtimeExtra, t, has(inodeMtimeExtra))
	}
	if which&TimeC != 0 {
		putTime(raw, inodeCtime, inodeCtimeExtra, t, has(inodeCtimeExtra))
	}
	if which&TimeCr != 0 && has(inodeCrtime) {
		putTime(raw, inodeCrtime, inodeCrtimeExtra, t, has(inodeCrtimeExtra))
	}
}

// putTime is ext4_encode_extra_time: the low 32 bits of the seconds at
// lo; at hi, when there, two epoch bits and the nanoseconds.
func putTime(raw []byte, lo, hi int, t Time, extra bool) {
	le := binary.LittleEndian
	le.PutUint32(raw[lo:], uint32(t.Sec))
	if extra {
		epoch := uint32((t.Sec-int64(int32(t.Sec)))>>32) & epochMask
		le.PutUint32(raw[hi:], epoch|t.Nsec<<epochBits)
	}
}

// InodeSize, SetInodeSize: i_size_lo and i_size_high.
func InodeSize(raw []byte) uint64 {
	le := binary.LittleEndian
	return uint64(le.Uint32(raw[inodeSizeLo:])) | uint64(le.Uint32(raw[inodeSizeHi:]))<<32
}

func SetInodeSize(raw []byte, size uint64) {
	le := binary.LittleEndian
	le.PutUint32(raw[inodeSizeLo:], uint32(size))
	le.PutUint32(raw[inodeSizeHi:], uint32(size>>32))
}

// InodeLinks, SetInodeLinks: i_links_count.
func InodeLinks(raw []byte) uint16 { return binary.LittleEndian.Uint16(raw[inodeLinks:]) }
func SetInodeLinks(raw []byte, n uint16) {
	binary.LittleEndian.PutUint16(raw[inodeLinks:], n)
}

// InodeMode, SetInodeMode: i_mode.
func InodeMode(raw []byte) uint16 { return binary.LittleEndian.Uint16(raw[inodeModeOff:]) }
func SetInodeMode(raw []byte, m uint16) {
	binary.LittleEndian.PutUint16(raw[inodeModeOff:], m)
}

// InodeFlags, SetInodeFlags: i_flags.
func InodeFlags(raw []byte) uint32 { return binary.LittleEndian.Uint32(raw[inodeFlags:]) }
func SetInodeFlags(raw []byte, f uint32) {
	binary.LittleEndian.PutUint32(raw[inodeFlags:], f)
}

// InodeDtime, SetInodeDtime: i_dtime, which also links the orphan list
// (the next orphan's number while the inode is on it).
func InodeDtime(raw []byte) uint32 { return binary.LittleEndian.Uint32(raw[inodeDtime:]) }
func SetInodeDtime(raw []byte, v uint32) {
	binary.LittleEndian.PutUint32(raw[inodeDtime:], v)
}

// InodeBlockArea is i_block: the extent root, a fast symlink's target or
// a device number.
func InodeBlockArea(raw []byte) []byte { return raw[inodeBlockOff : inodeBlockOff+inodeBlockLen] }

// AddInodeBlocks adds delta 512-byte units to i_blocks (ext4_inode_blocks_set:
// 48 bits with huge_file, in file-system blocks when EXT4_HUGE_FILE_FL
// says so). EFBIG past what the field holds.
func (s *Super) AddInodeBlocks(raw []byte, delta int64) Errno {
	le := binary.LittleEndian
	huge := s.RoCompat&RoCompatHugeFile != 0
	shift := uint32(0)
	if huge && InodeFlags(raw)&FlagHugeFile != 0 {
		shift = s.LogBlockSize - 9
	}
	n := int64(s.InodeBlocks(raw)) + delta
	if n < 0 {
		n = 0
	}
	v := uint64(n) >> shift
	if !huge && v>>32 != 0 || v>>48 != 0 {
		return EFBIG
	}
	le.PutUint32(raw[inodeBlocksLo:], uint32(v))
	if huge {
		le.PutUint16(raw[inodeBlocksHi:], uint16(v>>32))
	}
	return OK
}

// InodeBlocks is i_blocks in 512-byte units, as stat's st_blocks
// (ext4_inode_blocks: 48 bits with huge_file, in file-system blocks when
// EXT4_HUGE_FILE_FL says so).
func (s *Super) InodeBlocks(raw []byte) uint64 {
	le := binary.LittleEndian
	v := uint64(le.Uint32(raw[inodeBlocksLo:]))
	if s.RoCompat&RoCompatHugeFile != 0 {
		v |= uint64(le.Uint16(raw[inodeBlocksHi:])) << 32
		if InodeFlags(raw)&FlagHugeFile != 0 {
			v <<= s.LogBlockSize - 9
		}
	}
	return v
}

// PutDevice stores device number major:minor in i_block as
// ext4_set_inode's init_special_inode path does: the old 16-bit encoding
// in word 0 when it fits, else the new one in word 1
// (old_valid_dev, new_encode_dev).
func PutDevice(raw []byte, major, minor uint32) {
	b := InodeBlockArea(raw)
	le := binary.LittleEndian
	if major < 256 && minor < 256 {
		le.PutUint32(b[0:], major<<8|minor)
		le.PutUint32(b[4:], 0)
		return
	}
	le.PutUint32(b[0:], 0)
	le.PutUint32(b[4:], minor&0xff|major<<8|(minor&^0xff)<<12)
}
