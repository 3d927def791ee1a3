package fat

import (
	"encoding/binary"
	"testing"
)

// FuzzBootAndDir feeds Parse a boot sector and the directory reader its
// slots: any bytes give an answer, never a panic (go test -fuzz
// FuzzBootAndDir ./kernel/fat; plain go test runs the seeds).
func FuzzBootAndDir(f *testing.F) {
	boot := make([]byte, SectorSize)
	le := binary.LittleEndian
	le.PutUint16(boot[bpbBytsPerSec:], SectorSize)
	boot[bpbSecPerClus] = 1
	le.PutUint16(boot[bpbRsvdSecCnt:], 32)
	boot[bpbNumFATs] = 2
	le.PutUint32(boot[bpbTotSec32:], 131072)
	le.PutUint32(boot[bpbFATSz32:], 1009)
	le.PutUint32(boot[bpbRootClus:], 2)
	boot[510], boot[511] = 0x55, 0xAA
	f.Add(boot)
	lfn := make([]byte, 2*DirEntrySize)
	lfn[0], lfn[11], lfn[13] = 0x41, attrLFN, 0
	copy(lfn[1:], []byte{'a', 0, 'b', 0, 0, 0})
	copy(lfn[DirEntrySize:], "AB         ")
	lfn[13] = shortSum(lfn[DirEntrySize:])
	f.Add(lfn)
	f.Fuzz(func(t *testing.T, b []byte) {
		var v Volume
		if len(b) >= SectorSize && Parse(b, &v) == OK {
			if v.Clusters == 0 || v.DataStart >= v.TotalSectors {
				t.Fatalf("parsed a volume with no data: %+v", v)
			}
			for c := uint32(0); c < 8; c++ {
				sec, off := v.EntryAt(c + 2)
				_ = sec
				if int(off)+4 <= len(b) {
					v.Next(c+2, b, off)
				}
			}
		}
		var r DirReader
		var e Entry
		for off := 0; off+DirEntrySize <= len(b); off += DirEntrySize {
			if _, done := r.Slot(b[off:off+DirEntrySize], &e); done {
				break
			}
		}
	})
}
