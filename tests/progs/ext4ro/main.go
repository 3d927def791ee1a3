//go:build linux && arm64

// Command ext4ro mounts the ext4 disk tests/ext4_test.go attaches
// (/dev/vda, made by gometal disk create -from a tree) read-only, as a
// program on Linux would, and prints the tree (tests/internal/
// treesum) for the host to compare with the directory the disk was made
// from; it checks mount(2)'s refusals, that nothing can be changed on
// the read-only mount, reads a file through mmap, runs a program from
// the disk, and unmounts.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gometal/gometal/tests/internal/treesum"
	"github.com/gometal/gometal/tests/progs/internal/guest"
)

const mnt = "/mnt"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "boot" {
		boot()
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "corrupt" {
		corrupt()
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "list" {
		// The tree mounted at boot at os.Args[2] (gometal run -disk
		// FILE:GUEST), for the host to compare.
		lines, err := treesum.Lines(os.Args[2], "lost+found")
		guest.Check("walk", err == nil, err)
		for _, l := range lines {
			fmt.Println("tree:", l)
		}
		fmt.Println("ext4ro: listed", len(lines))
		return
	}
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		guest.Fail("mkdir: " + err.Error())
	}
	refusals()
	err := unix.Mount("/dev/vda", mnt, "ext4", unix.MS_RDONLY, "")
	guest.Check("mount -o ro", err == nil, err)
	if err != nil {
		os.Exit(1)
	}
	mounts := guest.ReadFile("/proc/mounts")
	for _, l := range strings.Split(mounts, "\n") {
		if strings.Contains(l, " "+mnt+" ") {
			fmt.Println("ext4ro: mounts:", l)
		}
	}
	var sfs unix.Statfs_t
	err = unix.Statfs(mnt, &sfs)
	fmt.Printf("ext4ro: statfs type %#x bsize %d ro %v %v\n", sfs.Type, sfs.Bsize, sfs.Flags&unix.ST_RDONLY != 0, err)
	var st unix.Stat_t
	err = unix.Stat(mnt, &st)
	fmt.Printf("ext4ro: root dev %d:%d ino %d %v\n", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino, err)

	lines, err := treesum.Lines(mnt, "lost+found")
	guest.Check("walk", err == nil, err)
	for _, l := range lines {
		fmt.Println("tree:", l)
	}
	readOnly()
	mapped()
	out, err := exec.Command(mnt + "/bin/exit3").CombinedOutput()
	var ee *exec.ExitError
	fmt.Printf("ext4ro: ran %q: status %d\n", strings.TrimSpace(string(out)), exitCode(err, &ee))

	f, err := os.Open(mnt + "/a/f1")
	guest.Check("open", err == nil, err)
	fmt.Println("ext4ro: umount while open:", guest.Result(unix.Unmount(mnt, 0)))
	f.Close()
	fmt.Println("ext4ro: umount:", guest.Result(unix.Unmount(mnt, 0)))
	ents, _ := os.ReadDir(mnt)
	fmt.Println("ext4ro: entries after umount:", len(ents))
	// Mounted again, the same bytes come back (read from the disk anew).
	err = unix.Mount("/dev/vda", mnt, "ext4", unix.MS_RDONLY, "")
	again, _ := treesum.Lines(mnt, "lost+found")
	fmt.Println("ext4ro: remount same tree:", err == nil && strings.Join(again, "\n") == strings.Join(lines, "\n"))
	fmt.Println("ext4ro: done")
}

// boot checks the mounts gometal run -disk FILE:GUEST asked the kernel
// for: the ext4 at /data/disk, and a disk with no ext4 meant for /bad,
// which the kernel could not mount (the directory is there, empty).
func boot() {
	for _, l := range strings.Split(guest.ReadFile("/proc/mounts"), "\n") {
		if strings.Contains(l, " /data/disk ") || strings.Contains(l, " /bad ") {
			fmt.Println("ext4ro: boot mounts:", l)
		}
	}
	lines, err := treesum.Lines("/data/disk", "lost+found")
	guest.Check("walk", err == nil, err)
	fmt.Println("ext4ro: boot tree lines:", len(lines))
	ents, err := os.ReadDir("/bad")
	fmt.Println("ext4ro: /bad entries:", len(ents), err)
	fmt.Println("ext4ro: boot done")
}

// corrupt mounts a disk the host damaged at random and reads all it
// can: every answer is a mount refusal or an error for what is damaged
// (EUCLEAN, EBADMSG, EIO), and the kernel lives to print the last line.
func corrupt() {
	os.MkdirAll(mnt, 0o755)
	err := unix.Mount("/dev/vda", mnt, "ext4", unix.MS_RDONLY, "")
	fmt.Println("ext4ro: corrupt mount:", guest.Result(err))
	if err == nil {
		files, errs := 0, map[string]int{}
		filepath.WalkDir(mnt, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				errs[guest.Result(errors.Unwrap(err))]++
				return nil
			}
			if d.Type().IsRegular() {
				if _, err := os.ReadFile(p); err != nil {
					errs[guest.Result(errors.Unwrap(err))]++
				}
				files++
			}
			return nil
		})
		fmt.Println("ext4ro: corrupt walk:", files, "files read, errors", errs)
	}
	fmt.Println("ext4ro: corrupt done")
}

func exitCode(err error, ee **exec.ExitError) int {
	if errors.As(err, ee) {
		return (*ee).ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// refusals are mount(2)'s answers for what cannot be mounted.
func refusals() {
	try := func(what, src, opts string, flags uintptr) {
		fmt.Printf("ext4ro: mount %s: %s\n", what, guest.Result(unix.Mount(src, mnt, "ext4", flags, opts)))
	}
	try("read-write", "/dev/vda", "", 0)
	try("no such node", "/dev/nonexistent", "", unix.MS_RDONLY)
	try("a character device", "/dev/null", "", unix.MS_RDONLY)
	try("an unknown option", "/dev/vda", "bogus", unix.MS_RDONLY)
}

// readOnly tries each kind of change: EROFS, as Linux answers on a
// read-only mount.
func readOnly() {
	for _, c := range []struct {
		what string
		err  error
	}{
		{"create", func() error { _, err := os.Create(mnt + "/new"); return err }()},
		{"open for writing", func() error { _, err := os.OpenFile(mnt+"/a/f1", os.O_WRONLY, 0); return err }()},
		{"mkdir", os.Mkdir(mnt+"/d", 0o755)},
		{"unlink", os.Remove(mnt + "/a/f1")},
		{"rename", os.Rename(mnt+"/a/f1", mnt+"/a/f2")},
		{"symlink", os.Symlink("x", mnt+"/l")},
		{"chmod", os.Chmod(mnt+"/a/f1", 0o777)},
		{"truncate", os.Truncate(mnt+"/a/f1", 0)},
	} {
		fmt.Printf("ext4ro: %s: %s\n", c.what, guest.Result(c.err))
	}
}

// mapped reads the big file through mmap and through read(2).
func mapped() {
	p := mnt + "/a/f300000"
	want, err := os.ReadFile(p)
	f, err2 := os.Open(p)
	if err != nil || err2 != nil {
		guest.Fail(fmt.Sprint("read: ", err, err2))
		return
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, len(want), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		guest.Fail("mmap: " + err.Error())
		return
	}
	fmt.Println("ext4ro: mmap equals read:", bytes.Equal(m, want), len(m))
	unix.Munmap(m)
}
