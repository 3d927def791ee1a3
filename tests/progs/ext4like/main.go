//go:build linux && arm64

// Command ext4like prints what a program sees of ext4 at its edges, the
// same on gometal and on Linux (tests/ext4like_test.go compares its lines
// with tests/testdata/ext4like-linux.txt, its output as init on Debian's
// Linux 6.1 under gometal linux): a read-only device mounted read-write,
// a read-only mount written, the errors of names and directories, link
// counts, sizes and blocks of a sparse file, times to the nanosecond,
// the file-size limit, a full disk, fsync of a directory, remounting
// read-only, and umount of a busy volume. /dev/vda is a fresh ext4 image
// of 1 KiB blocks (mke2fs -t ext4 -b 1024, 16 MiB), /dev/vdb the same
// attached read-only.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

const (
	rw = "/mnt/rw"
	ro = "/mnt/ro"
	// ext4SuperMagic is statfs's f_type for ext4 (EXT4_SUPER_MAGIC,
	// include/uapi/linux/magic.h).
	ext4SuperMagic = 0xef53
)

func say(what string, err error) { fmt.Printf("ext4like: %s: %s\n", what, guest.Result(err)) }

func sayf(format string, a ...any) { fmt.Printf("ext4like: "+format+"\n", a...) }

func main() {
	setup()
	readOnlyDevice()
	must("mount /dev/vda read-write", unix.Mount("/dev/vda", rw, "ext4", 0, ""))
	names()
	counts()
	limits()
	fullDisk()
	remount()
	sayf("done")
	if os.Getpid() == 1 {
		unix.Sync()
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
}

// setup loads Linux's modules (gometal has none to load) and mounts
// devtmpfs where /dev has no disks yet (Linux's initramfs).
func setup() {
	if _, err := guest.LoadModules("/modules"); err != nil {
		guest.Fail(err.Error())
	}
	if _, err := os.Stat("/dev/vda"); errors.Is(err, os.ErrNotExist) {
		os.MkdirAll("/dev", 0o755)
		unix.Mount("devtmpfs", "/dev", "devtmpfs", 0, "")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, a := os.Stat("/dev/vda")
		_, b := os.Stat("/dev/vdb")
		if a == nil && b == nil {
			break
		}
		if time.Now().After(deadline) {
			guest.Fail("no /dev/vda and /dev/vdb")
		}
	}
	for _, d := range []string{rw, ro} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			guest.Fail(err.Error())
		}
	}
}

func must(what string, err error) {
	say(what, err)
	if err != nil {
		os.Exit(1)
	}
}

// readOnlyDevice: a device QEMU attaches read-only refuses a read-write
// mount (EACCES: setup_bdev_super's bdev_open of a read-only disk), and
// a read-only mount of it refuses every change (EROFS).
func readOnlyDevice() {
	say("mount the read-only /dev/vdb read-write", unix.Mount("/dev/vdb", ro, "ext4", 0, ""))
	must("mount it read-only", unix.Mount("/dev/vdb", ro, "ext4", unix.MS_RDONLY, ""))
	_, err := os.OpenFile(ro+"/new", os.O_CREATE|os.O_WRONLY, 0o644)
	say("create on it", err)
	say("mkdir on it", unix.Mkdir(ro+"/d", 0o755))
	say("chmod its root", unix.Chmod(ro, 0o700))
	say("utimensat its root", unix.UtimesNano(ro, []unix.Timespec{{}, {}}))
	var st unix.Statfs_t
	err = unix.Statfs(ro, &st)
	sayf("statfs: %s, read-only flag %v", guest.Result(err), st.Flags&unix.ST_RDONLY != 0)
	say("umount it", unix.Unmount(ro, 0))
}

// names: what the name and directory operations refuse.
func names() {
	p := func(s string) string { return rw + "/" + s }
	must("mkdir d", unix.Mkdir(p("d"), 0o755))
	must("mkdir d/sub", unix.Mkdir(p("d/sub"), 0o755))
	must("write f", os.WriteFile(p("f"), []byte("file"), 0o644))
	say("mkdir over a directory", unix.Mkdir(p("d"), 0o755))
	say("mkdir over a file", unix.Mkdir(p("f"), 0o755))
	_, err := unix.Open(p("f"), unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY, 0o644)
	say("create exclusive over a file", err)
	say("rmdir a directory with entries", unix.Rmdir(p("d")))
	say("rmdir a file", unix.Rmdir(p("f")))
	say("unlink a directory", unix.Unlink(p("d")))
	say("link a directory", unix.Link(p("d"), p("dlink")))
	say("rename a directory into itself", unix.Rename(p("d"), p("d/sub/d")))
	must("mkdir e", unix.Mkdir(p("e"), 0o755))
	say("rename a directory over one with entries", unix.Rename(p("e"), p("d")))
	say("rename a file over a directory", unix.Rename(p("f"), p("e")))
	say("rename a directory over a file", unix.Rename(p("e"), p("f")))
	say("rename a directory over an empty one", unix.Rename(p("e"), p("d/sub")))
	say("rename a name to itself", unix.Rename(p("f"), p("f")))
	say("a name of 255 bytes", os.WriteFile(p(strings.Repeat("n", 255)), nil, 0o644))
	say("a name of 256 bytes", os.WriteFile(p(strings.Repeat("n", 256)), nil, 0o644))
	say("a path through a file", os.WriteFile(p("f/x"), nil, 0o644))
	_, err = unix.Open(p("d"), unix.O_WRONLY, 0)
	say("open a directory for writing", err)
	say("truncate a directory", unix.Truncate(p("d"), 0))
	say("symlink of 4095 bytes", unix.Symlink(strings.Repeat("s", 4095), p("long")))
	say("symlink of 4096 bytes", unix.Symlink(strings.Repeat("s", 4096), p("toolong")))
	link, err := os.Readlink(p("long"))
	sayf("readlink: %d bytes, %s", len(link), guest.Result(err))
	_, err = os.Readlink(p("f"))
	say("readlink a file", err)
	say("unlink a missing name", unix.Unlink(p("missing")))
}

// counts: link counts, sizes and blocks, times.
func counts() {
	p := func(s string) string { return rw + "/" + s }
	must("mkdir c", unix.Mkdir(p("c"), 0o755))
	for _, s := range []string{"a", "b", "c"} {
		must("mkdir c/"+s, unix.Mkdir(p("c/"+s), 0o755))
	}
	var st unix.Stat_t
	unix.Stat(p("c"), &st)
	sayf("c: links %d, size %d, blocks %d", st.Nlink, st.Size, st.Blocks)
	unix.Rmdir(p("c/b"))
	unix.Stat(p("c"), &st)
	sayf("c after an rmdir: links %d", st.Nlink)
	must("write g", os.WriteFile(p("g"), []byte("g"), 0o644))
	must("link g h", unix.Link(p("g"), p("h")))
	unix.Stat(p("g"), &st)
	sayf("g: links %d, size %d, blocks %d", st.Nlink, st.Size, st.Blocks)
	seekDataHole(p("g"))
	// A sparse file: one byte at 10 MiB is one block, then 1 MiB after
	// a hole.
	f, err := os.OpenFile(p("sparse"), os.O_CREATE|os.O_RDWR, 0o644)
	must("create sparse", err)
	_, err = f.WriteAt([]byte{1}, 10<<20)
	say("a byte at 10 MiB", err)
	f.Sync()
	unix.Stat(p("sparse"), &st)
	sayf("sparse: size %d, blocks %d", st.Size, st.Blocks)
	_, err = f.WriteAt(make([]byte, 1<<20), 1<<20)
	say("1 MiB at 1 MiB", err)
	f.Sync()
	unix.Stat(p("sparse"), &st)
	sayf("sparse: size %d, blocks %d", st.Size, st.Blocks)
	say("truncate it to 1.5 MiB", f.Truncate(3<<19))
	f.Sync()
	unix.Stat(p("sparse"), &st)
	sayf("sparse: size %d, blocks %d", st.Size, st.Blocks)
	f.Close()
	// Times to the nanosecond (256-byte inodes keep them), and the
	// change time moved by a chmod.
	ts := []unix.Timespec{{Sec: 1_000_000_000, Nsec: 123_456_789}, {Sec: 2_000_000_000, Nsec: 987_654_321}}
	say("utimensat", unix.UtimesNano(p("g"), ts))
	unix.Stat(p("g"), &st)
	sayf("g: atime %d.%09d, mtime %d.%09d", st.Atim.Sec, st.Atim.Nsec, st.Mtim.Sec, st.Mtim.Nsec)
	say("utimensat before 1970", unix.UtimesNano(p("g"), []unix.Timespec{{Sec: -1, Nsec: 5}, {Sec: -2_000_000_000}}))
	unix.Stat(p("g"), &st)
	sayf("g: atime %d.%09d, mtime %d.%09d", st.Atim.Sec, st.Atim.Nsec, st.Mtim.Sec, st.Mtim.Nsec)
	say("chmod 4755", unix.Chmod(p("g"), 0o4755))
	unix.Stat(p("g"), &st)
	sayf("g: mode %o", st.Mode)
	d, err := os.Open(rw)
	must("open the root", err)
	say("fsync a directory", d.Sync())
	say("fdatasync a directory", unix.Fdatasync(int(d.Fd())))
	d.Close()
	var sf unix.Statfs_t
	err = unix.Statfs(rw, &sf)
	sayf("statfs: %s, type %#x, block size %d, name length %d", guest.Result(err), sf.Type, sf.Bsize, sf.Namelen)
}

// limits: the largest file 1 KiB blocks map (2^32 blocks: 4 TiB, less
// one block, s_maxbytes), and what goes past it.
func limits() {
	f, err := os.OpenFile(rw+"/big", os.O_CREATE|os.O_RDWR, 0o644)
	must("create big", err)
	defer f.Close()
	// A byte at 5 GiB: past what a two-level page index held (1 GiB).
	_, err = f.WriteAt([]byte{7}, 5<<30)
	say("a byte at 5 GiB", err)
	var st unix.Stat_t
	unix.Fstat(int(f.Fd()), &st)
	b := make([]byte, 2)
	n, err := f.ReadAt(b, 5<<30-1)
	sayf("big: size %d, blocks %d; read back %d bytes %v, %s", st.Size, st.Blocks, n, b[:n], guest.Result(ignoreEOF(err)))
	say("truncate to 2 TiB", f.Truncate(2<<40))
	say("truncate to 16 TiB", f.Truncate(16<<40))
	_, err = f.Seek(1<<50, 0)
	say("seek to 1 PiB", err)
	say("truncate to 0", f.Truncate(0))
}

// seekDataHole: lseek's SEEK_DATA and SEEK_HOLE on a file with no
// hole (gometal keeps no map of holes: its answer for a sparse file is
// the simplest lseek(2) allows, all data, which is not ext4's).
func seekDataHole(name string) {
	f, err := os.Open(name)
	must("open "+name, err)
	defer f.Close()
	for _, c := range []struct {
		what   string
		off    int64
		whence int
	}{
		{"SEEK_DATA 0", 0, unix.SEEK_DATA},
		{"SEEK_HOLE 0", 0, unix.SEEK_HOLE},
		{"SEEK_DATA at the end", 1, unix.SEEK_DATA},
		{"SEEK_HOLE at the end", 1, unix.SEEK_HOLE},
		{"SEEK_DATA -1", -1, unix.SEEK_DATA},
	} {
		off, err := unix.Seek(int(f.Fd()), c.off, c.whence)
		if err != nil {
			off = -1
		}
		sayf("g: %s: %d, %s", c.what, off, guest.Result(err))
	}
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// fullDisk: writes until the disk is full (ENOSPC), and after a delete
// the room is there again.
func fullDisk() {
	f, err := os.OpenFile(rw+"/fill", os.O_CREATE|os.O_WRONLY, 0o644)
	must("create fill", err)
	buf := make([]byte, 1<<20)
	for {
		if _, err = f.Write(buf); err != nil {
			break
		}
	}
	if err == nil {
		err = f.Sync()
	}
	say("fill the disk", err)
	f.Close()
	say("create while full", os.WriteFile(rw+"/more", buf, 0o644))
	say("remove fill", os.Remove(rw+"/fill"))
	say("1 MiB after", os.WriteFile(rw+"/after", buf, 0o644))
}

// remount: read-only in place (MS_REMOUNT), a write refused, and umount
// refused while a file is open.
func remount() {
	f, err := os.Open(rw + "/g")
	must("open g", err)
	say("umount while a file is open", unix.Unmount(rw, 0))
	f.Close()
	say("remount read-only", unix.Mount("/dev/vda", rw, "ext4", unix.MS_REMOUNT|unix.MS_RDONLY, ""))
	say("write after", os.WriteFile(rw+"/g", []byte("x"), 0o644))
	say("remount read-write", unix.Mount("/dev/vda", rw, "ext4", unix.MS_REMOUNT, ""))
	say("write after", os.WriteFile(rw+"/g", []byte("x"), 0o644))
	say("umount", unix.Unmount(rw, 0))
}
