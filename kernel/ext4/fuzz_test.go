package ext4

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fuzz targets for every parser and for the whole read path over a
// corrupted image: never a panic, never an endless walk, an error instead.
// The parser targets make the checksums good after the fuzzer's change,
// so the mutations reach the checks behind them. `go test` runs the seeds
// (and testdata/fuzz); `go test -fuzz FuzzX` runs one for longer.

// testSuper is a consistent metadata_csum superblock, parsed, with 1 KiB
// blocks: the geometry the parser targets use.
func testSuper(t testing.TB) *Super {
	b := testSuperBytes()
	var s Super
	if e := ParseSuper(b[:], &s); e != OK {
		t.Fatalf("testSuper: %v", e)
	}
	return &s
}

func testSuperBytes() [SuperSize]byte {
	var b [SuperSize]byte
	le := binary.LittleEndian
	le.PutUint32(b[0:], 2048)  // inodes
	le.PutUint32(b[4:], 8192)  // blocks
	le.PutUint32(b[20:], 1)    // first data block
	le.PutUint32(b[32:], 8192) // blocks per group
	le.PutUint32(b[36:], 8192) // clusters per group
	le.PutUint32(b[40:], 2048) // inodes per group
	le.PutUint16(b[56:], superMagic)
	le.PutUint32(b[76:], 1)   // dynamic revision
	le.PutUint32(b[84:], 11)  // first inode
	le.PutUint16(b[88:], 256) // inode size
	le.PutUint32(b[96:], IncompatFiletype|IncompatExtents|Incompat64bit|IncompatFlexBg)
	le.PutUint32(b[100:], supportedRoCompat)
	copy(b[104:], "0123456789abcdef")
	le.PutUint16(b[254:], 64) // desc size
	le.PutUint16(b[348:], 32)
	le.PutUint16(b[350:], 32)
	b[373] = csumTypeCrc32c
	SetSuperCsum(b[:])
	return b
}

func FuzzSuper(f *testing.F) {
	f.Add(make([]byte, SuperSize), false)
	good := testSuperBytes()
	f.Add(good[:], true)
	f.Fuzz(func(t *testing.T, data []byte, fixCsum bool) {
		var b [SuperSize]byte
		copy(b[:], data)
		if len(data) < 58 {
			binary.LittleEndian.PutUint16(b[56:], superMagic)
		}
		if fixCsum {
			SetSuperCsum(b[:])
		}
		var s Super
		if ParseSuper(b[:], &s) != OK {
			return
		}
		s.Support()
		if blk, off := s.GroupDescLocation(s.Groups - 1); off+uint32(s.DescSize) > s.BlockSize || blk == 0 {
			t.Fatalf("descriptor of the last group at %d+%d", blk, off)
		}
		if g, off, e := s.InodeLocation(s.InodesCount); e != OK || g >= s.Groups || off >= uint64(s.InodesPerGroup)*uint64(s.InodeSize) {
			t.Fatalf("last inode: group %d off %d %v", g, off, e)
		}
	})
}

func FuzzGroupDesc(f *testing.F) {
	f.Add(make([]byte, 64), uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, g uint32) {
		s := testSuper(t)
		var d [64]byte
		copy(d[:], data)
		if g < s.Groups {
			s.SetGroupDescCsum(g, d[:])
		}
		var gd GroupDesc
		if s.ParseGroupDesc(g, d[:], &gd) == OK && gd.InodeTable >= s.BlocksCount {
			t.Fatalf("inode table %d past the end", gd.InodeTable)
		}
		s.DescSize = 32
		s.ParseGroupDesc(g, d[:], &gd)
	})
}

func FuzzInode(f *testing.F) {
	var raw [256]byte
	binary.LittleEndian.PutUint16(raw[0:], SIFLNK|0o777)
	binary.LittleEndian.PutUint32(raw[4:], 5)
	copy(raw[inodeBlockOff:], "hello")
	binary.LittleEndian.PutUint16(raw[inodeExtraIsize:], 32)
	f.Add(raw[:], uint32(12))
	f.Fuzz(func(t *testing.T, data []byte, ino uint32) {
		s := testSuper(t)
		var raw [256]byte
		copy(raw[:], data)
		s.SetInodeCsum(ino, raw[:])
		var in Inode
		if s.ParseInode(ino, raw[:], &in) != OK {
			return
		}
		in.Rdev()
		var st Stat
		StatOf(&in, &st)
		r := Reader{Super: *s, Src: &zeroSource{}}
		var buf [PathMax]byte
		r.Readlink(&in, buf[:])
		var m Mapping
		r.MapBlock(&in, 0, &m)
		if in.Size < 1<<16 {
			r.ReadAt(&in, 0, buf[:])
		}
	})
}

// zeroSource serves zero blocks (of at most 4 KiB).
type zeroSource struct{ b [4096]byte }

func (z *zeroSource) Block(n uint64) ([]byte, Errno) {
	z.b = [4096]byte{}
	return z.b[:], OK
}

// cycleSource serves a few fuzzed blocks over and over: block n is chunk
// n mod count, so an index can point at its own node, or back up.
type cycleSource struct {
	chunks [][]byte
}

func (c *cycleSource) Block(n uint64) ([]byte, Errno) {
	return c.chunks[n%uint64(len(c.chunks))], OK
}

func FuzzExtentTree(f *testing.F) {
	// A depth-1 root pointing at block 100, a leaf there.
	seed := make([]byte, 60+1024)
	le := binary.LittleEndian
	le.PutUint16(seed[0:], extentMagic)
	le.PutUint16(seed[2:], 1)
	le.PutUint16(seed[4:], 4)
	le.PutUint16(seed[6:], 1)
	le.PutUint32(seed[12+4:], 100)
	leaf := seed[60:]
	le.PutUint16(leaf[0:], extentMagic)
	le.PutUint16(leaf[2:], 2)
	le.PutUint16(leaf[4:], 84)
	le.PutUint32(leaf[12:], 0)
	le.PutUint16(leaf[12+4:], 3)
	le.PutUint32(leaf[12+8:], 200)
	le.PutUint32(leaf[24:], 10)
	le.PutUint16(leaf[24+4:], extentInitMaxLen+2)
	le.PutUint32(leaf[24+8:], 300)
	f.Add(seed, uint32(11))
	f.Fuzz(func(t *testing.T, data []byte, lblk uint32) {
		s := testSuper(t)
		in := Inode{Ino: 12, Mode: SIFREG | 0o644, Flags: FlagExtents, Size: 1 << 20, CsumSeed: 7}
		copy(in.Block[:], data)
		src := &cycleSource{}
		for rest := data[min(len(data), 60):]; len(rest) > 0; rest = rest[min(len(rest), 1024):] {
			b := make([]byte, 1024)
			copy(b, rest)
			s.SetExtentBlockCsum(&in, b)
			src.chunks = append(src.chunks, b)
		}
		if len(src.chunks) == 0 {
			src.chunks = append(src.chunks, make([]byte, 1024))
		}
		r := Reader{Super: *s, Src: src}
		var m Mapping
		for _, l := range []uint32{lblk, 0, lblk + 1, ^uint32(0)} {
			if r.MapBlock(&in, l, &m) == OK && !m.Hole && (m.Len == 0 || m.Phys+uint64(m.Len) > s.BlocksCount) {
				t.Fatalf("block %d maps to %+v", l, m)
			}
		}
		var buf [4096]byte
		r.ReadAt(&in, uint64(lblk)*1024, buf[:])
	})
}

func FuzzDirBlock(f *testing.F) {
	blk := make([]byte, 1024)
	le := binary.LittleEndian
	le.PutUint32(blk[0:], 2)
	le.PutUint16(blk[4:], 12)
	blk[6], blk[7], blk[8] = 1, FtDir, '.'
	le.PutUint32(blk[12:], 2)
	le.PutUint16(blk[16:], 1024-12-12)
	blk[18], blk[19], blk[20], blk[21] = 2, FtDir, '.', '.'
	t := blk[1024-12:]
	le.PutUint16(t[4:], 12)
	t[7] = ftDirCsum
	f.Add(blk, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		s := testSuper(t)
		in := Inode{Ino: 2, Mode: SIFDIR | 0o755, Flags: FlagExtents, Size: 1024, CsumSeed: 9}
		if mode&1 != 0 {
			in.Flags |= FlagIndex
		}
		lblk := uint32(mode >> 1)
		b := make([]byte, 1024)
		copy(b, data)
		s.SetDirBlockCsum(&in, lblk, b)
		_, end, e := s.CheckDirBlock(&in, lblk, b)
		if e != OK {
			return
		}
		var d DirEntry
		for off := uint32(0); off < end; {
			next, e := s.DirNext(b, off, end, &d)
			if e != OK {
				return
			}
			if next <= off || next > end || len(d.Name) > MaxNameLen {
				t.Fatalf("entry at %d: next %d end %d name %d", off, next, end, len(d.Name))
			}
			off = next
		}
	})
}

// The whole read path over a real image with bytes changed. The image is
// made once a process, with a fixed uuid, hash seed and tree, so a corpus
// entry names the same structures next time (see fakeTime); its input is
// a list of (3-byte offset, xor byte) changes.
var fuzzImage struct {
	once sync.Once
	img  []byte
	err  error
}

func fuzzImageBytes(t testing.TB) []byte {
	needE2fsprogs(t)
	fuzzImage.once.Do(func() {
		d, err := os.MkdirTemp("", "ext4fuzz")
		if err != nil {
			fuzzImage.err = err
			return
		}
		defer os.RemoveAll(d)
		src := filepath.Join(d, "src")
		os.Mkdir(src, 0o755)
		w := func(n string, b []byte) { os.WriteFile(filepath.Join(src, n), b, 0o644) }
		w("small", []byte("hello\n"))
		w("three", pattern(1, 3000))
		f, _ := os.Create(filepath.Join(src, "sparse"))
		for i := 0; i < 12; i++ {
			f.WriteAt(pattern(i, 1024), int64(i)*2048)
		}
		f.Close()
		os.Mkdir(filepath.Join(src, "dir"), 0o755)
		for i := 0; i < 40; i++ {
			w(filepath.Join("dir", string(rune('a'+i%26))+string(rune('a'+i/26))+"-a-name-long-enough-to-fill-blocks"), []byte{byte(i)})
		}
		os.Symlink("small", filepath.Join(src, "fast"))
		os.Symlink("/dir/../slow", filepath.Join(src, "slowish"))
		// Longer than i_block's 60 bytes: a slow symlink, in a block.
		os.Symlink(strings.Repeat("dir/../", 10)+"three", filepath.Join(src, "slow"))
		when := time.Unix(1700000000, 0)
		filepath.Walk(src, func(p string, _ os.FileInfo, _ error) error {
			os.Lchown(p, 0, 0)
			os.Chtimes(p, when, when)
			return nil
		})
		tr := &tree{dir: src}
		im := makeImage(t, tr, 1024, "512K", "-O", "^has_journal,^resize_inode", "-N", "64")
		fuzzImage.img = im.img
	})
	if fuzzImage.err != nil {
		t.Fatal(fuzzImage.err)
	}
	return fuzzImage.img
}

func FuzzImage(f *testing.F) {
	// Seeds: a byte in the superblock, the first descriptor, the root
	// inode's table, and far into the image; with and without checksums.
	f.Add([]byte{0})
	f.Add([]byte{1})
	f.Add([]byte{0, 0x00, 0x04, 0x40, 0x01})
	f.Add([]byte{1, 0x00, 0x08, 0x08, 0x80})
	f.Add([]byte{1, 0x00, 0x10, 0x00, 0x04, 0x00, 0x30, 0x00, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := fuzzImageBytes(t)
		img := append([]byte(nil), orig...)
		if len(in) == 0 {
			return
		}
		mode, flips := in[0], in[1:]
		if mode&1 != 0 {
			// Checksums off: a flip then reaches the structure checks
			// behind them instead of stopping at the first crc.
			sb := img[SuperOffset : SuperOffset+SuperSize]
			binary.LittleEndian.PutUint32(sb[100:], binary.LittleEndian.Uint32(sb[100:])&^RoCompatMetadataCsum)
		}
		for ; len(flips) >= 4; flips = flips[4:] {
			off := int(flips[0]) | int(flips[1])<<8 | int(flips[2]&0x7F)<<16
			if flips[2]&0x80 == 0 {
				// Mostly the metadata: superblock, descriptors,
				// bitmaps, inode table and the first directories are
				// in the image's first blocks.
				off %= fuzzMetaBytes
			}
			img[off%len(img)] ^= flips[3]
		}
		walkImage(img)
	})
}

// fuzzMetaBytes is where the fuzz image keeps its metadata (the inode
// table of 64 inodes ends near block 53 of 1 KiB).
const fuzzMetaBytes = 96 << 10

// walkImage reads everything reachable, within limits a corrupt image
// cannot stretch: entries, depth, bytes read.
func walkImage(img []byte) {
	var r Reader
	if _, _, e := r.Mount(img[SuperOffset:SuperOffset+SuperSize], nil); e != OK {
		return
	}
	r.Src = &memSource{img: img, bs: uint64(r.BlockSize)}
	budget := 2000
	var walk func(ino uint32, depth int)
	walk = func(ino uint32, depth int) {
		var in Inode
		if depth > 8 || budget <= 0 || r.Inode(ino, &in) != OK {
			return
		}
		budget--
		var buf [8192]byte
		switch {
		case in.IsReg():
			r.ReadAt(&in, 0, buf[:])
			r.ReadAt(&in, in.Size/2, buf[:100])
		case in.IsSymlink():
			r.Readlink(&in, buf[:PathMax])
		case in.IsDir():
			var pos DirPos
			var d DirEntry
			for budget > 0 && r.ReadDir(&in, &pos, &d) == OK {
				budget--
				if string(d.Name) != "." && string(d.Name) != ".." {
					walk(d.Ino, depth+1)
				}
			}
		}
	}
	walk(RootIno, 0)
	var in Inode
	for _, p := range []string{"/small", "/slow", "/slowish", "/dir/ab-a-name-long-enough-to-fill-blocks", "/fast"} {
		r.Resolve([]byte(p), true, &in)
	}
}

// TestFuzzImageIsReadable checks the fuzz image itself reads cleanly, so
// the fuzz target starts from a good volume.
func TestFuzzImageIsReadable(t *testing.T) {
	img := fuzzImageBytes(t)
	var r Reader
	if m, why, e := r.Mount(img[SuperOffset:SuperOffset+SuperSize], &memSource{img: img, bs: 1024}); e != OK || m != MountReadWrite {
		t.Fatalf("mount: %d %s %v", m, why, e)
	}
	r.Src = &memSource{img: img, bs: 1024}
	var in Inode
	for _, p := range []string{"/small", "/slow", "/fast", "/sparse", "/dir/ab-a-name-long-enough-to-fill-blocks"} {
		if e := r.Resolve([]byte(p), true, &in); e != OK {
			t.Errorf("%s: %v", p, e)
		}
	}
}
