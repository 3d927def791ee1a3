package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// gometal run -v HOST:GUEST[:ro]: QEMU serves each host directory over
// virtio-9p, and the kernel starts each device at boot, reads its mount
// tag and greets the host over it (Tversion 9P2000.L, Tattach of the
// root), so the transport, the device's chains and kernel/ninep's
// messages work end to end. (Mounting the share at GUEST is still to
// come: docs/STORAGE.md.)
func TestShareGreetedAtBoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := gometal(t, "run", "-v", dir+":/mnt", "-v", dir+":/ro:ro", "./tests/progs/hello")
	r.expect(t, 0, "hello from gometal",
		"9p: share gmshare0 for /mnt: 9P2000.L, msize 16384, root attached",
		"9p: share gmshare1 for /ro (read-only): 9P2000.L, msize 16384, root attached")
}
