//go:build !arm64

package ext4fs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// The mount on the host: an image e2fsprogs' mke2fs made from a tree
// in a temporary directory is the disk (bcache.IO reads the file), and
// the tree as kernel/fs shows it is compared with the host's own view
// of the directory it was made from.

func mkfs(t testing.TB, src string, blockSize int, extra ...string) string {
	t.Helper()
	return mkfsSize(t, src, blockSize, "16M", extra...)
}

// mkfsSize is mkfs of an image of size (mke2fs's syntax: "48M").
func mkfsSize(t testing.TB, src string, blockSize int, size string, extra ...string) string {
	t.Helper()
	for _, c := range []string{"mke2fs", "e2fsck"} {
		if _, err := exec.LookPath(c); err != nil {
			if _, err := os.Stat("/sbin/" + c); err != nil {
				t.Skipf("%s: e2fsprogs missing (%s): make deps installs it", t.Name(), c)
			}
		}
	}
	img := filepath.Join(t.TempDir(), "disk.img")
	args := append([]string{"-q", "-F", "-t", "ext4", "-b", fmt.Sprint(blockSize)}, extra...)
	args = append(args, "-d", src, img, size)
	if out, err := exec.Command("mke2fs", args...).CombinedOutput(); err != nil {
		t.Fatalf("mke2fs %v: %v\n%s", args, err, out)
	}
	// e2fsck -D makes the big directory an htree; status 1 is "fixed".
	if out, err := exec.Command("e2fsck", "-fyD", img).CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("e2fsck -fyD: %v\n%s", err, out)
		}
	}
	return img
}

// sourceTree makes the directory an image is made from.
func sourceTree(t testing.TB) string {
	t.Helper()
	d := t.TempDir()
	put := func(name string, n int) {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + n + i>>11)
		}
		if err := os.WriteFile(filepath.Join(d, name), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"a", "a/b", "a/b/c", "many"} {
		if err := os.Mkdir(filepath.Join(d, dir), 0o751); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{0, 1, 4095, 4096, 4097, 70000, 300000} {
		put(fmt.Sprintf("a/f%d", n), n)
	}
	for i := 0; i < 150; i++ {
		put(fmt.Sprintf("many/entry-%03d", i), i)
	}
	f, err := os.Create(filepath.Join(d, "a/b/sparse"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("start"), 0)
	f.WriteAt([]byte("middle"), 1<<20)
	f.Truncate(3 << 20)
	f.Close()
	os.Symlink("b/c", filepath.Join(d, "a/fast"))
	os.Symlink(strings.Repeat("x/", 50)+"end", filepath.Join(d, "a/slow"))
	os.Chtimes(filepath.Join(d, "a/f1"), time.Unix(1234567890, 0), time.Unix(1500000000, 123456789))
	return d
}

// runs counts ReadRun's calls (readahead: a run a request).
var runs int

// disk makes img block device vda and points the buffer cache at it.
func disk(t *testing.T, img string) (major, minor uint32) {
	t.Helper()
	major, minor, _ = diskOf(t, img, false)
	return major, minor
}

// diskOf is disk, read-only or not; writes land in the returned bytes
// (the image file is left as it was), and flushes are counted in flushes.
func diskOf(t *testing.T, img string, readOnly bool) (major, minor uint32, bytes *[]byte) {
	t.Helper()
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	block.NDisks = 0
	d, ok := block.AddVirtio(uint64(len(b))/512, readOnly, true, 0)
	if !ok {
		t.Fatal("no disk slot")
	}
	bcache.HostDisk(b, readOnly)
	flushes = 0
	bcache.FlushIO = func(int) unix.Errno { flushes++; return 0 }
	read := bcache.ReadRun
	bcache.ReadRun = func(k int, sector uint64, pas *[bcache.MaxRun]uintptr, n int) unix.Errno {
		runs++
		return read(k, sector, pas, n)
	}
	return d.Major, d.First, &b
}

// flushes counts bcache.Flush's calls.
var flushes int

func setup(t *testing.T) { setupBuf(t, 16) }

// setupBuf is setup with an app buffer of bufPages pages, whose address
// it returns.
func setupBuf(t *testing.T, bufPages int) uintptr {
	t.Helper()
	buf := usermem.HostReset(4096, bufPages)
	vfs.Reset()
	if !fs.HostReset(64 << 20) {
		t.Fatal("fs init")
	}
	vols = [MaxVolumes]volume{}
	bySuper = [fs.MaxSupers]int8{}
	tx.v, tx.n = nil, 0
	journal.v, journal.open = nil, false
	clock.WallAtBoot = 1700000000e9
	Say = func(level uint8, line []byte) { t.Logf("log %d: %s", level, line) }
	return buf
}

// compare walks host directory dir and inode i together.
func compare(t *testing.T, dir string, i int32) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if e := fs.Fill(i); e != 0 {
		t.Fatalf("%s: fill: %v", dir, e)
	}
	n := 0
	for pos := int64(2); ; {
		_, _, next, ok := fs.Entry(i, pos)
		if !ok {
			break
		}
		pos = next
		n++
	}
	if i == fs.Supers[fs.Inodes[i].Super].Root && fs.LookupIn(i, []byte("lost+found")) >= 0 {
		n-- // mke2fs's own
	}
	if n != len(ents) {
		t.Errorf("%s: %d entries, want %d", dir, n, len(ents))
	}
	for _, de := range ents {
		p := filepath.Join(dir, de.Name())
		c := fs.LookupIn(i, []byte(de.Name()))
		if c < 0 {
			t.Errorf("%s: missing", p)
			continue
		}
		var want syscall.Stat_t
		if err := syscall.Lstat(p, &want); err != nil {
			t.Fatal(err)
		}
		var got unix.Stat_t
		fs.Inodes[c].StatTo(&got)
		if got.Mode != want.Mode || got.Size != want.Size && want.Mode&syscall.S_IFMT != syscall.S_IFDIR ||
			got.Uid != want.Uid || got.Gid != want.Gid || got.Mtim.Sec != want.Mtim.Sec {
			t.Errorf("%s: mode %o size %d uid %d gid %d mtime %d, want %o %d %d %d %d", p,
				got.Mode, got.Size, got.Uid, got.Gid, got.Mtim.Sec, want.Mode, want.Size, want.Uid, want.Gid, want.Mtim.Sec)
		}
		switch {
		case de.IsDir():
			compare(t, p, c)
		case de.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			if string(fs.Inodes[c].Link()) != target {
				t.Errorf("%s: link %q, want %q", p, fs.Inodes[c].Link(), target)
			}
		default:
			want, _ := os.ReadFile(p)
			var got []byte
			var zero [mm.PageSize]byte
			for off := int64(0); off < fs.Inodes[c].Size; {
				b, e := fs.Chunk(&fs.Inodes[c], off, &zero)
				if e != 0 || len(b) == 0 {
					t.Fatalf("%s: read at %d: %v", p, off, e)
				}
				got = append(got, b...)
				off += int64(len(b))
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: %d bytes differ from the host's %d", p, len(got), len(want))
			}
		}
	}
}

func TestMount(t *testing.T) {
	src := sourceTree(t)
	for _, bs := range []int{4096, 1024} {
		t.Run(fmt.Sprint(bs), func(t *testing.T) {
			setup(t)
			major, minor := disk(t, mkfs(t, src, bs))
			s, e := Mount(major, minor, true, false)
			if e != 0 {
				t.Fatalf("mount: %v", e)
			}
			{
				// Readahead: 300000 bytes (74 pages, one extent) in
				// runs of fs.StoreRun pages, 3 requests, whatever the
				// block size.
				root := fs.Supers[s].Root
				fs.Fill(root)
				a := fs.LookupIn(root, []byte("a"))
				fs.Fill(a)
				f := &fs.Inodes[fs.LookupIn(a, []byte("f300000"))]
				runs = 0
				var zero [mm.PageSize]byte
				for off := int64(0); off < f.Size; {
					b, _ := fs.Chunk(f, off, &zero)
					off += int64(len(b))
				}
				if runs != 3 {
					t.Errorf("74 pages read in %d requests, want 3 (runs of %d)", runs, fs.StoreRun)
				}
			}
			compare(t, src, fs.Supers[s].Root)
			var st unix.Statfs_t
			fs.Statfs(fs.Supers[s].Root, &st)
			if st.Type != superMagic || st.Bsize != int64(bs) || st.Flags&unix.ST_RDONLY == 0 {
				t.Errorf("statfs: %+v", st)
			}
			var rs unix.Stat_t
			fs.Inodes[fs.Supers[s].Root].StatTo(&rs)
			if rs.Dev != unix.Mkdev(254, 0) || rs.Ino != rootIno {
				t.Errorf("root: dev %#x ino %d, want 254:0 and 2", rs.Dev, rs.Ino)
			}
			// A second mount of the device is the same instance.
			if s2, e := Mount(major, minor, true, false); e != 0 || s2 != s {
				t.Errorf("second mount: %d %v, want %d", s2, e, s)
			}
			fs.FreeSuper(s)
			if vols[0].used || bcache.Cached() != 0 {
				t.Errorf("after release: volume used %v, %d buffers", vols[0].used, bcache.Cached())
			}
		})
	}
}

func TestMountRefuses(t *testing.T) {
	src := sourceTree(t)
	img := mkfs(t, src, 4096)
	setup(t)
	major, minor, _ := diskOf(t, img, true)
	if _, e := Mount(major, minor, false, false); e != unix.EACCES {
		t.Errorf("read-write on a read-only device: %v, want EACCES", e)
	}
	if _, e := Mount(major, minor+1, true, false); e != unix.ENXIO {
		t.Errorf("no such partition: %v, want ENXIO", e)
	}
	// A superblock whose magic is gone: not ext4 (EINVAL), and the
	// kernel goes on.
	b, _ := os.ReadFile(img)
	b[1024+0x38] ^= 0xff
	bad := filepath.Join(t.TempDir(), "bad.img")
	os.WriteFile(bad, b, 0o644)
	setup(t)
	major, minor = disk(t, bad)
	if _, e := Mount(major, minor, true, false); e != unix.EINVAL {
		t.Errorf("bad magic: %v, want EINVAL", e)
	}
	// A feature this kernel does not read: EINVAL, named in the log.
	setup(t)
	var said string
	Say = func(level uint8, line []byte) { said = string(line) }
	major, minor = disk(t, mkfs(t, src, 4096, "-O", "inline_data"))
	if _, e := Mount(major, minor, true, false); e != unix.EINVAL || !strings.Contains(said, "inline_data") {
		t.Errorf("inline_data: %v %q, want EINVAL naming it", e, said)
	}
}

// TestCacheReclaim reads files bigger than the page cache's bound: the
// clean pages of the file read before give way, and every byte still
// reads right.
func TestCacheReclaim(t *testing.T) {
	src := sourceTree(t)
	img := mkfs(t, src, 4096)
	setup(t)
	if !fs.HostReset(40 * mm.PageSize) { // a bound of 40 pages
		t.Fatal("fs init")
	}
	major, minor := disk(t, img)
	s, e := Mount(major, minor, true, false)
	if e != 0 {
		t.Fatal(e)
	}
	compare(t, src, fs.Supers[s].Root) // 300000 bytes is 74 pages
	if n := fs.CachePages(); n > 40 {
		t.Errorf("%d pages cached, past the bound of 40", n)
	}
}

// TestBigTree walks a volume with more entries than the inode table
// holds: the entries of directories already walked give way (and are
// read again when looked in), so every file is found and read.
func TestBigTree(t *testing.T) {
	src := t.TempDir()
	const dirs, per = 4, 2600 // 10,400 files: more than fs.MaxInodes
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(src, fmt.Sprint("d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < per; i++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), []byte(fmt.Sprint(d, "/", i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	img := filepath.Join(t.TempDir(), "big.img")
	if out, err := exec.Command("mke2fs", "-q", "-F", "-t", "ext4", "-N", "12000", "-d", src, img, "64M").CombinedOutput(); err != nil {
		t.Skipf("TestBigTree: mke2fs: %v %s", err, out)
	}
	setup(t)
	major, minor := disk(t, img)
	s, e := Mount(major, minor, true, false)
	if e != 0 {
		t.Fatal(e)
	}
	root := fs.Supers[s].Root
	var zero [mm.PageSize]byte
	for round := 0; round < 2; round++ {
		for d := 0; d < dirs; d++ {
			if e := fs.Fill(root); e != 0 {
				t.Fatalf("fill root: %v", e)
			}
			dir := fs.LookupIn(root, []byte(fmt.Sprint("d", d)))
			if e := fs.Fill(dir); e != 0 {
				t.Fatalf("round %d, d%d: fill: %v", round, d, e)
			}
			for i := 0; i < per; i++ {
				c := fs.LookupIn(dir, []byte(fmt.Sprint(i)))
				if c < 0 {
					t.Fatalf("round %d: d%d/%d missing", round, d, i)
				}
				b, e := fs.Chunk(&fs.Inodes[c], 0, &zero)
				if e != 0 || string(b) != fmt.Sprint(d, "/", i) {
					t.Fatalf("round %d: d%d/%d reads %q, %v", round, d, i, b, e)
				}
			}
		}
		if n := fs.Supers[s].Inodes; n >= dirs*per {
			t.Fatalf("round %d: %d inodes in the tree: none gave way", round, n)
		}
	}
}
