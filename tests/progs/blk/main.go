//go:build linux && arm64

// Command blk drives the block devices gometal run -disk attaches, as a
// program on Linux would: the nodes devtmpfs shows for the disks and
// their partitions, the block ioctls, reads and writes at any offset
// (partial sectors included), SEEK_END, fsync, the end of the device,
// and a read-only disk. tests/blk_test.go attaches a partitioned image
// (vda) and a read-only one (vdb) and checks the lines and the image.
// With the argument eio it reads a disk QEMU's blkdebug fails.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "eio" {
		eio()
		return
	}
	for _, n := range []string{"vda", "vda1", "vda2", "vdb"} {
		var st unix.Stat_t
		err := unix.Stat("/dev/"+n, &st)
		guest.Check("stat /dev/"+n, err == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK, err)
		if err == nil {
			fmt.Printf("blk: /dev/%s block %d:%d\n", n, unix.Major(st.Rdev), unix.Minor(st.Rdev))
		}
	}
	vda := open("/dev/vda", os.O_RDWR)
	fmt.Printf("blk: vda size %d sector %d ro %d\n", ioctl64(vda, unix.BLKGETSIZE64), ioctl32(vda, unix.BLKSSZGET), ioctl32(vda, unix.BLKROGET))
	mbr := make([]byte, 512)
	_, err := vda.ReadAt(mbr, 0)
	guest.Check("read sector 0", err == nil, err)
	fmt.Printf("blk: vda signature %x\n", mbr[510:])

	p1 := open("/dev/vda1", os.O_RDONLY)
	buf := make([]byte, 16)
	_, err = p1.Read(buf)
	guest.Check("read vda1", err == nil, err)
	fmt.Printf("blk: vda1 starts with %q, size %d\n", buf, ioctl64(p1, unix.BLKGETSIZE64))

	p2 := open("/dev/vda2", os.O_RDWR)
	end, err := p2.Seek(0, 2)
	guest.Check("seek end", err == nil, err)
	fmt.Printf("blk: vda2 ends at %d\n", end)
	msg := []byte("GUESTWROTE across a sector boundary at 1000")
	_, err = p2.WriteAt(msg, 1000)
	guest.Check("write at 1000", err == nil, err)
	guest.Check("fsync", p2.Sync() == nil)
	back := make([]byte, len(msg)+4)
	_, err = p2.ReadAt(back, 998)
	guest.Check("read back", err == nil, err)
	fmt.Printf("blk: vda2 at 998 %q\n", back)
	n, err := p2.ReadAt(buf, end)
	fmt.Printf("blk: read at the end: %d %v\n", n, err)
	_, err = unix.Pwrite(int(p2.Fd()), buf, end)
	fmt.Printf("blk: write at the end: %v\n", err)

	vdb := open("/dev/vdb", os.O_RDWR)
	fmt.Printf("blk: vdb ro %d\n", ioctl32(vdb, unix.BLKROGET))
	_, err = vdb.Write([]byte("x"))
	fmt.Printf("blk: write to a read-only disk: %v\n", errors.Unwrap(err))
	_, err = vdb.ReadAt(buf, 0)
	guest.Check("read vdb", err == nil, err)
	fmt.Printf("blk: vdb starts with %q\n", strings.TrimRight(string(buf), "\x00"))
	parts, err := os.ReadFile("/proc/partitions")
	guest.Check("read /proc/partitions", err == nil, err)
	for _, l := range strings.Split(strings.TrimSpace(string(parts)), "\n") {
		fmt.Printf("blk: partitions: %s\n", l)
	}
	if guest.Failed() {
		os.Exit(1)
	}
	fmt.Println("blk: done")
}

// eio reads a disk whose sector 8 QEMU's blkdebug fails: sector 0 reads,
// sector 8 is EIO, and the kernel goes on.
func eio() {
	vda := open("/dev/vda", os.O_RDONLY)
	b := make([]byte, 512)
	_, err := vda.ReadAt(b, 0)
	fmt.Printf("blk: read sector 0: %v\n", err)
	_, err = vda.ReadAt(b, 8*512)
	fmt.Printf("blk: read sector 8: %v\n", errors.Unwrap(err))
	_, err = vda.ReadAt(b, 0)
	fmt.Printf("blk: read sector 0 again: %v\n", err)
}

func open(name string, flag int) *os.File {
	f, err := os.OpenFile(name, flag, 0)
	if err != nil {
		guest.Fail("open " + name + ": " + err.Error())
	}
	return f
}

func ioctl64(f *os.File, req uint) uint64 {
	var v uint64
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(unsafe.Pointer(&v))); e != 0 {
		guest.Fail(fmt.Sprintf("ioctl %#x: %v", req, e))
	}
	return v
}

func ioctl32(f *os.File, req uint) uint32 {
	var v uint32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(unsafe.Pointer(&v))); e != 0 {
		guest.Fail(fmt.Sprintf("ioctl %#x: %v", req, e))
	}
	return v
}
