package ext4

import "encoding/binary"

// The superblock (struct ext4_super_block, fs/ext4/ext4.h): 1024 bytes at
// byte 1024 of the device, whatever the block size.
const (
	SuperOffset = 1024
	SuperSize   = 1024

	superMagic = 0xEF53

	minLogBlockSize = 10 // 1 KiB
	maxLogBlockSize = 16 // 64 KiB (EXT4_MAX_BLOCK_LOG_SIZE)
	// MaxBlockSize is the largest block this package reads.
	MaxBlockSize = 1 << maxLogBlockSize

	goodOldRev        = 0
	goodOldInodeSize  = 128
	goodOldFirstIno   = 11
	descSize32        = 32 // EXT4_MIN_DESC_SIZE
	descSize64        = 64 // EXT4_MIN_DESC_SIZE_64BIT
	maxDescSize       = 1024
	csumTypeCrc32c    = 1 // EXT4_CRC32C_CHKSUM
	superChecksumOff  = 1020
	superIncompatOff  = 96 // s_feature_incompat
	RootIno           = 2
	JournalIno        = 8
	stateErrorFs      = 0x0002 // EXT4_ERROR_FS
	superHashSeedOff  = 236
	superJnlBlocksOff = 268
)

// Feature bits (EXT4_FEATURE_*).
const (
	CompatDirPrealloc  = 0x0001
	CompatImagicInodes = 0x0002
	CompatHasJournal   = 0x0004
	CompatExtAttr      = 0x0008
	CompatResizeInode  = 0x0010
	CompatDirIndex     = 0x0020
	CompatSparseSuper2 = 0x0200
	CompatFastCommit   = 0x0400
	CompatStableInodes = 0x0800
	CompatOrphanFile   = 0x1000

	RoCompatSparseSuper   = 0x0001
	RoCompatLargeFile     = 0x0002
	RoCompatBtreeDir      = 0x0004
	RoCompatHugeFile      = 0x0008
	RoCompatGdtCsum       = 0x0010
	RoCompatDirNlink      = 0x0020
	RoCompatExtraIsize    = 0x0040
	RoCompatHasSnapshot   = 0x0080
	RoCompatQuota         = 0x0100
	RoCompatBigalloc      = 0x0200
	RoCompatMetadataCsum  = 0x0400
	RoCompatReplica       = 0x0800
	RoCompatReadonly      = 0x1000
	RoCompatProject       = 0x2000
	RoCompatSharedBlocks  = 0x4000
	RoCompatVerity        = 0x8000
	RoCompatOrphanPresent = 0x10000

	IncompatCompression = 0x0001
	IncompatFiletype    = 0x0002
	IncompatRecover     = 0x0004
	IncompatJournalDev  = 0x0008
	IncompatMetaBg      = 0x0010
	IncompatExtents     = 0x0040
	Incompat64bit       = 0x0080
	IncompatMmp         = 0x0100
	IncompatFlexBg      = 0x0200
	IncompatEaInode     = 0x0400
	IncompatDirdata     = 0x1000
	IncompatCsumSeed    = 0x2000
	IncompatLargedir    = 0x4000
	IncompatInlineData  = 0x8000
	IncompatEncrypt     = 0x10000
	IncompatCasefold    = 0x20000
)

// What this package reads and (once the write side is built) may change.
// An incompat feature outside supportedIncompat makes the volume
// unmountable; a ro_compat one outside supportedRoCompat makes it
// read-only, as ext4_feature_set_ok does with the kernel's own sets.
const (
	supportedIncompat = IncompatFiletype | IncompatExtents | Incompat64bit |
		IncompatFlexBg | IncompatCsumSeed | IncompatLargedir | IncompatRecover
	supportedRoCompat = RoCompatSparseSuper | RoCompatLargeFile | RoCompatHugeFile |
		RoCompatDirNlink | RoCompatExtraIsize | RoCompatMetadataCsum
)

// Super is the parsed superblock: the fields the read path needs, in
// native form (64-bit counts joined).
type Super struct {
	InodesCount     uint32
	BlocksCount     uint64
	FreeBlocks      uint64
	FreeInodes      uint32
	FirstDataBlock  uint32
	LogBlockSize    uint32 // log2 of the block size in bytes
	BlockSize       uint32
	BlocksPerGroup  uint32
	InodesPerGroup  uint32
	State           uint16
	RevLevel        uint32
	FirstIno        uint32
	InodeSize       uint16
	Compat          uint32
	Incompat        uint32
	RoCompat        uint32
	UUID            [16]byte
	VolumeName      [16]byte
	ReservedGdt     uint16
	JournalInum     uint32
	HashSeed        [4]uint32
	DefHashVersion  uint8
	DescSize        uint16 // 32, or s_desc_size with 64bit
	MinExtraIsize   uint16
	WantExtraIsize  uint16
	Flags           uint32
	LogGroupsPerFlx uint8
	ChecksumSeed    uint32 // s_checksum_seed as stored (csum_seed)
	OrphanFileInum  uint32

	Groups uint32 // block groups
	// CsumSeed seeds every metadata checksum but the superblock's:
	// crc32c(~0, uuid), or s_checksum_seed with csum_seed
	// (ext4_fill_super).
	CsumSeed uint32
}

// HasCsum says whether metadata_csum is on.
func (s *Super) HasCsum() bool { return s.RoCompat&RoCompatMetadataCsum != 0 }

// ParseSuper parses and checks the 1024 bytes of a superblock: magic,
// revision, sizes in range, counts that agree with each other (as
// ext4_fill_super's checks) and, with metadata_csum, its checksum.
func ParseSuper(b []byte, s *Super) Errno {
	if len(b) < SuperSize {
		return EINVAL
	}
	le := binary.LittleEndian
	if le.Uint16(b[56:]) != superMagic {
		return EINVAL
	}
	*s = Super{}
	s.InodesCount = le.Uint32(b[0:])
	s.BlocksCount = uint64(le.Uint32(b[4:]))
	s.FreeBlocks = uint64(le.Uint32(b[12:]))
	s.FreeInodes = le.Uint32(b[16:])
	s.FirstDataBlock = le.Uint32(b[20:])
	lbs := le.Uint32(b[24:])
	s.BlocksPerGroup = le.Uint32(b[32:])
	s.InodesPerGroup = le.Uint32(b[40:])
	s.State = le.Uint16(b[58:])
	s.RevLevel = le.Uint32(b[76:])
	s.Compat = le.Uint32(b[92:])
	s.Incompat = le.Uint32(b[superIncompatOff:])
	s.RoCompat = le.Uint32(b[100:])
	copy(s.UUID[:], b[104:120])
	copy(s.VolumeName[:], b[120:136])
	s.ReservedGdt = le.Uint16(b[206:])
	s.JournalInum = le.Uint32(b[224:])
	for i := range s.HashSeed {
		s.HashSeed[i] = le.Uint32(b[superHashSeedOff+4*i:])
	}
	s.DefHashVersion = b[252]
	s.MinExtraIsize = le.Uint16(b[348:])
	s.WantExtraIsize = le.Uint16(b[350:])
	s.Flags = le.Uint32(b[352:])
	s.LogGroupsPerFlx = b[372]
	s.ChecksumSeed = le.Uint32(b[624:])
	s.OrphanFileInum = le.Uint32(b[640:])

	if s.RevLevel == goodOldRev {
		s.InodeSize = goodOldInodeSize
		s.FirstIno = goodOldFirstIno
	} else {
		s.InodeSize = le.Uint16(b[88:])
		s.FirstIno = le.Uint32(b[84:])
	}
	if s.HasCsum() {
		if b[373] != csumTypeCrc32c {
			return EUCLEAN
		}
		if Crc32c(^uint32(0), b[:superChecksumOff]) != le.Uint32(b[superChecksumOff:]) {
			return EBADMSG
		}
	}
	if lbs > maxLogBlockSize-minLogBlockSize {
		return EUCLEAN
	}
	s.LogBlockSize = lbs + minLogBlockSize
	s.BlockSize = 1 << s.LogBlockSize
	if s.Incompat&Incompat64bit != 0 {
		s.BlocksCount |= uint64(le.Uint32(b[336:])) << 32
		s.FreeBlocks |= uint64(le.Uint32(b[344:])) << 32
		s.DescSize = le.Uint16(b[254:])
		if s.DescSize < descSize64 || s.DescSize > maxDescSize || s.DescSize&(s.DescSize-1) != 0 {
			return EUCLEAN
		}
	} else {
		s.DescSize = descSize32
	}
	// ext4_fill_super: an inode is a power of two between the old size
	// and the block size; the first data block is 1 only with 1 KiB blocks.
	if s.InodeSize < goodOldInodeSize || s.InodeSize&(s.InodeSize-1) != 0 || uint32(s.InodeSize) > s.BlockSize {
		return EUCLEAN
	}
	if s.FirstDataBlock != 0 && !(s.BlockSize == 1024 && s.FirstDataBlock == 1) {
		return EUCLEAN
	}
	// A group's block bitmap is one block: 8 bits a byte. With bigalloc
	// the bitmap counts clusters, and a group holds more blocks.
	perGroupBits := s.BlocksPerGroup
	if s.RoCompat&RoCompatBigalloc != 0 {
		perGroupBits = le.Uint32(b[36:]) // s_clusters_per_group
	}
	if s.BlocksPerGroup == 0 || perGroupBits > 8*s.BlockSize ||
		s.InodesPerGroup == 0 || s.InodesPerGroup > 8*s.BlockSize ||
		s.BlocksCount <= uint64(s.FirstDataBlock) {
		return EUCLEAN
	}
	if s.FirstIno < goodOldFirstIno || s.FirstIno > s.InodesCount {
		return EUCLEAN
	}
	groups := (s.BlocksCount - uint64(s.FirstDataBlock) + uint64(s.BlocksPerGroup) - 1) / uint64(s.BlocksPerGroup)
	if groups == 0 || groups > 1<<32-1 || uint64(s.InodesCount) != groups*uint64(s.InodesPerGroup) {
		return EUCLEAN
	}
	s.Groups = uint32(groups)
	if s.RoCompat&RoCompatExtraIsize != 0 || s.InodeSize > goodOldInodeSize {
		if uint32(s.MinExtraIsize) > uint32(s.InodeSize)-goodOldInodeSize ||
			uint32(s.WantExtraIsize) > uint32(s.InodeSize)-goodOldInodeSize {
			return EUCLEAN
		}
	}
	if s.Incompat&IncompatCsumSeed != 0 {
		s.CsumSeed = s.ChecksumSeed
	} else {
		s.CsumSeed = Crc32c(^uint32(0), s.UUID[:])
	}
	return OK
}

// Mountable is the answer of Support.
type Mountable uint8

const (
	MountReadWrite Mountable = iota
	MountReadOnly
	MountNo
)

// featureNames names the bits this package knows, for Support's line.
var incompatNames = [...]string{
	"compression", "filetype", "needs_recovery", "journal_dev", "meta_bg", "bit5",
	"extent", "64bit", "mmp", "flex_bg", "ea_inode", "bit11", "dirdata",
	"metadata_csum_seed", "large_dir", "inline_data", "encrypt", "casefold",
}

var roCompatNames = [...]string{
	"sparse_super", "large_file", "btree_dir", "huge_file", "uninit_bg",
	"dir_nlink", "extra_isize", "snapshot", "quota", "bigalloc",
	"metadata_csum", "replica", "read-only", "project", "shared_blocks",
	"verity", "orphan_present",
}

// Support answers whether the volume may be mounted read-write, only
// read-only, or not at all, and names the first feature that decides it
// (empty when read-write). The reason is a fixed string, so the caller
// prints "ext4: unsupported feature X" in one line as Linux's
// ext4_feature_set_ok does ("Couldn't mount because of unsupported
// optional features (%x)").
func (s *Super) Support() (Mountable, string) {
	if bad := s.Incompat &^ supportedIncompat; bad != 0 {
		return MountNo, featureName(incompatNames[:], bad, "unknown incompat feature")
	}
	if s.Incompat&IncompatExtents == 0 {
		// Block-mapped (ext2/ext3) files need the indirect map this
		// package does not read.
		return MountNo, "no extent feature (indirect block maps)"
	}
	if s.State&stateErrorFs != 0 {
		return MountReadOnly, "errors recorded: run e2fsck"
	}
	if bad := s.RoCompat &^ supportedRoCompat; bad != 0 {
		return MountReadOnly, featureName(roCompatNames[:], bad, "unknown ro_compat feature")
	}
	if s.Incompat&IncompatRecover != 0 {
		// The journal must be replayed before the volume is written.
		return MountReadOnly, "needs_recovery"
	}
	return MountReadWrite, ""
}

func featureName(names []string, bits uint32, unknown string) string {
	for i := 0; i < 32; i++ {
		if bits&(1<<i) != 0 {
			if i < len(names) {
				return names[i]
			}
			return unknown
		}
	}
	return unknown
}
