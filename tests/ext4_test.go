package tests

import (
	"crypto/sha256"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gometal/gometal/tests/internal/treesum"
)

// ext4, read-only (kernel/ext4fs over kernel/bcache): gometal disk create
// makes an ext4 image from a tree on the host (e2fsprogs' mke2fs -d),
// tests/progs/ext4ro mounts it and prints every entry's type, owner,
// size, time and checksum, and the lines must be the host's own for the
// tree (tests/internal/treesum on both sides). A program on the
// disk runs from it; every change is EROFS.
func TestExt4ReadOnly(t *testing.T) {
	t.Parallel()
	tree := ext4Tree(t)
	img := ext4Image(t, tree, "600M")
	want, err := treesum.Lines(tree)
	if err != nil {
		t.Fatal(err)
	}
	r := gometal(t, "run", "-disk", img+":ro", "./tests/progs/ext4ro")
	r.expectClean(t, 0,
		"ext4ro: mount read-write: EACCES",
		"ext4ro: mount no such node: ENOENT",
		"ext4ro: mount a character device: ENOTBLK",
		"ext4ro: mount an unknown option: EINVAL",
		"ext4: vda: write access unavailable: the device is read-only",
		"ext4ro: mounts: /dev/vda /mnt ext4 ro,relatime 0 0",
		"ext4ro: statfs type 0xef53 bsize 4096 ro true <nil>",
		"ext4ro: root dev 254:0 ino 2 <nil>",
		"ext4ro: create: EROFS",
		"ext4ro: open for writing: EROFS",
		"ext4ro: mkdir: EROFS",
		"ext4ro: unlink: EROFS",
		"ext4ro: rename: EROFS",
		"ext4ro: symlink: EROFS",
		"ext4ro: chmod: EROFS",
		"ext4ro: truncate: EROFS",
		"ext4ro: mmap equals read: true 300000",
		`ext4ro: ran "exiting with 3": status 3`,
		"ext4ro: umount while open: EBUSY",
		"ext4ro: umount: ok",
		"ext4ro: entries after umount: 0",
		"ext4ro: remount same tree: true",
		"ext4ro: done")
	// Mounted at boot by -disk FILE:GUEST (gometal.mount=); a disk with
	// no ext4 is refused with its reason, and the program still runs.
	bad := filepath.Join(t.TempDir(), "zeros.img")
	if err := os.WriteFile(bad, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	b := gometal(t, "run", "-disk", img+":/data/disk:ro", "-disk", bad+":/bad", "./tests/progs/ext4ro", "--", "boot")
	b.expectClean(t, 0,
		"gometal: mounted vda (ext4, read-only: a read-only disk) at /data/disk",
		"gometal: ext4: vdb: can't find an ext4 file system (bad superblock)",
		"gometal: mount: ext4 on vdb at /bad: invalid argument",
		"ext4ro: boot mounts: /dev/vda /data/disk ext4 ro,relatime 0 0",
		fmt.Sprintf("ext4ro: boot tree lines: %d", len(want)),
		"ext4ro: /bad entries: 0 <nil>",
		"ext4ro: boot done")
	sameTree(t, r.out, want, "the disk")
}

// sameTree checks that the "tree: " lines of a guest's output are want,
// the host's treesum of the directory the guest read (through what).
func sameTree(t *testing.T, out string, want []string, what string) {
	t.Helper()
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "tree: "); ok {
			got = append(got, s)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the tree through %s differs from the host's:\ngot:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// ext4Image makes an ext4 image of size (gometal disk create's -size)
// from tree.
func ext4Image(t *testing.T, tree, size string) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "disk.img")
	if r := gometal(t, "disk", "create", "-size", size, "-from", tree, img); r.status != 0 {
		t.Fatalf("disk create: %s", r.out)
	}
	return img
}

// ext4Tree is the directory the test's disk is made from: files of
// sizes around block and page boundaries and a 300 KB one, a sparse
// file, a directory big enough for an htree, hard links, both kinds of
// symlink, times with nanoseconds, and an arm64 program (exit3).
func ext4Tree(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	put := func(name string, n int, mode os.FileMode) {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*13 + n + i>>12)
		}
		must(os.WriteFile(filepath.Join(d, name), b, mode))
	}
	for _, dir := range []string{"a", "a/b", "a/b/c", "many", "bin"} {
		must(os.Mkdir(filepath.Join(d, dir), 0o755))
	}
	for _, n := range []int{0, 1, 4095, 4096, 4097, 65536, 300000} {
		put(fmt.Sprintf("a/f%d", n), n, 0o644)
	}
	for i := 0; i < 300; i++ {
		put(fmt.Sprintf("many/entry-with-a-long-name-%04d", i), i, 0o600)
	}
	f, err := os.Create(filepath.Join(d, "a/b/sparse"))
	must(err)
	f.WriteAt([]byte("start"), 0)
	f.WriteAt([]byte("a megabyte in"), 1<<20)
	must(f.Truncate(3 << 20))
	f.Close()
	must(os.Link(filepath.Join(d, "a/f1"), filepath.Join(d, "a/b/c/hardlink")))
	must(os.Symlink("b/c", filepath.Join(d, "a/fast")))
	must(os.Symlink(strings.Repeat("long/", 30)+"end", filepath.Join(d, "a/slow")))
	must(os.Chtimes(filepath.Join(d, "a/f4096"), time.Unix(1234567890, 5), time.Unix(1500000000, 123456789)))
	must(os.Chmod(filepath.Join(d, "a/b"), 0o750))
	cmd := exec.Command("go", "build", "-o", filepath.Join(d, "bin/exit3"), "./tests/progs/exit3")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building exit3: %v\n%s", err, out)
	}
	return d
}

// TestExt4Corrupt boots disks the host damaged at random places in the
// metadata (the superblock, group descriptors, bitmaps, inode tables and
// the first directory and extent blocks live in the first megabytes):
// the mount is refused or the walk meets errors, never a panic or a
// hang (each boot is bounded by -timeout). The seed is logged.
func TestExt4Corrupt(t *testing.T) {
	t.Parallel()
	clean := mustRead(t, ext4Image(t, ext4Tree(t), "64M"))
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for k := 0; k < ext4CorruptBoots; k++ {
		b := slices.Clone(clean)
		// The superblock once in a while, else anywhere in the first 4 MiB.
		for n := 0; n < 40; n++ {
			at := 1024 + rng.Intn(1024)
			if k%3 != 0 {
				at = rng.Intn(4 << 20)
			}
			b[at] ^= byte(1 + rng.Intn(255))
		}
		bad := filepath.Join(t.TempDir(), fmt.Sprintf("corrupt-%d.img", k))
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r := gometal(t, "run", "-timeout", "120s", "-disk", bad, "./tests/progs/ext4ro", "--", "corrupt")
		r.expect(t, 0, "ext4ro: corrupt mount:", "ext4ro: corrupt done")
		logLine(t, r.out, "ext4ro: corrupt mount:.*")
		logLine(t, r.out, "ext4ro: corrupt walk:.*")
		if strings.Contains(r.out, "panic") {
			t.Errorf("boot %d: a panic:\n%s", k, r.out)
		}
	}
}

// ext4CorruptBoots is how many damaged disks a run boots.
const ext4CorruptBoots = 4

// TestExt4JournalReplay boots a disk whose journal debugfs left with a
// committed transaction (a new copy of greeting's block; needs_recovery
// set), as a crash leaves one. On a read-only device the mount is
// refused with Linux's hint at noload; on a writable one the boot mount
// replays the journal first: the guest reads the journal's bytes, and
// the host's e2fsck -fn finds the image clean afterwards.
func TestExt4JournalReplay(t *testing.T) {
	t.Parallel()
	e2fsck, debugfs := tool(t, "e2fsck"), tool(t, "debugfs")
	tree := t.TempDir()
	greeting := filepath.Join(tree, "greeting")
	if err := os.WriteFile(greeting, []byte(strings.Repeat("before the crash\n", 241)), 0o644); err != nil {
		t.Fatal(err)
	}
	img := ext4Image(t, tree, "64M")
	out, err := exec.Command(debugfs, "-R", "bmap greeting 0", img).Output()
	if err != nil {
		t.Fatalf("debugfs bmap: %v", err)
	}
	home := strings.TrimSpace(string(out))
	// The journal's copy of the file's first block (a small image has
	// 1 KiB blocks).
	out, err = exec.Command(debugfs, "-R", "stats", img).Output()
	var bs int
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "Block size:"); ok {
			fmt.Sscan(v, &bs)
		}
	}
	if err != nil || bs == 0 {
		t.Fatalf("debugfs stats: no block size (%v)", err)
	}
	logged := []byte(strings.Repeat("after the replay", bs/16))
	copyFile := filepath.Join(t.TempDir(), "logged")
	os.WriteFile(copyFile, logged, 0o644)
	cmds := filepath.Join(t.TempDir(), "cmds")
	os.WriteFile(cmds, []byte("jo -c\njw -b "+home+" "+copyFile+"\njc\n"), 0o644)
	if out, err := exec.Command(debugfs, "-w", "-f", cmds, img).CombinedOutput(); err != nil {
		t.Fatalf("debugfs: %v\n%s", err, out)
	}
	// The host's view of what the guest must read: greeting with the
	// logged block in front, its times as before.
	st, _ := os.Stat(greeting)
	old, _ := os.ReadFile(greeting)
	os.WriteFile(greeting, append(logged, old[len(logged):]...), 0o644)
	os.Chtimes(greeting, st.ModTime(), st.ModTime())
	want, err := treesum.Lines(tree)
	if err != nil {
		t.Fatal(err)
	}

	ro := gometal(t, "run", "-disk", img+":/data/disk:ro", "./tests/progs/ext4ro", "--", "list", "/data/disk")
	ro.expect(t, 0, "ext4: vda: write access unavailable, cannot proceed (try mounting with noload)",
		"gometal: mount: ext4 on vda at /data/disk: read-only file system", "ext4ro: listed 0")

	r := gometal(t, "run", "-disk", img+":/data/disk", "./tests/progs/ext4ro", "--", "list", "/data/disk")
	r.expect(t, 0, "ext4: vda: recovering the journal", "ext4: vda: recovery complete",
		fmt.Sprintf("ext4ro: listed %d", len(want)))
	sameTree(t, r.out, want, "the replayed disk")
	if out, err := exec.Command(e2fsck, "-fn", img).CombinedOutput(); err != nil {
		t.Errorf("e2fsck -fn after the guest's replay: %v\n%s", err, out)
	}
}

// TestExt4ReadsInFlight: eight goroutines read eight files of a disk at
// once (tests/progs/ext4read), and the last file is read through mmap,
// pread and readv meanwhile. read(2) of a page not in the cache starts
// its run as a virtio-blk request in flight and sleeps until the
// device's interrupt completes it (kernel/fs/inflight.go); a fault on a
// page in flight polls for it; a readv that slept goes on from where it
// stopped. Every way must give the host's bytes, and the kernel's
// counters (gometal.stats=1) must show requests in flight together and
// readers that slept on them.
func TestExt4ReadsInFlight(t *testing.T) {
	t.Parallel()
	tree := t.TempDir()
	rng := rand.New(rand.NewSource(38))
	var want []string
	var last string
	for i := range 8 {
		b := make([]byte, 2<<20+rng.Intn(1<<20)) // 2-3 MiB, rarely page aligned
		rng.Read(b)
		name := fmt.Sprintf("f%d", i)
		if err := os.WriteFile(filepath.Join(tree, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := fmt.Sprintf("%s %d %x", name, len(b), sha256.Sum256(b))
		want = append(want, fmt.Sprintf("ext4read: read %s <nil>", sum))
		last = sum
	}
	want = append(want, "ext4read: mmap "+last, "ext4read: pread "+last, "ext4read: readv "+last, "ext4read: done")
	img := ext4Image(t, tree, "64M")
	r := gometal(t, "run", "-disk", img+":/data:ro", "-bootarg", "gometal.stats=1", "./tests/progs/ext4read", "--", "/data")
	r.expectClean(t, 0, want...)
	m := regexp.MustCompile(`stats: disk: requests=\d+ most-in-flight=(\d+) reads-in-flight=(\d+) sleeps=(\d+)`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no disk stats line:\n%s", r.out)
	}
	most, _ := strconv.Atoi(m[1])
	started, _ := strconv.Atoi(m[2])
	sleeps, _ := strconv.Atoi(m[3])
	// One read(2) of 1 MiB starts its first run and three more at once,
	// so the device holds several whatever the host's timing.
	if most < 2 || started == 0 || sleeps == 0 {
		t.Errorf("most in flight %d, reads in flight %d, sleeps %d: want ≥2 and some of each", most, started, sleeps)
	}
}
