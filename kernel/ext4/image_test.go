package ext4

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The host harness: images made by e2fsprogs' mke2fs -d from a tree built
// here, read through Reader over the image bytes, checked against the tree
// and against debugfs.

// memSource serves blocks of an image held in memory.
type memSource struct {
	img []byte
	bs  uint64
}

func (m *memSource) Block(n uint64) ([]byte, Errno) {
	if n >= uint64(len(m.img))/m.bs {
		return nil, EIO
	}
	return m.img[n*m.bs : (n+1)*m.bs], OK
}

func needE2fsprogs(t testing.TB) {
	t.Helper()
	for _, c := range []string{"mke2fs", "debugfs"} {
		if _, err := exec.LookPath(c); err != nil {
			if _, err := os.Stat("/usr/sbin/" + c); err != nil {
				t.Skipf("e2fsprogs missing (%s not found): make deps installs it", c)
			}
		}
	}
}

func tool(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return "/usr/sbin/" + name
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(tool(name), args...)
	cmd.Env = append(os.Environ(), fakeTime)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// debugfs runs one request on img and returns its output (without the
// version banner it prints on stderr).
func debugfs(t testing.TB, img string, write bool, req string) string {
	t.Helper()
	args := []string{"-R", req, img}
	if write {
		args = append([]string{"-w"}, args...)
	}
	cmd := exec.Command(tool("debugfs"), args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("debugfs %q: %v", req, err)
	}
	return out.String()
}

// pattern is deterministic file content that is never a whole zero block
// (mke2fs -d leaves zero blocks as holes).
func pattern(seed, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed*2654435761 + 1)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x) | 1
	}
	return b
}

// tree describes what the test built besides plain files.
type tree struct {
	dir       string
	sparse    string // many extents: a tree deeper than one level
	manyDir   string
	manyCount int
}

// fakeTime asks e2fsprogs to stamp its own times from a constant.
// 1.47.0 honours it only in part (inode ctimes and s_wtime are the real
// time), so an image made twice has the same layout, not the same bytes:
// a fuzz corpus entry's offsets name the same structures, though the
// checksums over those times differ.
const fakeTime = "E2FSPROGS_FAKE_TIME=1700000000"

const (
	hugeDataOff = 5<<30 + 12345
	bigUID      = 100000
	bigGID      = 200000
)

// buildTree makes the source directory: files of many sizes, a sparse file
// with many extents, a directory big enough for an htree, hard links,
// symlinks of both kinds, a fifo and device nodes (as root), a big uid/gid
// and times with nanoseconds.
func buildTree(t testing.TB, small bool) *tree {
	t.Helper()
	d := t.TempDir()
	tr := &tree{dir: d, sparse: "sparse", manyDir: "many", manyCount: 600}
	if small {
		tr.manyCount = 120
	}
	w := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(d, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sizes := []int{0, 1, 59, 60, 1023, 1024, 1025, 4095, 4096, 4097, 65536, 100000, 1 << 20}
	if small {
		sizes = []int{0, 1, 1025, 4096, 5000}
	}
	for i, n := range sizes {
		w(fmt.Sprintf("f%d", n), pattern(i, n))
	}
	// Sparse: one 4 KiB chunk every 8 KiB, so every chunk is its own
	// extent whatever the block size: 1500 extents need a depth-2 tree on
	// 1 KiB blocks and depth 1 on 4 KiB ones. Then a trailing hole.
	chunks := 1500
	if small {
		chunks = 120
	}
	f, err := os.Create(filepath.Join(d, tr.sparse))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < chunks; i++ {
		if _, err := f.WriteAt(pattern(1000+i, 4096), int64(i)*8192); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(int64(chunks)*8192 + 50000); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !small {
		// Past 4 GiB: i_size_high, logical blocks past 2^20, a hole of
		// 4 GiB before the data.
		f, err := os.Create(filepath.Join(d, "huge"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(pattern(77, 5000), hugeDataOff); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := os.Mkdir(filepath.Join(d, tr.manyDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < tr.manyCount; i++ {
		// Long names on the big tree: 600 of them fill more leaf blocks
		// than a 1 KiB dx_root holds, so the htree has a dx_node level.
		name := fmt.Sprintf("entry-with-a-longish-name-%05d", i)
		if !small {
			name += strings.Repeat("-", 200)
		}
		if err := os.WriteFile(filepath.Join(d, tr.manyDir, name), []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(d, "sub/deeper"), 0o750))
	w("sub/deeper/leaf", []byte("leaf\n"))
	must(os.Link(filepath.Join(d, "f1"), filepath.Join(d, "hardlink")))
	must(os.Link(filepath.Join(d, "f1"), filepath.Join(d, "sub/hardlink2")))
	must(os.Symlink("f1025", filepath.Join(d, "fast")))
	must(os.Symlink(strings.Repeat("long-target/", 10)+"x", filepath.Join(d, "slow")))
	must(os.Symlink("sub/deeper", filepath.Join(d, "todir")))
	must(os.Symlink("/sub/deeper/leaf", filepath.Join(d, "abs")))
	must(os.Symlink("../fast", filepath.Join(d, "sub/up")))
	must(os.Symlink("loop", filepath.Join(d, "loop")))
	must(syscall.Mkfifo(filepath.Join(d, "fifo"), 0o640))
	if os.Geteuid() == 0 {
		must(syscall.Mknod(filepath.Join(d, "null"), syscall.S_IFCHR|0o666, 1<<8|3))
		// A big minor (new_encode_dev's split) on a block device.
		must(syscall.Mknod(filepath.Join(d, "blk"), syscall.S_IFBLK|0o660, int((259<<8)|(300&0xff)|((300&^0xff)<<12))))
		must(os.Lchown(filepath.Join(d, "f4096"), bigUID, bigGID))
		must(os.Lchown(filepath.Join(d, "fast"), bigUID+1, bigGID+1))
	}
	must(os.Chtimes(filepath.Join(d, "f1"), time.Unix(1234567890, 123456789), time.Unix(1500000000, 987654321)))
	return tr
}

type image struct {
	path string
	img  []byte
	r    Reader
}

// makeImage runs mke2fs -t ext4 (Debian's defaults) with the given block
// size over the tree.
func makeImage(t testing.TB, tr *tree, blockSize int, size string, extra ...string) *image {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ext4.img")
	args := append([]string{"-q", "-F", "-t", "ext4", "-b", strconv.Itoa(blockSize),
		"-U", "6a1c2f0e-0d9b-4c57-9d1e-2a3b4c5d6e7f", "-E", "hash_seed=11111111-2222-3333-4444-555555555555"}, extra...)
	args = append(args, "-d", tr.dir, p, size)
	run(t, "mke2fs", args...)
	// mke2fs -d writes linear directories; e2fsck -D rebuilds the big
	// one as an htree (dx_root, dx_node blocks), as a kernel would have.
	// Its exit status 1 means "fixed": the optimisation.
	cmd := exec.Command(tool("e2fsck"), "-fyD", p)
	cmd.Env = append(os.Environ(), fakeTime)
	if out, err := cmd.CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("e2fsck -fyD: %v\n%s", err, out)
		}
	}
	return loadImage(t, p)
}

func loadImage(t testing.TB, p string) *image {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	im := &image{path: p, img: b}
	m, why, e := im.r.Mount(b[SuperOffset:SuperOffset+SuperSize], nil)
	if e != OK {
		t.Fatalf("mount: %v (%s)", e, why)
	}
	if m != MountReadWrite && why != "needs_recovery" {
		t.Fatalf("mke2fs's defaults not read-write: %d %s", m, why)
	}
	im.r.Src = &memSource{img: b, bs: uint64(im.r.BlockSize)}
	return im
}

func (im *image) resolve(t testing.TB, path string, follow bool) *Inode {
	t.Helper()
	var in Inode
	if e := im.r.Resolve([]byte(path), follow, &in); e != OK {
		t.Fatalf("resolve %s: %v", path, e)
	}
	return &in
}

func (im *image) readAll(t testing.TB, in *Inode) []byte {
	t.Helper()
	b := make([]byte, in.Size)
	n, e := im.r.ReadAt(in, 0, b)
	if e != OK || n != len(b) {
		t.Fatalf("read inode %d: %d of %d bytes, %v", in.Ino, n, len(b), e)
	}
	return b
}

func (im *image) list(t testing.TB, dir *Inode) map[string]uint32 {
	t.Helper()
	names := map[string]uint32{}
	var pos DirPos
	var d DirEntry
	for {
		e := im.r.ReadDir(dir, &pos, &d)
		if e == ENOENT {
			return names
		}
		if e != OK {
			t.Fatalf("readdir inode %d: %v", dir.Ino, e)
		}
		if _, dup := names[string(d.Name)]; dup {
			t.Fatalf("readdir inode %d: %q twice", dir.Ino, d.Name)
		}
		names[string(d.Name)] = d.Ino
	}
}

// debugfsList is "ls -p DIR": /ino/mode/uid/gid/name/size/ lines.
func debugfsList(t testing.TB, img, dir string) map[string]uint32 {
	out := debugfs(t, img, false, "ls -p "+dir)
	names := map[string]uint32{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Split(l, "/")
		if len(f) < 7 {
			continue
		}
		ino, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("debugfs ls line %q", l)
		}
		names[f[5]] = uint32(ino)
	}
	return names
}

// debugfsStat reads the fields of debugfs' "stat" the tests compare.
type dstat struct {
	blockcount   uint64
	links        int
	times        map[string][2]uint64 // name -> raw seconds, raw extra
	major, minor int
	hasDev       bool
}

func debugfsStat(t testing.TB, img, path string) dstat {
	out := debugfs(t, img, false, "stat "+path)
	st := dstat{times: map[string][2]uint64{}}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "Blockcount:":
				st.blockcount, _ = strconv.ParseUint(f[i+1], 10, 64)
			case "Links:":
				st.links, _ = strconv.Atoi(f[i+1])
			case "ctime:", "atime:", "mtime:", "crtime:":
				var lo, ex uint64
				fmt.Sscanf(f[i+1], "0x%x:%x", &lo, &ex)
				st.times[strings.TrimSuffix(f[i], ":")] = [2]uint64{lo, ex}
			case "number:":
				if strings.Contains(l, "Device major/minor number") {
					// "Device major/minor number: 01:03 (hex 01:03)"
					fmt.Sscanf(f[i+1], "%d:%d", &st.major, &st.minor)
					st.hasDev = true
				}
			}
		}
	}
	return st
}
