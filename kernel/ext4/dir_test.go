package ext4

import (
	"encoding/binary"
	"testing"
)

// TestDirNextChecks parses entries as ext4_check_dir_entry judges them:
// good ones give their inode, type, name and the next offset; a rec_len
// too small for the header or the name, not a multiple of 4, or running
// past the block's entries, and an inode number past the volume's, are
// EUCLEAN, never a slice out of range. A 64 KiB block's rec_len carries
// bits 16-17 in its low bits (ext4_rec_len_from_disk).
func TestDirNextChecks(t *testing.T) {
	s := testSuper(t)
	le := binary.LittleEndian
	entry := func(b []byte, ino uint32, recLen uint16, name string, typ uint8) {
		le.PutUint32(b[0:], ino)
		le.PutUint16(b[4:], recLen)
		b[6], b[7] = uint8(len(name)), typ
		copy(b[8:], name)
	}
	b := make([]byte, 1024)
	entry(b, 2, 12, ".", FtDir)
	entry(b[12:], 12, 20, "hello.txt", FtReg)
	entry(b[32:], 0, 16, "gone", FtReg) // unused: Ino 0
	entry(b[48:], 13, 1024-48, "last", FtSymlink)
	var d DirEntry
	want := []struct {
		ino  uint32
		typ  uint8
		name string
		next uint32
	}{{2, FtDir, ".", 12}, {12, FtReg, "hello.txt", 32}, {0, FtReg, "gone", 48}, {13, FtSymlink, "last", 1024}}
	off := uint32(0)
	for _, w := range want {
		next, e := s.DirNext(b, off, 1024, &d)
		if e != OK || d.Ino != w.ino || d.Type != w.typ || string(d.Name) != w.name || next != w.next || d.RecLen != next-off {
			t.Fatalf("entry at %d: %+v %q next %d %v; want %+v", off, d, d.Name, next, e, w)
		}
		off = next
	}
	for _, c := range []struct {
		why    string
		recLen uint16
		name   string
		ino    uint32
		end    uint32
	}{
		{"rec_len under the header", 8, "a", 5, 1024},
		{"rec_len not a multiple of 4", 14, "a", 5, 1024},
		{"rec_len shorter than the name", 12, "longer-name", 5, 1024},
		{"rec_len past the entries' end", 24, "a", 5, 16},
		{"an inode past the volume's", 12, "a", 1 << 30, 1024},
		{"a header past the end", 12, "a", 5, 4},
	} {
		b := make([]byte, 1024)
		entry(b, c.ino, c.recLen, c.name, FtReg)
		if _, e := s.DirNext(b, 0, c.end, &d); e != EUCLEAN {
			t.Errorf("%s: %v, want EUCLEAN", c.why, e)
		}
	}
	// A 64 KiB block: 0xFFFF (or 0) is the whole block, and the low two
	// bits of a stored rec_len are bits 16-17 of the real one.
	big := *s
	big.BlockSize = 1 << 16
	b = make([]byte, 1<<16)
	entry(b, 12, 0xFFFF, "all", FtReg)
	if next, e := big.DirNext(b, 0, 1<<16, &d); e != OK || next != 1<<16 {
		t.Errorf("a 64 KiB block's whole-block entry: next %d %v", next, e)
	}
	entry(b, 12, 0x0001, "x", FtReg) // 1<<16 | 0: the whole block again
	if next, e := big.DirNext(b, 0, 1<<16, &d); e != OK || next != 1<<16 {
		t.Errorf("a rec_len with bit 16 in its low bits: next %d %v", next, e)
	}
}
