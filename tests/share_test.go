package tests

import (
	"os"
	"path/filepath"
	"testing"

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
		"9p: share gmshare0 for /mnt: 9P2000.L, msize 16384, root attached",
		"9p: share gmshare1 for /ro (read-only): 9P2000.L, msize 16384, root attached",
		"mounted the host share gmshare1 (9p, read-only: writing is not supported yet) at /ro")
}

// A share mounted at boot (read-only: writing is not built yet), read
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
		"gometal: mounted the host share gmshare0 (9p, read-only: writing is not supported yet) at /share",
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
