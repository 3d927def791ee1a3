package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	diskfs "github.com/diskfs/go-diskfs"
	"github.com/diskfs/go-diskfs/partition/mbr"
)

// Block devices (kernel/block, drivers/virtio's virtio-blk,
// kernel/linux/blockdev_arm64.go): gometal run -disk attaches an image
// partitioned on the host by go-diskfs (vda) and a read-only one (vdb);
// tests/progs/blk finds the nodes, asks the sizes, reads what the host
// wrote and writes across a sector boundary, which the host then finds
// in the image after the run.
func TestBlockDevices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	d, err := diskfs.Create(img, 16<<20, diskfs.SectorSizeDefault)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Partition(&mbr.Table{LogicalSectorSize: 512, PhysicalSectorSize: 512, Partitions: []*mbr.Partition{
		{Type: mbr.Linux, Start: 2048, Size: 4096},
		{Type: mbr.Linux, Start: 8192, Size: 8192},
	}}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("HOST WROTE THIS!"), 2048*512)
	f.Close()
	ro := filepath.Join(dir, "ro.img")
	content := make([]byte, 1<<20)
	copy(content, "read-only disk")
	if err := os.WriteFile(ro, content, 0o644); err != nil {
		t.Fatal(err)
	}
	r := gometal(t, "run", "-disk", img, "-disk", ro+":ro", "./tests/progs/blk")
	r.expectClean(t, 0,
		"blk: /dev/vda block 254:0", "blk: /dev/vda1 block 254:1", "blk: /dev/vda2 block 254:2", "blk: /dev/vdb block 254:16",
		"blk: vda size 16777216 sector 512 ro 0",
		"blk: vda signature 55aa",
		`blk: vda1 starts with "HOST WROTE THIS!", size 2097152`,
		"blk: vda2 ends at 4194304",
		`blk: vda2 at 998 "\x00\x00GUESTWROTE across a sector boundary at 1000\x00\x00"`,
		"blk: read at the end: 0 EOF",
		"blk: write at the end: no space left on device",
		"blk: vdb ro 1",
		"blk: write to a read-only disk: operation not permitted",
		`blk: vdb starts with "read-only disk"`,
		"blk: partitions: major minor  #blocks  name",
		"blk: partitions:  254        0      16384 vda\n",
		"blk: partitions:  254        1       2048 vda1\n",
		"blk: partitions:  254        2       4096 vda2\n",
		"blk: partitions:  254       16       1024 vdb\n",
		"blk: done")
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	if at := 8192*512 + 1000; !bytes.Equal(b[at:at+10], []byte("GUESTWROTE")) {
		t.Errorf("the image at vda2+1000 holds %q after the run", b[at:at+10])
	}
	if !bytes.HasPrefix(mustRead(t, ro), []byte("read-only disk")) {
		t.Error("the read-only image changed")
	}
}

// QEMU's blkdebug fails every read of sector 8: the program sees EIO,
// and the kernel goes on (sector 0 still reads; the run ends cleanly).
func TestBlockEIO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "blkdebug.conf")
	if err := os.WriteFile(conf, []byte("[inject-error]\nevent = \"read_aio\"\nerrno = \"5\"\nsector = \"8\"\nonce = \"off\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gometal(t, "run", "-qemu-arg", "-global", "-qemu-arg", "virtio-mmio.force-legacy=false",
		"-qemu-arg", "-drive", "-qemu-arg", "if=none,format=raw,file=blkdebug:"+conf+":"+img+",id=d0",
		"-qemu-arg", "-device", "-qemu-arg", "virtio-blk-device,drive=d0",
		"./tests/progs/blk", "--", "eio").expectClean(t, 0,
		"blk: read sector 0: <nil>", "blk: read sector 8: input/output error", "blk: read sector 0 again: <nil>")
}

// A -disk that is not there is one line before QEMU starts.
func TestDiskFlagErrors(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-disk", filepath.Join(t.TempDir(), "none.img"), "./tests/progs/hello")
	if r.status != 2 || !bytes.Contains([]byte(r.out), []byte("no such file or directory")) {
		t.Errorf("status %d, output:\n%s", r.status, r.out)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
