package ext4

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"testing"
)

// rawInode is inode ino's bytes inside the image, to change in place.
func (im *image) rawInode(t *testing.T, ino uint32) []byte {
	t.Helper()
	g, off, e := im.r.InodeLocation(ino)
	if e != OK {
		t.Fatal(e)
	}
	gd, _ := im.rawDesc(t, g)
	at := gd.InodeTable*uint64(im.r.BlockSize) + off
	return im.img[at : at+uint64(im.r.InodeSize)]
}

func (im *image) rawDesc(t *testing.T, g uint32) (GroupDesc, []byte) {
	t.Helper()
	blk, off := im.r.GroupDescLocation(g)
	at := blk*uint64(im.r.BlockSize) + uint64(off)
	d := im.img[at : at+uint64(im.r.DescSize)]
	var gd GroupDesc
	if e := im.r.ParseGroupDesc(g, d, &gd); e != OK {
		t.Fatalf("group %d: %v", g, e)
	}
	return gd, d
}

func (im *image) rawBlock(n uint64) []byte {
	bs := uint64(im.r.BlockSize)
	return im.img[n*bs : (n+1)*bs]
}

// TestWritePrimitives changes a copy of an image with the write-side
// primitives only (a hard link added and another removed from the root
// directory; a block allocated from a bitmap and appended to a file's
// extent root, with every count and checksum that implies) and runs
// e2fsck -fn on the result: it must be clean, and the reader must read the
// change back.
func TestWritePrimitives(t *testing.T) {
	needE2fsprogs(t)
	tr := buildTree(t, true)
	for _, bs := range []int{1024, 4096} {
		im := makeImage(t, tr, bs, "16M")
		r := &im.r
		root := im.resolve(t, "/", false)
		f1 := im.resolve(t, "/f1", false)
		var m Mapping
		if e := r.MapBlock(root, 0, &m); e != OK {
			t.Fatal(e)
		}
		b := im.rawBlock(m.Phys)
		_, end, e := r.CheckDirBlock(root, 0, b)
		if e != OK {
			t.Fatal(e)
		}
		if e := r.DirAdd(b, end, f1.Ino, FtReg, []byte("newlink")); e != OK {
			t.Fatalf("dir add: %v", e)
		}
		if ino, e := r.DirRemove(b, end, []byte("hardlink")); e != OK || ino != f1.Ino {
			t.Fatalf("dir remove: %d %v", ino, e)
		}
		if e := r.SetDirBlockCsum(root, 0, b); e != OK {
			t.Fatal(e)
		}

		// Append a block to /f1025.
		in := im.resolve(t, "/f1025", false)
		if e := r.MapBlock(in, 0, &m); e != OK {
			t.Fatal(e)
		}
		g := uint32((m.Phys - uint64(r.FirstDataBlock)) / uint64(r.BlocksPerGroup))
		gd, d := im.rawDesc(t, g)
		bitmap := im.rawBlock(gd.BlockBitmap)
		goal := uint32(m.Phys-uint64(r.FirstDataBlock)) % r.BlocksPerGroup
		bit, e := FindFree(bitmap, r.BlocksPerGroup, goal+1)
		if e != OK {
			t.Fatal(e)
		}
		SetBit(bitmap, bit)
		r.SetBlockBitmapCsum(g, d, bitmap)
		r.AddGroupFree(g, d, -1, 0)
		r.AddSuperFree(im.img[SuperOffset:SuperOffset+SuperSize], -1, 0)
		phys := uint64(g)*uint64(r.BlocksPerGroup) + uint64(bit) + uint64(r.FirstDataBlock)
		tail := pattern(99, 100)
		copy(im.rawBlock(phys), tail)
		raw := im.rawInode(t, in.Ino)
		lblk := uint32((in.Size + uint64(bs) - 1) / uint64(bs))
		if e := ExtentInsert(raw[inodeBlockOff:inodeBlockOff+inodeBlockLen], lblk, phys, 1); e != OK {
			t.Fatalf("extent append: %v", e)
		}
		le := binary.LittleEndian
		newSize := uint64(lblk)*uint64(bs) + uint64(len(tail))
		le.PutUint32(raw[4:], uint32(newSize))
		le.PutUint32(raw[28:], le.Uint32(raw[28:])+uint32(bs/512))
		r.SetInodeCsum(in.Ino, raw)

		if err := os.WriteFile(im.path, im.img, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(tool("e2fsck"), "-fn", im.path).CombinedOutput(); err != nil {
			t.Fatalf("%d-byte blocks: e2fsck -fn: %v\n%s", bs, err, out)
		}
		im = loadImage(t, im.path)
		if a, b := im.resolve(t, "/newlink", false), im.resolve(t, "/f1", false); a.Ino != b.Ino {
			t.Errorf("newlink: inode %d want %d", a.Ino, b.Ino)
		}
		var x Inode
		if e := im.r.Resolve([]byte("/hardlink"), false, &x); e != ENOENT {
			t.Errorf("removed name: %v", e)
		}
		got := im.readAll(t, im.resolve(t, "/f1025", false))
		want := append(pattern(2, 1025), make([]byte, int(lblk)*bs-1025)...)
		want = append(want, tail...)
		if !bytes.Equal(got, want) {
			t.Errorf("%d-byte blocks: appended file reads back wrong (%d bytes)", bs, len(got))
		}
	}
}

// MoveEntries moves a node's upper entries to the end of another of the
// same depth, refusing a different depth or too many.
func TestMoveEntries(t *testing.T) {
	a, b := make([]byte, 1024), make([]byte, 1024)
	InitExtentNode(a, 0)
	InitExtentNode(b, 0)
	for k := 0; k < 10; k++ {
		if e := ExtentInsert(a, uint32(3*k), uint64(100+3*k), 1); e != OK {
			t.Fatal(e)
		}
	}
	if e := MoveEntries(b, a, 6); e != OK {
		t.Fatal(e)
	}
	if na, nb := entryCount(a), entryCount(b); na != 6 || nb != 4 {
		t.Fatalf("after a move of 4: %d and %d entries", na, nb)
	}
	if l := EntryLblk(b, 0); l != 18 {
		t.Fatalf("the moved first entry starts at %d, want 18", l)
	}
	root := make([]byte, 60)
	InitExtentNode(root, 1)
	if e := MoveEntries(root, a, 0); e != EINVAL {
		t.Fatalf("a move between depths: %v, want EINVAL", e)
	}
	InitExtentNode(root, 0)
	if e := MoveEntries(root, a, 0); e != ENOSPC {
		t.Fatalf("six entries into a root of four: %v, want ENOSPC", e)
	}
	if e := MoveEntries(root, a, 7); e != EINVAL {
		t.Fatalf("a move from past the end: %v, want EINVAL", e)
	}
}

func entryCount(b []byte) uint16 {
	n, _, _, _ := ExtentNode(b)
	return n
}
