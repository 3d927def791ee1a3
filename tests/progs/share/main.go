//go:build linux && arm64

// Command share reads the host directory tests/share_test.go shares
// with gometal run -v DIR:/share:ro (mounted at boot, 9p over
// virtio-9p) and prints its tree (tests/internal/treesum) for the host
// to compare with the directory itself; it runs a program from the
// share, maps a file, checks every change is EROFS on the read-only
// mount, and mounts the same share again with mount(2) by its tag.
// "share write" changes a writable share at /rw (write.go); "share
// hostchange" reads a share while the host changes it (hostchange.go).
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gometal/gometal/tests/internal/treesum"
	"github.com/gometal/gometal/tests/progs/internal/guest"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "write" {
		write("/rw")
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "hostchange" {
		hostChange()
		return
	}
	for _, l := range strings.Split(guest.ReadFile("/proc/mounts"), "\n") {
		if strings.Contains(l, " 9p ") {
			fmt.Println("share: mounts:", l)
		}
	}
	var sfs unix.Statfs_t
	err := unix.Statfs("/share", &sfs)
	fmt.Printf("share: statfs type %#x ro %v %v\n", sfs.Type, sfs.Flags&unix.ST_RDONLY != 0, err)
	lines, err := treesum.Lines("/share")
	guest.Check("walk", err == nil, err)
	for _, l := range lines {
		fmt.Println("tree:", l)
	}
	out, err := exec.Command("/share/bin/exit3").CombinedOutput()
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	fmt.Printf("share: ran %q: status %d\n", strings.TrimSpace(string(out)), code)

	want, err := os.ReadFile("/share/a/f300000")
	f, err2 := os.Open("/share/a/f300000")
	if err == nil && err2 == nil {
		m, err := unix.Mmap(int(f.Fd()), 0, len(want), unix.PROT_READ, unix.MAP_PRIVATE)
		fmt.Println("share: mmap equals read:", err == nil && bytes.Equal(m, want), len(want))
		f.Close()
	}
	_, err = os.Create("/share/new")
	fmt.Println("share: create:", guest.Result(err))
	fmt.Println("share: mkdir:", guest.Result(os.Mkdir("/share/d", 0o755)))
	fmt.Println("share: unlink:", guest.Result(os.Remove("/share/a/f1")))

	os.MkdirAll("/again", 0o755)
	fmt.Println("share: mount by tag rw:", guest.Result(unix.Mount("gmshare0", "/again", "9p", 0, "trans=virtio")))
	fmt.Println("share: mount no such tag:", guest.Result(unix.Mount("nosuchtag", "/again", "9p", unix.MS_RDONLY, "trans=virtio")))
	err = unix.Mount("gmshare0", "/again", "9p", unix.MS_RDONLY, "trans=virtio,version=9p2000.L")
	again, _ := treesum.Lines("/again")
	fmt.Println("share: mounted again, same tree:", err == nil && strings.Join(again, "\n") == strings.Join(lines, "\n"))
	fmt.Println("share: umount:", guest.Result(unix.Unmount("/again", 0)))
	fmt.Println("share: done")
}
