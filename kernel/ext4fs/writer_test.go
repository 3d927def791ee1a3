//go:build !arm64

package ext4fs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Writing a mounted volume on the host: changes made through kernel/fs
// (as the system calls make them) on an image mke2fs made, then the image
// checked by e2fsprogs (e2fsck -fn clean, debugfs reads the files the
// guest wrote) and mounted again (the same bytes read back).

// rw is a read-write mount of an image at /mnt of a fresh tree, with an
// app buffer for writes.
type rw struct {
	t    *testing.T
	s    uint8
	buf  uintptr
	disk *[]byte
}

func mountRW(t *testing.T, img string) *rw {
	t.Helper()
	buf := setupBuf(t, 1100)
	major, minor, disk := diskOf(t, img, false)
	s, e := Mount(major, minor, false, false)
	if e != 0 {
		t.Fatalf("mount read-write: %v", e)
	}
	var w fs.Walk
	if e := fs.Resolve(&w, fs.RootPath(), []byte("/mnt"), fs.ForCreate); e != 0 {
		t.Fatal(e)
	}
	mnt, e := fs.Create(&w, unix.S_IFDIR|0o755)
	if e != 0 {
		t.Fatal(e)
	}
	if _, e := fs.AddMount(fs.Path{Mnt: fs.RootMount, Ino: mnt}, fs.Supers[s].Root, s, 0, []byte("/dev/vda")); e != 0 {
		t.Fatal(e)
	}
	return &rw{t: t, s: s, buf: buf, disk: disk}
}

func (m *rw) walk(path string) *fs.Walk {
	m.t.Helper()
	w := new(fs.Walk)
	if e := fs.Resolve(w, fs.RootPath(), []byte(path), fs.ForCreate); e != 0 {
		m.t.Fatalf("walk %s: %v", path, e)
	}
	return w
}

func (m *rw) create(path string, mode uint32) int32 {
	m.t.Helper()
	i, e := fs.Create(m.walk(path), mode)
	if e != 0 {
		m.t.Fatalf("create %s: %v", path, e)
	}
	return i
}

func (m *rw) open(path string) *vfs.File {
	m.t.Helper()
	var w fs.Walk
	i, e := fs.Lookup(&w, fs.RootPath(), []byte(path), fs.Follow)
	if e != 0 {
		m.t.Fatalf("open %s: %v", path, e)
	}
	fi := fs.Open(w.NodePath(), unix.O_RDWR)
	if fi < 0 {
		m.t.Fatal("no description")
	}
	_ = i
	return &vfs.Files[fi]
}

// writeAt writes data at off of path.
func (m *rw) writeAt(path string, off int64, data []byte) {
	m.t.Helper()
	f := m.open(path)
	defer vfs.DecRef(f.Index())
	if !usermem.CopyOut(m.buf, data) {
		m.t.Fatal("copy out")
	}
	if r := f.Impl.Write(f, m.buf, uint64(len(data)), off); r != uint64(len(data)) {
		m.t.Fatalf("write %s at %d: %#x", path, off, r)
	}
}

func (m *rw) errno(what string, e unix.Errno) {
	m.t.Helper()
	if e != 0 {
		m.t.Fatalf("%s: %v", what, e)
	}
}

func (m *rw) rename(from, to string) unix.Errno {
	return fs.Rename(m.walk(from), m.walk(to))
}

// image writes the disk as it is now to a file and checks it with
// e2fsck -fn.
func (m *rw) image() string {
	m.t.Helper()
	img := filepath.Join(m.t.TempDir(), "written.img")
	if err := os.WriteFile(img, *m.disk, 0o644); err != nil {
		m.t.Fatal(err)
	}
	if out, err := exec.Command("e2fsck", "-fn", img).CombinedOutput(); err != nil {
		m.t.Fatalf("e2fsck -fn: %v\n%s", err, out)
	}
	return img
}

// image2 is image without the check (a volume with an orphan listed is
// what e2fsck -fn reports, as on Linux while a file is open unlinked).
func (m *rw) image2() string {
	img := filepath.Join(m.t.TempDir(), "written.img")
	if err := os.WriteFile(img, *m.disk, 0o644); err != nil {
		m.t.Fatal(err)
	}
	return img
}

// debugfs runs one debugfs request on img.
func debugfs(t *testing.T, img, req string) string {
	t.Helper()
	out, err := exec.Command("debugfs", "-R", req, img).Output()
	if err != nil {
		t.Fatalf("debugfs %s: %v", req, err)
	}
	return string(out)
}

func pattern(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + seed + i>>9)
	}
	return b
}

func TestWrite(t *testing.T) {
	src := sourceTree(t)
	for _, bs := range []int{4096, 1024} {
		t.Run(fmt.Sprint(bs), func(t *testing.T) { writeCase(t, mkfs(t, src, bs)) })
	}
}

func writeCase(t *testing.T, img string) {
	m := mountRW(t, img)
	want := map[string][]byte{}
	m.create("/mnt/d", unix.S_IFDIR|0o750)
	m.create("/mnt/d/f", unix.S_IFREG|0o644)
	want["d/f"] = pattern(10000, 1)
	m.writeAt("/mnt/d/f", 0, want["d/f"])
	// Twelve pieces with holes between: more extents than the inode
	// holds, so the tree grows a leaf.
	m.create("/mnt/sparse", unix.S_IFREG|0o600)
	sp := make([]byte, 0)
	for k := 0; k < 12; k++ {
		p := pattern(5000, k)
		off := int64(k) * 20000
		m.writeAt("/mnt/sparse", off, p)
		sp = append(sp, make([]byte, int(off)-len(sp))...)
		sp = append(sp, p...)
	}
	want["sparse"] = sp
	// 3 MiB in 1 MiB writes.
	m.create("/mnt/big", unix.S_IFREG|0o644)
	big := pattern(3<<20, 7)
	for k := 0; k < 3; k++ {
		m.writeAt("/mnt/big", int64(k)<<20, big[k<<20:(k+1)<<20])
	}
	want["big"] = big
	// Into the middle of a file mke2fs made, and appended.
	f300 := fileBytes(t, m.s, "a", "f300000")
	mid := pattern(7000, 3)
	m.writeAt("/mnt/a/f300000", 100001, mid)
	copy(f300[100001:], mid)
	m.writeAt("/mnt/a/f300000", 300000, []byte("appended"))
	want["a/f300000"] = append(f300, "appended"...)
	// A name into the htree directory e2fsck -D made: it becomes linear.
	m.create("/mnt/many/new-entry", unix.S_IFREG|0o644)
	m.errno("unlink many/entry-007", fs.Unlink(m.walk("/mnt/many/entry-007"), false))
	// Symlinks, a FIFO.
	m.errno("symlink fast", fs.Symlink(m.walk("/mnt/d/fast"), []byte("f")))
	slow := strings.Repeat("long/", 30) + "target"
	m.errno("symlink slow", fs.Symlink(m.walk("/mnt/d/slow"), []byte(slow)))
	m.create("/mnt/d/fifo", unix.S_IFIFO|0o644)
	// Renames: a file across directories, a directory across (its ".."
	// and both link counts), over an existing file.
	m.errno("rename f1", m.rename("/mnt/a/f1", "/mnt/d/moved"))
	m.errno("rename dir", m.rename("/mnt/a/b", "/mnt/d/b"))
	m.errno("rename over", m.rename("/mnt/a/f4095", "/mnt/a/f4096"))
	// A hard link, an unlink, an rmdir, an rmdir refused.
	var lw fs.Walk
	f0, _ := fs.Lookup(&lw, fs.RootPath(), []byte("/mnt/a/f0"), 0)
	m.errno("link", fs.Link(f0, m.walk("/mnt/d/f0-link")))
	m.errno("unlink f70000", fs.Unlink(m.walk("/mnt/a/f70000"), false))
	m.create("/mnt/d/empty", unix.S_IFDIR|0o755)
	m.errno("rmdir", fs.Unlink(m.walk("/mnt/d/empty"), true))
	if e := fs.Unlink(m.walk("/mnt/d/b"), true); e != unix.ENOTEMPTY {
		t.Errorf("rmdir of a full directory: %v, want ENOTEMPTY", e)
	}
	// Truncates: smaller (blocks freed, the tail zeroed) and larger.
	f4097 := fileBytes(t, m.s, "a", "f4097")
	var tw fs.Walk
	ti, _ := fs.Lookup(&tw, fs.RootPath(), []byte("/mnt/a/f4097"), 0)
	m.errno("truncate down", fs.Truncate(&fs.Inodes[ti], 1000))
	m.errno("truncate up", fs.Truncate(&fs.Inodes[ti], 9000))
	want["a/f4097"] = append(f4097[:1000:1000], make([]byte, 8000)...)
	// A file unlinked while open stays until its last close.
	m.create("/mnt/open", unix.S_IFREG|0o644)
	m.writeAt("/mnt/open", 0, pattern(50000, 9))
	of := m.open("/mnt/open")
	m.errno("unlink open", fs.Unlink(m.walk("/mnt/open"), false))
	SyncAll()
	if got := debugfs(t, m.image2(), "stats"); !strings.Contains(got, "First orphan inode:") {
		t.Errorf("no orphan listed while the unlinked file is open:\n%s", got)
	}
	vfs.DecRef(of.Index())
	SyncAll()
	out := m.image()

	for name, b := range want {
		got := debugfs(t, out, "cat /"+name)
		if !bytes.Equal([]byte(got), b) {
			t.Errorf("debugfs cat /%s: %d bytes, want %d (equal prefix %d)", name, len(got), len(b), prefix([]byte(got), b))
		}
	}
	for _, c := range []struct{ req, want string }{
		{"stat /d/f", "Links: 1"},
		{"stat /d", "Links: 3"}, // ".", its name, b's ".."
		{"stat /a", "Links: 2"}, // b moved out: "." and its name
		{"ls -l /d", "moved"},
		{"stat /d/slow", "Fast link dest"},
		{"stat /d/fast", "Fast link dest: \"f\""},
		{"stat /d/fifo", "Type: FIFO"},
		{"stat /d/b", "Links: 3"},
		{"stat /a/f0", "Links: 2"},
		{"ls /many", "new-entry"},
	} {
		got := debugfs(t, out, c.req)
		neg := c.req == "stat /d/slow"
		if strings.Contains(got, c.want) == neg {
			t.Errorf("debugfs %s: want %q (present %v):\n%s", c.req, c.want, !neg, got)
		}
	}
	if got := debugfs(t, out, "cat /d/slow"); got != slow {
		t.Errorf("slow symlink target %q, want %q", got, slow)
	}
	for _, gone := range []string{"/a/f70000", "/a/f4095", "/d/empty", "/many/entry-007", "/open", "/a/f1", "/a/b"} {
		if got := debugfs(t, out, "stat "+gone); !strings.Contains(got, "File not found") && got != "" {
			t.Errorf("%s still there:\n%s", gone, got)
		}
	}
	// Mounted again: the same bytes.
	setup(t)
	major, minor, _ := diskOf(t, out, true)
	s, e := Mount(major, minor, true, false)
	if e != 0 {
		t.Fatalf("mount again: %v", e)
	}
	for name, b := range want {
		if got := fileBytes(t, s, strings.Split(name, "/")...); !bytes.Equal(got, b) {
			t.Errorf("%s read again: %d bytes, want %d (equal prefix %d)", name, len(got), len(b), prefix(got, b))
		}
	}
}

func prefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestOrphanCleanup: a file unlinked while open is on the orphan list
// when the volume is left (a crash before its last close); the next
// read-write mount frees it (ext4_orphan_cleanup), and e2fsck -fn then
// finds the volume clean, its blocks and inode free again.
func TestOrphanCleanup(t *testing.T) {
	img := mkfs(t, sourceTree(t), 4096)
	m := mountRW(t, img)
	m.create("/mnt/victim", unix.S_IFREG|0o644)
	m.writeAt("/mnt/victim", 0, pattern(300000, 2))
	f := m.open("/mnt/victim")
	m.errno("unlink", fs.Unlink(m.walk("/mnt/victim"), false))
	SyncAll()
	_ = f // never closed: the crash comes first
	crashed := m.image2()
	if got := debugfs(t, crashed, "stats"); !strings.Contains(got, "First orphan inode:") {
		t.Fatalf("no orphan listed:\n%s", got)
	}
	again := mountRW(t, crashed)
	SyncAll()
	out := again.image()
	if got := debugfs(t, out, "stats"); strings.Contains(got, "First orphan inode:") {
		t.Errorf("the orphan is still listed after the mount:\n%s", got)
	}
}

// TestFullDisk: with no block left, a write is ENOSPC, and so is a create
// whose directory needs a new block or a directory's first block; the
// inodes those creates took are given back, so the volume stays clean
// for e2fsck -fn (no inode without a name), and what was written reads.
func TestFullDisk(t *testing.T) {
	img := mkfs(t, sourceTree(t), 1024)
	m := mountRW(t, img)
	m.create("/mnt/d", unix.S_IFDIR|0o755)
	m.create("/mnt/fill", unix.S_IFREG|0o644)
	f := m.open("/mnt/fill")
	chunk := pattern(1<<20, 4)
	if !usermem.CopyOut(m.buf, chunk) {
		t.Fatal("copy out")
	}
	// 1 MiB writes until one does not fit, then smaller ones: a write
	// that fails gives back what it took, so the last 1 KiB ones leave
	// no block free.
	var off int64
	for _, size := range []int64{1 << 20, 4096, 1024} {
		for {
			r := f.Impl.Write(f, m.buf, uint64(size), off)
			if vfs.IsErr(r) {
				if e := unix.Errno(-int64(r)); e != unix.ENOSPC {
					t.Fatalf("filling: %v, want ENOSPC", e)
				}
				break
			}
			off += int64(r)
		}
	}
	vfs.DecRef(f.Index())
	// A directory full of names needs a new block for the next one.
	var e unix.Errno
	for k := 0; k < 200 && e == 0; k++ {
		_, e = fs.Create(m.walk(fmt.Sprintf("/mnt/d/name-%03d-%s", k, strings.Repeat("x", 40))), unix.S_IFREG|0o644)
	}
	if e != unix.ENOSPC {
		t.Errorf("creates in a full directory on a full disk: %v, want ENOSPC", e)
	}
	if _, e := fs.Create(m.walk("/mnt/newdir"), unix.S_IFDIR|0o755); e != unix.ENOSPC {
		t.Errorf("mkdir on a full disk: %v, want ENOSPC", e)
	}
	SyncAll()
	m.image()
	if got := fileBytes(t, m.s, "fill"); int64(len(got)) != off || !bytes.Equal(got[:1<<20], chunk) {
		t.Errorf("the filler reads %d bytes, wrote %d", len(got), off)
	}
}

// TestRandomOps runs seeded random sequences of writes (anywhere: holes,
// appends, the middle), truncates, renames (over names too) and
// unlinks over a dozen names in two directories, against a model of
// what each file holds; every 60 operations the volume is committed and
// checked (e2fsck -fn), and at the end mounted again and every file
// compared with the model.
func TestRandomOps(t *testing.T) {
	src := sourceTree(t)
	for _, bs := range []int{1024, 4096} {
		img := mkfs(t, src, bs)
		for seed := 1; seed <= 5; seed++ {
			t.Run(fmt.Sprintf("%dk-seed-%d", bs/1024, seed), func(t *testing.T) { randomOps(t, img, uint64(seed)) })
		}
	}
}

func randomOps(t *testing.T, img string, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	opsOn(t, img, 240, rng.IntN)
}

// opsOn makes n random changes to a read-write mount of img, choosing
// with intn (a random source, or a fuzzer's bytes): writes, truncates,
// renames over other names and unlinks in two directories, checked
// with e2fsck -fn every 60 and at the end, and each file's bytes read
// back from a fresh mount against a model.
func opsOn(t *testing.T, img string, n int, intn func(int) int) {
	m := mountRW(t, img)
	m.create("/mnt/r", unix.S_IFDIR|0o755)
	m.create("/mnt/r/sub", unix.S_IFDIR|0o755)
	model := map[string][]byte{}
	name := func() string {
		d := "/mnt/r/"
		if intn(3) == 0 {
			d = "/mnt/r/sub/"
		}
		return fmt.Sprintf("%sf%d", d, intn(12))
	}
	for op := 0; op < n; op++ {
		p := name()
		cur, ok := model[p]
		switch k := intn(10); {
		case k < 5: // write
			if !ok {
				m.create(p, unix.S_IFREG|0o644)
			}
			off := intn(len(cur) + 20000)
			if intn(4) == 0 {
				off = len(cur)
			}
			data := pattern(1+intn(70000), op)
			m.writeAt(p, int64(off), data)
			if off+len(data) > len(cur) {
				cur = append(cur, make([]byte, off+len(data)-len(cur))...)
			}
			copy(cur[off:], data)
			model[p] = cur
		case k < 7 && ok: // truncate
			size := intn(len(cur) + 30000)
			var w fs.Walk
			i, e := fs.Lookup(&w, fs.RootPath(), []byte(p), 0)
			m.errno("lookup "+p, e)
			m.errno("truncate "+p, fs.Truncate(&fs.Inodes[i], int64(size)))
			if size < len(cur) {
				cur = cur[:size]
			} else {
				cur = append(cur, make([]byte, size-len(cur))...)
			}
			model[p] = cur
		case k < 9 && ok: // rename, maybe over another
			to := name()
			if to == p {
				continue
			}
			m.errno(fmt.Sprintf("rename %s %s", p, to), m.rename(p, to))
			model[to] = cur
			delete(model, p)
		case ok: // unlink
			m.errno("unlink "+p, fs.Unlink(m.walk(p), false))
			delete(model, p)
		}
		if op%60 == 59 {
			SyncAll()
			m.image()
		}
	}
	SyncAll()
	out := m.image()
	setup(t)
	major, minor, _ := diskOf(t, out, true)
	s, e := Mount(major, minor, true, false)
	if e != 0 {
		t.Fatalf("mount again: %v", e)
	}
	for p, want := range model {
		parts := strings.Split(strings.TrimPrefix(p, "/mnt/"), "/")
		if got := fileBytes(t, s, parts...); !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, want %d (equal prefix %d)", p, len(got), len(want), prefix(got, want))
		}
	}
}

// FuzzWriteOps is TestRandomOps with the fuzzer choosing the changes:
// each three bytes of the input one choice (which file, which change,
// the offset, the length), on an image of 1 KiB blocks or 4 KiB (the
// first byte's low bit). Every run ends in e2fsck -fn and a fresh
// mount that reads back what the model holds. go test -fuzz
// FuzzWriteOps ./kernel/ext4fs; plain go test runs the seeds.
func FuzzWriteOps(f *testing.F) {
	src := sourceTree(f)
	imgs := [2]string{mkfs(f, src, 1024), mkfs(f, src, 4096)}
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		b := make([]byte, 1+3*4*40)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		img, choices := imgs[b[0]&1], b[1:]
		intn := func(n int) int {
			if len(choices) < 3 {
				return 0
			}
			v := int(choices[0]) | int(choices[1])<<8 | int(choices[2])<<16
			choices = choices[3:]
			return v % n
		}
		// About four choices an op; 240 at most, as TestRandomOps.
		opsOn(t, img, min(len(choices)/12, 240), intn)
	})
}

// TestWriteCorrupt mounts images damaged at random in their metadata
// read-write and changes them: every answer is an error or success,
// never a panic (which in the kernel is the machine's end) or a hang;
// the seeds are fixed, and a failure names its seed.
func TestWriteCorrupt(t *testing.T) {
	clean, err := os.ReadFile(mkfs(t, sourceTree(t), 1024))
	if err != nil {
		t.Fatal(err)
	}
	const images = 60 // 600 passed once
	for seed := uint64(1); seed <= images; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		b := bytes.Clone(clean)
		for n := 0; n < 30; n++ {
			at := 1024 + rng.IntN(2<<20)
			b[at] ^= byte(1 + rng.IntN(255))
		}
		img := filepath.Join(t.TempDir(), "bad.img")
		os.WriteFile(img, b, 0o644)
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("seed %d: panic: %v", seed, r)
				}
			}()
			corruptOps(t, img, rng)
		}()
	}
	t.Logf("%d of %d damaged images mounted read-write, %d of them went read-only on an error", corruptMounts, images, corruptFailed)
	if corruptMounts == 0 {
		t.Error("no damaged image mounted: nothing was changed")
	}
}

// corruptOps mounts img read-write, if it can, and tries each kind of
// change on names old and new, ignoring the answers.
func corruptOps(t *testing.T, img string, rng *rand.Rand) {
	buf := setupBuf(t, 32)
	Say = nil
	major, minor, _ := diskOf(t, img, false)
	s, e := Mount(major, minor, false, false)
	if e != 0 {
		return
	}
	corruptMounts++
	var w fs.Walk
	if e := fs.Resolve(&w, fs.RootPath(), []byte("/mnt"), fs.ForCreate); e != 0 {
		return
	}
	mnt, e := fs.Create(&w, unix.S_IFDIR|0o755)
	if e != 0 {
		return
	}
	if _, e := fs.AddMount(fs.Path{Mnt: fs.RootMount, Ino: mnt}, fs.Supers[s].Root, s, 0, []byte("/dev/vda")); e != 0 {
		return
	}
	names := []string{"/mnt/a/f1", "/mnt/a/f300000", "/mnt/many/entry-001", "/mnt/a/b/sparse", "/mnt/new", "/mnt/many/new", "/mnt/a/b/c/new", "/mnt/a/slow"}
	data := pattern(20000, 1)
	usermem.CopyOut(buf, data)
	for op := 0; op < 40; op++ {
		p := names[rng.IntN(len(names))]
		var w fs.Walk
		if fs.Resolve(&w, fs.RootPath(), []byte(p), fs.ForCreate) != 0 {
			continue
		}
		switch rng.IntN(6) {
		case 0:
			fs.Create(&w, unix.S_IFREG|0o644)
		case 1:
			fs.Create(&w, unix.S_IFDIR|0o755)
		case 2:
			fs.Unlink(&w, rng.IntN(2) == 0)
		case 3:
			var w2 fs.Walk
			if fs.Resolve(&w2, fs.RootPath(), []byte(names[rng.IntN(len(names))]), fs.ForCreate) == 0 {
				fs.Rename(&w, &w2)
			}
		case 4, 5:
			if w.Node < 0 {
				continue
			}
			fi := fs.Open(w.NodePath(), unix.O_RDWR)
			if fi < 0 {
				continue
			}
			f := &vfs.Files[fi]
			if rng.IntN(2) == 0 {
				f.Impl.Write(f, buf, uint64(1+rng.IntN(len(data))), int64(rng.IntN(100000)))
			} else {
				fs.Truncate(&fs.Inodes[w.Node], int64(rng.IntN(50000)))
			}
			vfs.DecRef(fi)
		}
	}
	if !volOf(s).rw {
		corruptFailed++ // an error met while changing: read-only now
	}
	SyncAll()
	fs.FreeSuper(s)
}

// corruptMounts and corruptFailed count the read-write mounts the
// damaged images allowed and those an error made read-only.
var corruptMounts, corruptFailed int
