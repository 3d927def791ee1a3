//go:build linux && arm64

package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

// The host share's figures: the directory the harness shares beside the
// disk (cmd/gometal/benchdisk.go; virtio-9p, QEMU's local fsdev, tag
// gmshare0), mounted by its tag with each kernel's default options, as
// `mount -t 9p -o trans=virtio gmshare0 /mnt/share` would. On Linux the
// modules are loaded with the disk's (v9fs, 9pnet_virtio). A side that
// cannot mount it prints why and gives none of these figures.

const (
	shareTag   = "gmshare0"
	shareMount = "/mnt/share"
	shareOpts  = "trans=virtio,version=9p2000.L"
)

var shareState int // 0: not tried, 1: mounted, -1: cannot

// shareReady mounts the share once (the modules first, if the disk's
// figures have not loaded them), saying why not the first time it
// cannot.
func shareReady() bool {
	if shareState == 0 {
		shareState = -1
		if _, err := guest.LoadModules(modulesDir); err != nil {
			fmt.Println("bench: share figures do not run:", err)
		} else if err := os.MkdirAll(shareMount, 0o755); err != nil {
			fmt.Println("bench: share figures do not run:", err)
		} else if err := unix.Mount(shareTag, shareMount, "9p", 0, shareOpts); err != nil {
			fmt.Printf("bench: share figures do not run: mount -t 9p %s %s: %v\n", shareTag, shareMount, err)
		} else {
			shareState = 1
		}
	}
	return shareState > 0
}

// shareWrite: write diskMiB to a new file on the share in 1 MiB writes,
// then fsync it: MiB per second, the fsync included.
func shareWrite(s scale) {
	if !shareReady() {
		return
	}
	d := writeFile(shareMount+"/written.dat", s.diskMiB)
	report("p9_write_mib_per_s", float64(s.diskMiB)/d.Seconds(), "MiB/s")
}

// shareRead: read the share's read.dat in 1 MiB reads, after unmounting
// and mounting the share again (nothing of it cached).
func shareRead(s scale) {
	if !shareReady() {
		return
	}
	if err := unix.Unmount(shareMount, 0); err != nil {
		guest.Fail("umount " + shareMount + ": " + err.Error())
	}
	if err := unix.Mount(shareTag, shareMount, "9p", 0, shareOpts); err != nil {
		guest.Fail("mount the share again: " + err.Error())
	}
	n, d := readFile(shareMount + "/read.dat")
	if n != 64<<20 {
		guest.Fail(fmt.Sprintf("read %d bytes of the share's read.dat, want %d", n, 64<<20))
	}
	report("p9_read_mib_per_s", float64(n>>20)/d.Seconds(), "MiB/s")
}
