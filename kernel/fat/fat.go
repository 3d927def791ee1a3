// Package fat owns the FAT file system's on-disk format, read side, as
// Microsoft's fatgen103 and Linux's fs/fat define it: the boot sector's
// BPB (FAT16 and FAT32; 512-byte sectors), cluster chains through the
// FAT, and directory entries with their long names (VFAT: UCS-2 pieces
// before the 8.3 entry, checked against its checksum). Pure functions
// over sector-sized byte slices a caller fills: no heap, no init work,
// so the kernel can call them with its runtime never started
// (kernel/vfatfs mounts it; the Pi's boot partition is one). Corruption
// is EUCLEAN, never a panic or an endless walk.
package fat

import "encoding/binary"

// Errno is the package's answer (Linux's numbers).
type Errno uint32

const (
	OK      Errno = 0
	ENOENT  Errno = 2
	EIO     Errno = 5
	EINVAL  Errno = 22
	EUCLEAN Errno = 117
)

// SectorSize is the only sector size this package reads.
const SectorSize = 512

// BPB fields (fatgen103, "Boot Sector and BPB Structure").
const (
	bpbBytsPerSec = 11
	bpbSecPerClus = 13
	bpbRsvdSecCnt = 14
	bpbNumFATs    = 16
	bpbRootEntCnt = 17
	bpbTotSec16   = 19
	bpbFATSz16    = 22
	bpbTotSec32   = 32
	bpbFATSz32    = 36
	bpbRootClus   = 44
	bootSignature = 510

	// fat16MinClusters: fewer clusters is FAT12 (not read), at least
	// fat32MinClusters FAT32 (fatgen103's "FAT Type Determination").
	fat16MinClusters = 4085
	fat32MinClusters = 65525

	// DirEntrySize is a directory entry's size.
	DirEntrySize = 32
)

// Volume is a parsed boot sector: where everything is, in sectors from
// the partition's start.
type Volume struct {
	Is32              bool
	SectorsPerCluster uint32
	FATStart          uint32 // first sector of the first FAT
	FATSectors        uint32
	RootStart         uint32 // FAT16: the root directory's first sector
	RootSectors       uint32 // FAT16: its length
	RootCluster       uint32 // FAT32: the root directory's first cluster
	DataStart         uint32 // cluster 2's first sector
	Clusters          uint32 // data clusters (numbered 2 to Clusters+1)
	TotalSectors      uint32
}

// Parse reads the boot sector b (its 512 bytes) into v, checking it as
// Linux's fat_fill_super does: EINVAL when it is no FAT this package
// reads (FAT12, other sector sizes), EUCLEAN when its numbers disagree.
func Parse(b []byte, v *Volume) Errno {
	if len(b) < SectorSize || b[bootSignature] != 0x55 || b[bootSignature+1] != 0xAA {
		return EINVAL
	}
	le := binary.LittleEndian
	*v = Volume{}
	if le.Uint16(b[bpbBytsPerSec:]) != SectorSize {
		return EINVAL
	}
	spc := uint32(b[bpbSecPerClus])
	if spc == 0 || spc&(spc-1) != 0 || spc > 128 {
		return EINVAL
	}
	rsvd := uint32(le.Uint16(b[bpbRsvdSecCnt:]))
	nfats := uint32(b[bpbNumFATs])
	rootEnts := uint32(le.Uint16(b[bpbRootEntCnt:]))
	total := uint32(le.Uint16(b[bpbTotSec16:]))
	if total == 0 {
		total = le.Uint32(b[bpbTotSec32:])
	}
	fatSz := uint32(le.Uint16(b[bpbFATSz16:]))
	if fatSz == 0 {
		fatSz = le.Uint32(b[bpbFATSz32:])
	}
	if rsvd == 0 || nfats == 0 || fatSz == 0 || total == 0 {
		return EINVAL
	}
	rootSecs := (rootEnts*DirEntrySize + SectorSize - 1) / SectorSize
	meta := uint64(rsvd) + uint64(nfats)*uint64(fatSz) + uint64(rootSecs)
	if meta >= uint64(total) {
		return EUCLEAN
	}
	clusters := (total - uint32(meta)) / spc
	v.SectorsPerCluster = spc
	v.FATStart, v.FATSectors = rsvd, fatSz
	v.RootStart, v.RootSectors = rsvd+nfats*fatSz, rootSecs
	v.DataStart = uint32(meta)
	v.Clusters = clusters
	v.TotalSectors = total
	switch {
	case clusters < fat16MinClusters:
		return EINVAL // FAT12
	case clusters < fat32MinClusters:
		if rootEnts == 0 {
			return EUCLEAN
		}
	default:
		v.Is32 = true
		v.RootCluster = le.Uint32(b[bpbRootClus:]) & 0x0FFFFFFF
		if !v.valid(v.RootCluster) {
			return EUCLEAN
		}
	}
	// The FAT must have an entry for every cluster.
	per := uint64(SectorSize / 2)
	if v.Is32 {
		per = SectorSize / 4
	}
	if uint64(fatSz)*per < uint64(clusters)+2 {
		return EUCLEAN
	}
	return OK
}

// valid says whether c names a data cluster.
func (v *Volume) valid(c uint32) bool { return c >= 2 && c < v.Clusters+2 }

// ClusterSector is cluster c's first sector.
func (v *Volume) ClusterSector(c uint32) uint32 {
	return v.DataStart + (c-2)*v.SectorsPerCluster
}

// ClusterBytes is a cluster's size in bytes.
func (v *Volume) ClusterBytes() uint32 { return v.SectorsPerCluster * SectorSize }

// EntryAt is where cluster c's FAT entry is: the FAT sector and the byte
// in it.
func (v *Volume) EntryAt(c uint32) (sector, off uint32) {
	width := uint32(2)
	if v.Is32 {
		width = 4
	}
	at := c * width
	return v.FATStart + at/SectorSize, at % SectorSize
}

// Next reads cluster c's FAT entry from its sector s (EntryAt): the next
// cluster of the chain, 0 at its end, EUCLEAN for a free, bad or
// out-of-range one.
func (v *Volume) Next(c uint32, s []byte, off uint32) (uint32, Errno) {
	le := binary.LittleEndian
	var n uint32
	if v.Is32 {
		n = le.Uint32(s[off:]) & 0x0FFFFFFF
		if n >= 0x0FFFFFF8 {
			return 0, OK
		}
	} else {
		n = uint32(le.Uint16(s[off:]))
		if n >= 0xFFF8 {
			return 0, OK
		}
	}
	if !v.valid(n) {
		return 0, EUCLEAN
	}
	return n, OK
}

// Entry is one directory entry as Linux's vfat shows it.
type Entry struct {
	Name    []byte // UTF-8: the long name, else the 8.3 one
	Dir     bool
	RO      bool
	Cluster uint32 // first cluster, 0 for an empty file
	Size    uint32
	Mtime   int64 // seconds since the epoch (the volume's local time taken as UTC)
	Ctime   int64
	Atime   int64
}

// Entry attributes.
const (
	attrRO     = 0x01
	attrVolume = 0x08
	attrDir    = 0x10
	attrLFN    = 0x0F
)

// DirReader assembles entries from a directory's 32-byte slots fed in
// order (long-name slots before their 8.3 slot).
type DirReader struct {
	lfn     [260]uint16
	lfnLen  int
	lfnSum  uint8
	lfnNext int  // the sequence number the next long-name slot must have; 0: none under way
	lfnDone bool // a whole long name waits for its 8.3 slot
	name    [4 * 260]byte
}

// Slot feeds one slot: done reports the directory's end (a slot whose
// first byte is 0); ok an entry in e (whose Name is the reader's until
// the next call).
func (r *DirReader) Slot(s []byte, e *Entry) (ok, done bool) {
	switch {
	case s[0] == 0:
		return false, true
	case s[0] == 0xE5: // deleted
		r.lfnNext, r.lfnDone = 0, false
		return false, false
	case s[11]&0x3F == attrLFN:
		r.longSlot(s)
		return false, false
	case s[11]&attrVolume != 0:
		r.lfnNext, r.lfnDone = 0, false
		return false, false
	}
	le := binary.LittleEndian
	*e = Entry{
		Dir:     s[11]&attrDir != 0,
		RO:      s[11]&attrRO != 0,
		Cluster: uint32(le.Uint16(s[26:])) | uint32(le.Uint16(s[20:]))<<16,
		Size:    le.Uint32(s[28:]),
		Mtime:   fatTime(le.Uint16(s[24:]), le.Uint16(s[22:])),
		Ctime:   fatTime(le.Uint16(s[16:]), le.Uint16(s[14:])),
		Atime:   fatTime(le.Uint16(s[18:]), 0),
	}
	if r.lfnDone && r.lfnSum == shortSum(s) && r.lfnLen > 0 {
		e.Name = r.utf8(r.lfn[:r.lfnLen])
	} else {
		e.Name = r.shortName(s)
	}
	r.lfnNext, r.lfnDone = 0, false
	return true, false
}

// longSlot takes a long-name slot: 13 UCS-2 characters, the slots
// numbered from the last (0x40 set) down to 1, each with the 8.3 name's
// checksum.
func (r *DirReader) longSlot(s []byte) {
	seq := int(s[0] & 0x1F)
	if s[0]&0x40 != 0 {
		r.lfnDone, r.lfnNext, r.lfnSum = false, seq, s[13]
		if seq == 0 || seq*13 > len(r.lfn) {
			r.lfnNext = 0
			return
		}
	}
	if r.lfnNext == 0 || seq != r.lfnNext || s[13] != r.lfnSum {
		r.lfnNext, r.lfnDone = 0, false
		return
	}
	le := binary.LittleEndian
	at := (seq - 1) * 13
	for k, off := range [13]int{1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30} {
		r.lfn[at+k] = le.Uint16(s[off:])
	}
	if s[0]&0x40 != 0 {
		r.lfnLen = at + 13
		for k := 0; k < 13; k++ {
			if r.lfn[at+k] == 0 {
				r.lfnLen = at + k
				break
			}
		}
	}
	r.lfnNext = seq - 1
	r.lfnDone = r.lfnNext == 0
}

// shortSum is the long name's checksum of an 8.3 name (fatgen103).
func shortSum(s []byte) uint8 {
	var sum uint8
	for i := 0; i < 11; i++ {
		sum = (sum>>1 | sum<<7) + s[i]
	}
	return sum
}

// shortName is an 8.3 name as Linux shows it (shortname=mixed): the
// base and extension lowercased where the NT flags say so.
func (r *DirReader) shortName(s []byte) []byte {
	n := r.putName(0, s[0:8], s[12]&0x08 != 0)
	if s[0] == 0x05 {
		r.name[0] = 0xE5 // a name starting with 0xE5 (kanji), stored as 0x05
	}
	if s[8] != ' ' {
		r.name[n] = '.'
		n = r.putName(n+1, s[8:11], s[12]&0x10 != 0)
	}
	return r.name[:n]
}

// putName copies a space-padded 8.3 part to r.name at n, lowercased
// with lower, and returns the end.
func (r *DirReader) putName(n int, b []byte, lower bool) int {
	end := len(b)
	for end > 0 && b[end-1] == ' ' {
		end--
	}
	for _, c := range b[:end] {
		if lower && c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		r.name[n] = c
		n++
	}
	return n
}

// utf8 encodes UCS-2 characters as UTF-8 (surrogate pairs joined).
func (r *DirReader) utf8(u []uint16) []byte {
	n := 0
	for i := 0; i < len(u); i++ {
		c := rune(u[i])
		if c >= 0xD800 && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
			c = 0x10000 + (c-0xD800)<<10 + rune(u[i+1]-0xDC00)
			i++
		}
		switch {
		case c < 0x80:
			r.name[n] = byte(c)
			n++
		case c < 0x800:
			r.name[n], r.name[n+1] = byte(0xC0|c>>6), byte(0x80|c&0x3F)
			n += 2
		case c < 0x10000:
			r.name[n], r.name[n+1], r.name[n+2] = byte(0xE0|c>>12), byte(0x80|c>>6&0x3F), byte(0x80|c&0x3F)
			n += 3
		default:
			r.name[n], r.name[n+1], r.name[n+2], r.name[n+3] = byte(0xF0|c>>18), byte(0x80|c>>12&0x3F), byte(0x80|c>>6&0x3F), byte(0x80|c&0x3F)
			n += 4
		}
	}
	return r.name[:n]
}

// fatTime is a FAT date and time as seconds since the epoch: the date's
// year from 1980, month, day; the time's hours, minutes, 2-second units.
func fatTime(date, t uint16) int64 {
	if date == 0 {
		return 0
	}
	y, m, d := int64(date>>9)+1980, int64(date>>5&0xF), int64(date&0x1F)
	if m < 1 || m > 12 || d < 1 {
		return 0
	}
	return daysFromCivil(y, m, d)*86400 + int64(t>>11)*3600 + int64(t>>5&0x3F)*60 + int64(t&0x1F)*2
}

// daysFromCivil is days since 1970-01-01 of a proleptic Gregorian date
// (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
