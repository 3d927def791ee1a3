package ext4

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestSupport checks the mount answer and its one-line reason on images
// mke2fs makes with features this package does not read, and on a
// superblock with an unknown feature bit.
func TestSupport(t *testing.T) {
	needE2fsprogs(t)
	tr := &tree{dir: t.TempDir()}
	for _, c := range []struct {
		opts string
		want Mountable
		why  string
	}{
		{"inline_data", MountNo, "inline_data"},
		{"bigalloc", MountReadOnly, "bigalloc"},
		{"quota", MountReadOnly, "quota"},
		{"^metadata_csum,^64bit,^uninit_bg", MountReadWrite, ""},
		{"metadata_csum_seed", MountReadWrite, ""},
	} {
		p := filepath.Join(t.TempDir(), "x.img")
		run(t, "mke2fs", "-q", "-F", "-t", "ext4", "-O", c.opts, "-d", tr.dir, p, "16M")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var r Reader
		m, why, _ := r.Mount(b[SuperOffset:SuperOffset+SuperSize], nil)
		if m != c.want || why != c.why {
			t.Errorf("-O %s: %d %q, want %d %q", c.opts, m, why, c.want, c.why)
		}
		if m == MountReadWrite {
			r.Src = &memSource{img: b, bs: uint64(r.BlockSize)}
			var in Inode
			if e := r.Resolve([]byte("/lost+found"), false, &in); e != OK {
				t.Errorf("-O %s: %v", c.opts, e)
			}
		}
	}
	// An incompat bit no one knows, with the checksum made good again.
	p := filepath.Join(t.TempDir(), "y.img")
	run(t, "mke2fs", "-q", "-F", "-t", "ext4", p, "8M")
	b, _ := os.ReadFile(p)
	sb := b[SuperOffset : SuperOffset+SuperSize]
	sb[96+3] |= 0x40
	SetSuperCsum(sb)
	var r Reader
	if m, why, e := r.Mount(sb, nil); m != MountNo || why != "unknown incompat feature" || e != EOPNOTSUPP {
		t.Errorf("unknown incompat: %d %q %v", m, why, e)
	}
	sb[superChecksumOff] ^= 1
	if _, _, e := r.Mount(sb, nil); e != EBADMSG {
		t.Errorf("bad superblock checksum: %v", e)
	}
}

// TestUnwrittenAndTimes: blocks debugfs fallocates are unwritten extents
// and read as zeros; times past 2038 and before 1970 decode through the
// extra field's epoch bits.
func TestUnwrittenAndTimes(t *testing.T) {
	needE2fsprogs(t)
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "prealloc"), nil, 0o644)
	os.WriteFile(filepath.Join(d, "times"), []byte("x"), 0o644)
	tr := &tree{dir: d}
	im := makeImage(t, tr, 4096, "16M")
	debugfs(t, im.path, true, "fallocate /prealloc 0 9")
	debugfs(t, im.path, true, "sif /prealloc size 40960")
	const future, past = 7952342400, -1000000000 // 2222, 1938
	debugfs(t, im.path, true, "sif /times mtime @7952342400")
	debugfs(t, im.path, true, "sif /times atime @-1000000000")
	// ctime's extra word raw: nanoseconds above two epoch bits.
	debugfs(t, im.path, true, "sif /times ctime 0x10")
	debugfs(t, im.path, true, fmt.Sprintf("sif /times ctime_extra %#x", 123456789<<2|1))
	im = loadImage(t, im.path)
	in := im.resolve(t, "/prealloc", false)
	var m Mapping
	if e := im.r.MapBlock(in, 3, &m); e != OK || !m.Unwritten || m.Len != 7 {
		t.Errorf("fallocated block 3: %+v %v", m, e)
	}
	got := make([]byte, in.Size)
	for i := range got {
		got[i] = 0xAA
	}
	if n, e := im.r.ReadAt(in, 0, got); e != OK || n != 40960 || !bytes.Equal(got, make([]byte, 40960)) {
		t.Errorf("unwritten extent: %d bytes %v, not all zero", n, e)
	}
	in = im.resolve(t, "/times", false)
	if want := (Time{Sec: 1<<32 + 0x10, Nsec: 123456789}); in.Ctime != want {
		t.Errorf("ctime %+v want %+v", in.Ctime, want)
	}
	if in.Mtime.Sec != future || in.Atime.Sec != past {
		t.Errorf("times: mtime %d atime %d, want %d %d", in.Mtime.Sec, in.Atime.Sec, int64(future), int64(past))
	}
}
