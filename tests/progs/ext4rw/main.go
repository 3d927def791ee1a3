//go:build linux && arm64

// Command ext4rw writes the ext4 disk tests/ext4_test.go attaches
// (/dev/vda), as a program on Linux would: mounted read-write at /mnt, it
// makes, writes, renames, links, truncates and removes files and
// directories, fills the disk to ENOSPC and gives the room back, and
// prints what it made (tests/internal/treesum lines, and each file's
// SHA-256) for the host to read back with e2fsprogs and for a second
// boot (read) to print again. crash is the crash trials' workload
// (crash.go).
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gometal/gometal/tests/internal/treesum"
	"github.com/gometal/gometal/tests/progs/internal/guest"
)

const mnt = "/mnt"

func main() {
	mode := "write"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if mode == "perm" {
		perm(os.Args[2])
		return
	}
	if mode == "list-crash" {
		// Mounted at boot (replayed): the crash trial's files.
		ents, err := os.ReadDir(p("crash"))
		fmt.Println("ext4rw: listed crash", len(ents), err)
		return
	}
	os.MkdirAll(mnt, 0o755)
	err := unix.Mount("/dev/vda", mnt, "ext4", 0, "")
	fmt.Println("ext4rw: mount read-write:", guest.Result(err))
	if err != nil {
		os.Exit(1)
	}
	switch mode {
	case "write":
		write()
		list()
	case "read":
		list()
	case "crash":
		crash()
	case "eio":
		eio()
	}
	fmt.Println("ext4rw: umount:", guest.Result(unix.Unmount(mnt, 0)))
	fmt.Println("ext4rw: done")
}

func p(name string) string { return filepath.Join(mnt, name) }

func say(what string, err error) { fmt.Printf("ext4rw: %s: %s\n", what, guest.Result(err)) }

// data is n bytes of a pattern seeded by seed.
func data(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + seed + i>>13)
	}
	return b
}

func write() {
	for _, l := range strings.Split(guest.ReadFile("/proc/mounts"), "\n") {
		if strings.Contains(l, " "+mnt+" ") {
			fmt.Println("ext4rw: mounts:", l)
		}
	}
	var before unix.Statfs_t
	unix.Statfs(mnt, &before)

	big := data(3<<20+123, 1)
	f, err := os.Create(p("new/big"))
	if errors.Is(err, os.ErrNotExist) {
		say("create in a missing directory", err)
		err = os.Mkdir(p("new"), 0o750)
		say("mkdir", err)
		f, err = os.Create(p("new/big"))
	}
	if err == nil {
		// Odd sizes: writes start and end inside blocks.
		for off := 0; off < len(big) && err == nil; off += 100003 {
			_, err = f.Write(big[off:min(off+100003, len(big))])
		}
		if err == nil {
			err = f.Sync()
		}
		f.Close()
	}
	say("write big and fsync", err)
	back, err := os.ReadFile(p("new/big"))
	fmt.Println("ext4rw: big reads back:", err == nil && bytes.Equal(back, big), len(back))

	// Into the middle of a file the host made, and appended.
	f, err = os.OpenFile(p("a/f300000"), os.O_RDWR, 0)
	if err == nil {
		_, err = f.WriteAt([]byte("GUEST"), 4094)
		f.Close()
	}
	say("write into the host's file", err)
	f, err = os.OpenFile(p("a/f300000"), os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = f.Write([]byte("+tail"))
		if err == nil {
			err = unix.Fdatasync(int(f.Fd()))
		}
		f.Close()
	}
	say("append and fdatasync", err)
	// A sparse file: holes around written pieces.
	f, err = os.Create(p("new/sparse"))
	if err == nil {
		for k := 0; k < 10 && err == nil; k++ {
			_, err = f.WriteAt(data(3000, k), int64(k)*50000)
		}
		f.Close()
	}
	say("sparse", err)

	say("truncate down", os.Truncate(p("a/f65536"), 1000))
	say("truncate up", os.Truncate(p("a/f4097"), 100000))
	say("rename a file across directories", os.Rename(p("a/f1"), p("new/moved")))
	say("rename a directory across", os.Rename(p("a/b"), p("new/b")))
	say("rename over a file", os.Rename(p("a/f4095"), p("a/f4096")))
	say("symlink", os.Symlink("../a/f0", p("new/link")))
	say("slow symlink", os.Symlink(strings.Repeat("far/", 40)+"away", p("new/slowlink")))
	say("link", os.Link(p("a/f0"), p("new/hard")))
	say("unlink the link again", os.Remove(p("new/hard")))
	say("mkfifo", unix.Mkfifo(p("new/fifo"), 0o640))
	say("chmod", os.Chmod(p("new/moved"), 0o600))
	mt := time.Date(2020, 2, 2, 2, 2, 2, 222000000, time.UTC)
	say("chtimes", os.Chtimes(p("new/moved"), mt, mt))
	say("rmdir a full directory", os.Remove(p("new/b")))
	say("remove a tree", os.RemoveAll(p("many")))
	for i := 0; i < 200; i++ {
		if err = os.WriteFile(p(fmt.Sprintf("new/many-%03d", i)), data(i*10, i), 0o644); err != nil {
			break
		}
	}
	say("200 files in a directory", err)
	// Unlinked while open: readable until closed, then its room is
	// given back.
	f, err = os.Create(p("open"))
	if err == nil {
		f.Write(data(200000, 5))
		err = os.Remove(p("open"))
		got := make([]byte, 10)
		f.ReadAt(got, 100)
		fmt.Println("ext4rw: read after unlink:", bytes.Equal(got, data(200000, 5)[100:110]))
		f.Close()
	}
	say("unlink while open", err)

	// A shared writable mapping: its stores reach the disk at msync and
	// at munmap.
	say("mmap shared", mapped(p("new/mapped")))

	// Fill the disk: ENOSPC, and the room comes back.
	var mid unix.Statfs_t
	unix.Statfs(mnt, &mid)
	f, err = os.Create(p("fill"))
	n := 0
	if err == nil {
		chunk := data(1<<20, 9)
		for err == nil {
			var k int
			k, err = f.Write(chunk)
			n += k
		}
		f.Close()
	}
	say("fill the disk", err)
	var full unix.Statfs_t
	unix.Statfs(mnt, &full)
	fmt.Println("ext4rw: full: free blocks", full.Bfree, "wrote at least 8 MiB:", n >= 8<<20)
	say("remove the filler", os.Remove(p("fill")))
	unix.Sync()
	var after unix.Statfs_t
	unix.Statfs(mnt, &after)
	fmt.Println("ext4rw: room back:", after.Bfree == mid.Bfree, "files back:", after.Ffree == mid.Ffree)
	fmt.Println("ext4rw: used since mount (blocks):", int64(before.Bfree)-int64(after.Bfree) > 0)
}

// list prints the tree and each regular file's SHA-256.
func list() {
	lines, err := treesum.Lines(mnt, "lost+found")
	guest.Check("walk", err == nil, err)
	for _, l := range lines {
		fmt.Println("tree:", l)
	}
	for _, name := range []string{"new/mapped", "new/big", "a/f300000", "new/sparse", "a/f65536", "a/f4097", "new/moved", "a/f4096", "new/many-123"} {
		b, err := os.ReadFile(p(name))
		fmt.Printf("file: %s %x %d %v\n", name, sha256.Sum256(b), len(b), err)
	}
}

// perm keeps a count of boots in dir/boots (a disk the kernel mounted at
// boot, the Pi's /perm): it prints the count so far, appends a line and
// makes it durable, as a device logging across power cycles does.
func perm(dir string) {
	if len(os.Args) > 3 {
		// The boot partition mounted beside it: each file's checksum.
		ents, err := os.ReadDir(os.Args[3])
		fmt.Println("perm: boot partition:", len(ents), "entries", guest.Result(err))
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join(os.Args[3], e.Name())); err == nil && e.Type().IsRegular() {
				fmt.Printf("sum: %s %x %d\n", e.Name(), sha256.Sum256(b), len(b))
			}
		}
	}
	old, err := os.ReadFile(filepath.Join(dir, "boots"))
	fmt.Printf("perm: boots before: %d (%s)\n", bytes.Count(old, []byte("\n")), guest.Result(err))
	f, err := os.OpenFile(filepath.Join(dir, "boots"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err == nil {
		_, err = f.Write([]byte("boot\n"))
		if err == nil {
			err = f.Sync()
		}
		f.Close()
	}
	say("perm: logged this boot", err)
}

// eio runs on a disk whose requests fail from the first write after the
// mount's first flush on (QEMU's blkdebug): the write that reaches the
// disk is EIO, the volume goes read-only (errors=remount-ro), what is
// in memory still reads.
func eio() {
	_, err := os.ReadFile(p("a/f65536"))
	say("read before the error", err)
	f, err := os.Create(p("doomed"))
	if err == nil {
		_, err = f.Write(data(100000, 3))
		f.Close()
	}
	say("write on a failing disk", err)
	say("create after the error", os.WriteFile(p("after"), []byte("x"), 0o644))
	_, err = os.ReadFile(p("a/f65536"))
	say("read again after the error", err)
	_, err = os.ReadDir(p("a"))
	say("list after the error", err)
}

// mapped makes a 3-page file, maps it shared and writable, fills it
// through the mapping and msyncs, changes its last page and unmaps.
func mapped(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(3 * 4096); err != nil {
		return err
	}
	m, err := unix.Mmap(int(f.Fd()), 0, 3*4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return err
	}
	copy(m, data(3*4096, 11))
	if err := unix.Msync(m, unix.MS_SYNC); err != nil {
		return err
	}
	copy(m[2*4096:], "changed after msync, written back at munmap")
	return unix.Munmap(m)
}
