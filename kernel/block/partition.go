package block

import "encoding/binary"

// A partition of a disk: its first sector and length, in 512-byte
// sectors, and its number (1 for vda1).
type Partition struct {
	Num    int
	Start  uint64
	Length uint64
}

// MaxPartitions is how many partitions of a disk are kept: the 15 minors
// a virtio disk has after its own (Linux's virtio_blk: PART_BITS 4).
const MaxPartitions = 15

// Table is what a disk's partition table says.
type Table struct {
	Kind  string // "MBR", "GPT" or "" (none)
	Parts [MaxPartitions]Partition
	N     int
}

// MBR layout (the de-facto standard; Linux's msdos.c): four 16-byte
// entries at 446, the signature 0x55 0xaa at 510. An entry's type 0xee
// is GPT's protective MBR; 0x05, 0x0f and 0x85 are extended partitions,
// whose logical partitions (vda5 on) are not read yet: the extended
// entry itself is left out.
const (
	mbrEntries    = 446
	mbrEntryBytes = 16
	mbrSigOff     = 510
	typeEmpty     = 0x00
	typeGPT       = 0xee
	sectorBytes   = 512
)

// isExtended reports an MBR type that holds logical partitions.
func isExtended(t byte) bool { return t == 0x05 || t == 0x0f || t == 0x85 }

// GPT (UEFI 2.10 §5.3): the header at LBA 1 ("EFI PART"), its entries
// from PartitionEntryLBA, NumberOfPartitionEntries of
// SizeOfPartitionEntry bytes; an entry with a zero type GUID is unused.
const (
	gptSignature     = "EFI PART"
	gptEntriesLBAOff = 72
	gptNumEntriesOff = 80
	gptEntrySizeOff  = 84
	gptMaxEntrySize  = 4096
	gptFirstLBAOff   = 40
	gptLastLBAOff    = 48
)

// ReadSector is how the parser reads the disk: sector n into b (512
// bytes), false if the device fails. A function the caller gives, so the
// parser needs no driver; in the kernel it is a top-level function.
type ReadSector func(n uint64, b *[sectorBytes]byte) bool

// The sectors Parse reads, not on its stack: a pointer passed through a
// function value escapes, and kernel code has no heap. Parse runs under
// the kernel lock, one disk at a time.
var mbrSector, gptHeader, gptEntries [sectorBytes]byte

// Parse reads the partition table of a disk of sectors sectors. A table
// that does not add up (an entry past the disk's end, overlapping the
// header, a GPT whose entries do not fit) is taken for what is sane in
// it: bad entries are left out, never trusted, as Linux's parsers do.
func Parse(sectors uint64, read ReadSector) Table {
	var t Table
	b := &mbrSector
	if sectors < 2 || !read(0, b) || b[mbrSigOff] != 0x55 || b[mbrSigOff+1] != 0xaa {
		return t
	}
	for i := 0; i < 4; i++ {
		if b[mbrEntries+i*mbrEntryBytes+4] == typeGPT {
			if parseGPT(sectors, read, &t) {
				return t
			}
			break // a protective MBR with a broken GPT: the MBR's own entries
		}
	}
	t.Kind = "MBR"
	for i := 0; i < 4; i++ {
		e := b[mbrEntries+i*mbrEntryBytes:]
		typ := e[4]
		start := uint64(binary.LittleEndian.Uint32(e[8:]))
		length := uint64(binary.LittleEndian.Uint32(e[12:]))
		if typ == typeEmpty || typ == typeGPT || isExtended(typ) || length == 0 || start == 0 || start >= sectors || length > sectors-start {
			continue
		}
		t.Parts[t.N] = Partition{Num: i + 1, Start: start, Length: length}
		t.N++
	}
	return t
}

// parseGPT reads the primary GPT into t; false if it is not there or not
// sane. (The header's and the entries' CRC32s are not checked: Linux
// checks them and then falls back to the backup header; a tool that wrote
// a table with a bad CRC is rarer than a kernel without crc32 code.)
func parseGPT(sectors uint64, read ReadSector, t *Table) bool {
	h := &gptHeader
	if !read(1, h) || string(h[:8]) != gptSignature {
		return false
	}
	entriesLBA := binary.LittleEndian.Uint64(h[gptEntriesLBAOff:])
	n := uint64(binary.LittleEndian.Uint32(h[gptNumEntriesOff:]))
	size := uint64(binary.LittleEndian.Uint32(h[gptEntrySizeOff:]))
	first := binary.LittleEndian.Uint64(h[gptFirstLBAOff:])
	last := binary.LittleEndian.Uint64(h[gptLastLBAOff:])
	if size < 128 || size > gptMaxEntrySize || size&(size-1) != 0 || n > 1024 ||
		entriesLBA < 2 || entriesLBA >= sectors || n*size/sectorBytes > sectors-entriesLBA || last >= sectors || first > last {
		return false
	}
	t.Kind = "GPT"
	b := &gptEntries
	perSector := sectorBytes / size
	for i := uint64(0); i < n && t.N < MaxPartitions; i++ {
		if size > sectorBytes {
			// An entry larger than a sector: its first 128 bytes are the
			// standard fields; read the sector it starts in.
			if !read(entriesLBA+i*size/sectorBytes, b) {
				return t.N > 0
			}
		} else if i%perSector == 0 && !read(entriesLBA+i/perSector, b) {
			return t.N > 0
		}
		off := uint64(0)
		if size <= sectorBytes {
			off = (i % perSector) * size
		}
		e := b[off : off+128]
		if allZero(e[:16]) {
			continue
		}
		start := binary.LittleEndian.Uint64(e[32:])
		end := binary.LittleEndian.Uint64(e[40:]) // inclusive
		if start < first || end < start || end > last {
			continue
		}
		t.Parts[t.N] = Partition{Num: int(i) + 1, Start: start, Length: end - start + 1}
		t.N++
	}
	return true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
