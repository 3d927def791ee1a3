package ext4

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// TestReadImage builds a tree, makes 1 KiB and 4 KiB block images of it
// with mke2fs -d and reads every path back: the listing, each file's bytes,
// symlink targets and stat fields against the tree, inode numbers, block
// counts, times and device numbers against debugfs.
func TestReadImage(t *testing.T) {
	needE2fsprogs(t)
	tr := buildTree(t, false)
	for _, bs := range []int{1024, 4096} {
		t.Run(fmt.Sprintf("%dk", bs/1024), func(t *testing.T) {
			im := makeImage(t, tr, bs, "64M")
			checkTree(t, im, tr)
			checkDeepExtents(t, im, tr, bs)
		})
	}
	// 64 KiB blocks (rec_len's 17-bit encoding), on the small tree.
	t.Run("64k", func(t *testing.T) {
		small := buildTree(t, true)
		checkTree(t, makeImage(t, small, 65536, "16M"), small)
	})
}

func checkTree(t *testing.T, im *image, tr *tree) {
	err := filepath.Walk(tr.dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tr.dir, p)
		rel = "/" + filepath.ToSlash(rel)
		if rel == "/." {
			rel = "/"
		}
		in := im.resolve(t, rel, false)
		st := fi.Sys().(*syscall.Stat_t)
		var s Stat
		StatOf(in, &s)
		if uint32(s.Mode) != st.Mode {
			t.Errorf("%s: mode %o want %o", rel, s.Mode, st.Mode)
		}
		if s.UID != st.Uid || s.GID != st.Gid {
			t.Errorf("%s: uid/gid %d/%d want %d/%d", rel, s.UID, s.GID, st.Uid, st.Gid)
		}
		if !fi.IsDir() && s.Nlink != uint32(st.Nlink) {
			t.Errorf("%s: nlink %d want %d", rel, s.Nlink, st.Nlink)
		}
		if rel != "/" && s.Mtime.Sec != st.Mtim.Sec { // mke2fs stamps the root itself
			t.Errorf("%s: mtime %d want %d", rel, s.Mtime.Sec, st.Mtim.Sec)
		}
		switch {
		case fi.Mode().IsRegular() && fi.Size() > 1<<32:
			// Only its data and the hole's end: 5 GiB is too much to read.
			buf := make([]byte, 9000)
			n, e := im.r.ReadAt(in, hugeDataOff-4000, buf)
			if e != OK || n != 9000 || !bytes.Equal(buf[:4000], make([]byte, 4000)) ||
				!bytes.Equal(buf[4000:], pattern(77, 5000)) || in.Size != uint64(fi.Size()) {
				t.Errorf("%s: size %d, read %d %v", rel, in.Size, n, e)
			}
		case fi.Mode().IsRegular():
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := im.readAll(t, in); !bytes.Equal(got, want) {
				t.Errorf("%s: content differs (%d bytes, want %d)", rel, len(got), len(want))
			}
		case fi.Mode()&os.ModeSymlink != 0:
			want, _ := os.Readlink(p)
			var buf [PathMax]byte
			n, e := im.r.Readlink(in, buf[:])
			if e != OK || string(buf[:n]) != want {
				t.Errorf("%s: readlink %q %v want %q", rel, buf[:n], e, want)
			}
		case fi.IsDir():
			got := im.list(t, in)
			ents, _ := os.ReadDir(p)
			want := []string{".", ".."}
			for _, e := range ents {
				want = append(want, e.Name())
			}
			if rel == "/" {
				want = append(want, "lost+found")
			}
			var names []string
			for n := range got {
				names = append(names, n)
			}
			sort.Strings(names)
			sort.Strings(want)
			if strings.Join(names, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("%s: listing has %d names, want %d", rel, len(names), len(want))
			}
			// Inode numbers as debugfs sees them.
			ref := debugfsList(t, im.path, rel)
			for n, ino := range got {
				if ref[n] != ino {
					t.Errorf("%s/%s: inode %d, debugfs %d", rel, n, ino, ref[n])
				}
			}
			if rel == "/"+tr.manyDir && in.Size > uint64(im.r.BlockSize) {
				if in.Flags&FlagIndex == 0 {
					t.Errorf("%s: not htree-indexed (flags %#x): the test does not cover dx blocks", rel, in.Flags)
				}
				var m Mapping
				if e := im.r.MapBlock(in, 0, &m); e != OK {
					t.Fatal(e)
				}
				root, _ := im.r.Src.Block(m.Phys)
				t.Logf("%s: htree with %d index levels below the root", rel, root[30])
				if im.r.BlockSize == 1024 && root[30] < 1 {
					t.Errorf("%s: no dx_node level", rel)
				}
			}
		}
		if !strings.HasPrefix(rel, "/"+tr.manyDir+"/") {
			ds := debugfsStat(t, im.path, rel)
			if ds.blockcount != s.Blocks {
				t.Errorf("%s: blocks %d, debugfs %d", rel, s.Blocks, ds.blockcount)
			}
			if ds.links != int(s.Nlink) {
				t.Errorf("%s: links %d, debugfs %d", rel, s.Nlink, ds.links)
			}
			for name, tm := range map[string]Time{"atime": s.Atime, "mtime": s.Mtime, "ctime": s.Ctime, "crtime": s.Crtime} {
				raw := ds.times[name]
				want := decodeTime(uint32(raw[0]), uint32(raw[1]), true)
				if tm != want {
					t.Errorf("%s: %s %+v, debugfs %#x:%#x", rel, name, tm, raw[0], raw[1])
				}
			}
			if ds.hasDev && (int(s.RdevMajor) != ds.major || int(s.RdevMinor) != ds.minor) {
				t.Errorf("%s: device %d:%d, debugfs %d:%d", rel, s.RdevMajor, s.RdevMinor, ds.major, ds.minor)
			}
			if fi.Mode()&os.ModeDevice != 0 {
				maj, min := uint32((st.Rdev>>8)&0xfff), uint32((st.Rdev&0xff)|((st.Rdev>>12)&0xfff00))
				if s.RdevMajor != maj || s.RdevMinor != min {
					t.Errorf("%s: device %d:%d want %d:%d", rel, s.RdevMajor, s.RdevMinor, maj, min)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Paths through symlinks, and the errors.
	if in := im.resolve(t, "/todir/leaf", true); string(im.readAll(t, in)) != "leaf\n" {
		t.Errorf("/todir/leaf through a symlink")
	}
	if in := im.resolve(t, "/abs", true); string(im.readAll(t, in)) != "leaf\n" {
		t.Errorf("/abs: absolute symlink")
	}
	f1025 := im.resolve(t, "/f1025", false)
	if in := im.resolve(t, "/sub/up", true); in.Ino != f1025.Ino {
		t.Errorf("/sub/up -> ../fast -> f1025: inode %d want %d", in.Ino, f1025.Ino)
	}
	if a, b := im.resolve(t, "/f1", false), im.resolve(t, "/sub/hardlink2", false); a.Ino != b.Ino || a.Links != 3 {
		t.Errorf("hard links: inodes %d %d links %d", a.Ino, b.Ino, a.Links)
	}
	var in Inode
	for path, want := range map[string]Errno{"/loop": ELOOP, "/nope": ENOENT, "/f1/x": ENOTDIR,
		"/" + strings.Repeat("n", 256): ENAMETOOLONG} {
		if e := im.r.Resolve([]byte(path), true, &in); e != want {
			t.Errorf("resolve %s: %v want %v", path, e, want)
		}
	}
	if os.Geteuid() == 0 {
		if in := im.resolve(t, "/f4096", false); in.UID != bigUID || in.GID != bigGID {
			t.Errorf("big uid/gid: %d/%d", in.UID, in.GID)
		}
	}
	if in := im.resolve(t, "/f1", false); in.Mtime.Nsec != 987654321 && in.Mtime.Nsec != 0 {
		t.Errorf("mtime nsec %d", in.Mtime.Nsec)
	}
}

// checkDeepExtents checks the sparse file's tree is deeper than the root
// and that its holes map as holes.
func checkDeepExtents(t *testing.T, im *image, tr *tree, bs int) {
	in := im.resolve(t, "/"+tr.sparse, false)
	var hdr extentHeader
	if e := parseExtentHeader(in.Block[:], &hdr); e != OK {
		t.Fatal(e)
	}
	if hdr.depth < 1 {
		t.Errorf("sparse file's extent tree has depth %d", hdr.depth)
	}
	t.Logf("%d-byte blocks: sparse file's tree depth %d", bs, hdr.depth)
	var m Mapping
	hole := uint32(4096 / bs)
	if e := im.r.MapBlock(in, hole, &m); e != OK || !m.Hole || m.Len != hole {
		t.Errorf("block %d: %+v %v, want a hole of %d", hole, m, e, hole)
	}
	if e := im.r.MapBlock(in, 0, &m); e != OK || m.Hole || m.Len != hole {
		t.Errorf("block 0: %+v %v", m, e)
	}
}
