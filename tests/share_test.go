package tests

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gometal/gometal/tests/internal/treesum"
)

// gometal run -v HOST:GUEST[:ro]: QEMU serves each host directory over
// virtio-9p, and the kernel starts each device at boot, reads its mount
// tag and greets the host over it (Tversion 9P2000.L, Tattach of the
// root), so the transport, the device's chains and kernel/ninep's
// messages work end to end.
func TestShareGreetedAtBoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := gometal(t, "run", "-v", dir+":/mnt", "-v", dir+":/ro:ro", "./tests/progs/hello")
	r.expect(t, 0, "hello from gometal",
		"9p: share gmshare0 for /mnt: 9P2000.L, msize 135168, root attached",
		"9p: share gmshare1 for /ro (read-only): 9P2000.L, msize 135168, root attached",
		"mounted the host share gmshare0 (9p, read-write) at /mnt",
		"mounted the host share gmshare1 (9p, read-only) at /ro")
}

// A read-only share mounted at boot, read
// through as a program on Linux would: tests/progs/share prints every
// entry's line (type, owner, size, time, SHA-256: tests/internal/treesum)
// and they must be the host's own for the directory; a program on the
// share runs, mmap reads what read does, changes are EROFS, and
// mount(2) -t 9p by tag shows the same tree again.
func TestShareMounted(t *testing.T) {
	t.Parallel()
	tree := ext4Tree(t)
	want, err := treesum.Lines(tree)
	if err != nil {
		t.Fatal(err)
	}
	r := gometal(t, "run", "-v", tree+":/share:ro", "./tests/progs/share")
	r.expectClean(t, 0,
		"gometal: mounted the host share gmshare0 (9p, read-only) at /share",
		"share: mounts: gmshare0 /share 9p ro,relatime 0 0",
		"share: statfs type 0x1021997 ro true <nil>",
		`share: ran "exiting with 3": status 3`,
		"share: mmap equals read: true 300000",
		"share: create: EROFS",
		"share: mkdir: EROFS",
		"share: unlink: EROFS",
		"share: mount by tag rw: EROFS",
		"share: mount no such tag: ENOENT",
		"share: mounted again, same tree: true",
		"share: umount: ok",
		"share: done")
	sameTree(t, r.out, want, "the share")
}

// A writable share (gometal run -v HOST:GUEST): tests/progs/share write
// creates, writes, renames, links and removes on it, and the host's
// directory must then hold exactly what the guest made, byte for byte
// (every change is sent to the host before the call returns: written
// through). The guest's answers are Linux's, line for line:
// tests/testdata/share-write-linux.txt is the same program's output as
// init on Debian's Linux 6.1 (the benchmark's guest) with the same
// share, mounting it itself (v9fs's default options).
func TestShareWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hostfile"), bytes.Repeat([]byte("h"), 10000), 0o644); err != nil {
		t.Fatal(err)
	}
	r := gometal(t, "run", "-v", dir+":/rw", "./tests/progs/share", "--", "write")
	big := make([]byte, 1<<20+123)
	for i := range big {
		big[i] = byte(i*7 + i>>13)
	}
	r.expectClean(t, 0,
		"gometal: mounted the host share gmshare0 (9p, read-write) at /rw",
		"share: write big and fsync: ok",
		fmt.Sprintf("share: big reads back: true %d", len(big)),
		"share: write into the host's file: ok",
		"share: append: ok",
		"share: fsync read-only: ok",
		`share: short now "0123\x00\x00"`,
		"share: rename into d: ok",
		`share: moved reads "0123\x00\x00" ok`,
		`share: victim now "new"`,
		`share: readlink "d/moved" ok`,
		"share: hard link: ok",
		"share: victim links: 2",
		"share: unlink victim: ok",
		"share: write through the other name: ok",
		"share: rmdir a full directory: ENOTEMPTY",
		"share: rmdir: ok",
		"share: unlink: ok",
		"share: stat unlinked: ENOENT",
		"share: chmod: ok",
		"share: chtimes: ok",
		"share: mkfifo: ok",
		"share: mmap shared writable: EINVAL",
		"share: mmap private sees: GUEST",
		"share: mmap private: ok",
		"share: create in no directory: ENOENT",
		"share: write done")
	linux, err := os.ReadFile("testdata/share-write-linux.txt")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(r.out, "\n") {
		if l = strings.TrimRight(l, "\r"); strings.HasPrefix(l, "share: ") {
			lines = append(lines, l)
		}
	}
	if strings.Join(lines, "\n")+"\n" != string(linux) {
		t.Errorf("the lines differ from Linux's:\n%s", lineDiff(strings.Split(strings.TrimSuffix(string(linux), "\n"), "\n"), lines))
	}
	// The host's view.
	got, err := os.ReadFile(filepath.Join(dir, "big"))
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("big on the host: %d bytes, sha256 %x; want %d, %x (%v)", len(got), sha256.Sum256(got), len(big), sha256.Sum256(big), err)
	}
	host, _ := os.ReadFile(filepath.Join(dir, "hostfile"))
	want := append(bytes.Repeat([]byte("h"), 10000), "+tail"...)
	copy(want[4094:], "GUEST")
	if !bytes.Equal(host, want) {
		t.Errorf("hostfile on the host: %d bytes, differs from the guest's writes", len(host))
	}
	st, err := os.Stat(filepath.Join(dir, "hostfile"))
	if err != nil || st.Mode().Perm() != 0o600 || !st.ModTime().Equal(time.Unix(1500000000, 123456789)) {
		t.Errorf("hostfile's mode and time on the host: %v %v (%v), want 0600 and the guest's", st.Mode(), st.ModTime(), err)
	}
	for name, content := range map[string]string{"d/moved": "0123\x00\x00", "d/second": "relinked"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if string(b) != content {
			t.Errorf("%s on the host: %q (%v), want %q", name, b, err, content)
		}
	}
	if tgt, err := os.Readlink(filepath.Join(dir, "link")); err != nil || tgt != "d/moved" {
		t.Errorf("link on the host: %q %v", tgt, err)
	}
	var ls syscall.Stat_t
	syscall.Stat(filepath.Join(dir, "d/second"), &ls)
	if ls.Nlink != 1 {
		t.Errorf("d/second's links on the host: %d, want 1 (victim unlinked)", ls.Nlink)
	}
	if st, err := os.Stat(filepath.Join(dir, "fifo")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("fifo on the host: %v %v", st, err)
	}
	var names []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		names = append(names, strings.TrimPrefix(p, dir))
		return nil
	})
	if strings.Join(names, " ") != " /big /d /d/moved /d/second /fifo /hostfile /link" {
		t.Errorf("the host's directory holds %q", names)
	}
}

// What the host changes in a shared directory while the guest runs is
// seen (tests/progs/share hostchange): the directory is shared twice, at
// /a and /b, and the guest's writes through /b reach the host's
// directory past /a's cache as a host program's do. A second later, /a
// shows the new bytes, the made and removed names, a symlink's new
// target; a file open across
// the change reads the new bytes too, and so does one the host replaced
// by a rename over its name (no fid is held per open file: it reads by
// the name; Linux's v9fs keeps the old file).
func TestShareHostChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range [][2]string{{"f", "v1"}, {"kept", "old kept"}, {"old", "x"}, {"swapped", "old swapped"}} {
		must(t, os.WriteFile(filepath.Join(dir, f[0]), []byte(f[1]), 0o644))
	}
	must(t, os.Symlink("f", filepath.Join(dir, "link")))
	r := gometal(t, "run", "-v", dir+":/a", "-v", dir+":/b", "./tests/progs/share", "--", "hostchange")
	r.expectClean(t, 0,
		"share: host f before: v1 <nil>",
		"share: host names before: [f kept link old swapped]",
		"share: host link before: f <nil>",
		"share: host kept before: old kept",
		"share: host swapped before: old swapped",
		"share: host f after: changed by the host, longer <nil>",
		"share: host old after: ENOENT",
		"share: host new after: new <nil>",
		"share: host link after: new <nil>",
		"share: host link followed: new <nil>",
		"share: host dir after: true",
		"share: host names after: [dir f kept link new swapped] true",
		"share: host kept while open: new kept",
		"share: host swapped while open: new swapped",
		"share: host swapped reopened: new swapped <nil>",
		"share: host kept reopened: new kept <nil>")
}

// must fails the test at once on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
