package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gometal/gometal/linker"
	"github.com/gometal/gometal/qemu"
)

// The storage figures (tests/progs/bench/storage.go): ext4 on a fresh
// disk image every boot, made by e2fsprogs' mke2fs with Debian's defaults
// (gometal disk create), attached to both sides as the same virtio-blk
// device, in boots of their own so that no other figure runs beside the
// disk, and Linux's boots load its modules for it. On a side that cannot
// mount it the program says why and the table says "does not run".

// benchDiskBytes is the size of each boot's image: room for the 64 MiB
// file, the thousand files and ext4's journal (16 MiB at this size).
const benchDiskBytes = 256 << 20

// isDiskFigure reports whether name is a storage figure: ext4's, and
// the host share's (9p), which run in the same boots.
func isDiskFigure(name string) bool {
	return strings.HasPrefix(name, "ext4_") || strings.HasPrefix(name, "p9_") || isGoBuildFigure(name)
}

// isGoBuildFigure reports whether name is a go build figure: storage
// figures too, that run only when named (a cold build takes minutes a
// boot), on a bigger disk, with the toolchain on the share.
func isGoBuildFigure(name string) bool { return strings.HasPrefix(name, "gobuild_") }

// benchGoBuildDiskBytes is the disk of a boot with the go build figures:
// room for the standard library's packages in GOCACHE besides the rest.
const benchGoBuildDiskBytes = 1 << 30

// diskArgs are the storage figures asked for, as the program's
// arguments, -quick first; none: none was asked for.
func (o *benchOptions) diskArgs() []string {
	var args []string
	for _, f := range benchFigures {
		if isDiskFigure(f.Name) && o.wants(f.Name) {
			args = append(args, f.Name)
		}
	}
	if len(args) > 0 && o.quick {
		args = append([]string{"-quick"}, args...)
	}
	return args
}

// storageModulePaths are the Linux guest's modules for the disk, under
// lib/modules/RELEASE, in load order: ext4 and what it depends on (its
// modinfo "depends=": jbd2, mbcache, crc16; crc32c for metadata_csum,
// which ext4 asks the crypto API for), then the block driver, then
// virtio-mmio, whose probe finds the device once its driver is in
// (Debian builds them all as modules).
var storageModulePaths = []string{
	"kernel/lib/crc16.ko",
	"kernel/crypto/crc32c_generic.ko",
	"kernel/fs/mbcache.ko",
	"kernel/fs/jbd2/jbd2.ko",
	"kernel/fs/ext4/ext4.ko",
	"kernel/drivers/block/virtio_blk.ko",
	// The host share: v9fs and its transport (modinfo: 9p depends on
	// 9pnet, fscache and netfs; 9pnet_virtio on 9pnet).
	"kernel/fs/netfs/netfs.ko",
	"kernel/fs/fscache/fscache.ko",
	"kernel/net/9p/9pnet.ko",
	"kernel/net/9p/9pnet_virtio.ko",
	"kernel/fs/9p/9p.ko",
	"kernel/drivers/virtio/virtio_mmio.ko",
}

// benchDiskImage makes run n's fresh image in tmp, of size bytes; with
// goroot (not ""), the share holds that toolchain as go/.
func benchDiskImage(tmp string, n int, size int64, goroot string) (string, error) {
	img := filepath.Join(tmp, fmt.Sprintf("disk-%d.img", n))
	os.Remove(img)
	from, err := benchDiskTree(tmp)
	if err != nil {
		return "", err
	}
	if err := makeExt4Image(img, size, from, "bench"); err != nil {
		return "", err
	}
	// The share beside it: a fresh directory holding the same read.dat
	// (a hard link: no copy), which p9_read_mib_per_s reads and
	// p9_write_mib_per_s writes next to.
	share := benchShareDir(img)
	os.RemoveAll(share)
	if err := os.MkdirAll(share, 0o755); err != nil {
		return "", err
	}
	if err := os.Link(filepath.Join(from, "read.dat"), filepath.Join(share, "read.dat")); err != nil {
		return "", err
	}
	if goroot != "" {
		if err := linkTree(goroot, filepath.Join(share, "go")); err != nil {
			return "", err
		}
	}
	return img, nil
}

// benchToolchain is the linux/arm64 Go toolchain the go build figures
// run, fetched once a bench run into tmp (linker.ArmToolchain).
func benchToolchain(tmp string) (string, error) {
	dir := filepath.Join(tmp, "go-linux-arm64")
	if _, err := os.Stat(filepath.Join(dir, "bin", "go")); err == nil {
		return dir, nil
	}
	os.RemoveAll(dir)
	fmt.Fprintln(os.Stderr, "gometal bench: fetching the linux/arm64 Go toolchain through the module proxy for the go build figures ...")
	return dir, linker.ArmToolchain(dir)
}

// linkTree makes dst a copy of the tree src of hard links (no bytes
// copied: the share of each boot is a fresh directory).
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return os.Link(p, filepath.Join(dst, rel))
	})
}

// benchShareDir is the host directory shared in the boot that has img.
func benchShareDir(img string) string { return strings.TrimSuffix(img, ".img") + "-share" }

// benchReadFileBytes is the size of the file every image is made with,
// which ext4_read_mib_per_s reads.
const benchReadFileBytes = 64 << 20

// benchDiskTree is the directory each image is made from (once a run):
// read.dat, benchReadFileBytes of a pattern.
func benchDiskTree(tmp string) (string, error) {
	dir := filepath.Join(tmp, "disk-tree")
	p := filepath.Join(dir, "read.dat")
	if st, err := os.Stat(p); err == nil && st.Size() == benchReadFileBytes {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	b := make([]byte, benchReadFileBytes)
	for i := range b {
		b[i] = byte(i*7 + i>>11)
	}
	return dir, os.WriteFile(p, b, 0o644)
}

// diskQEMUArgs attach img as the guest's first virtio-blk disk, and its
// share directory over virtio-9p (QEMU's local fsdev, tag gmshare0), the
// same devices for both sides.
func diskQEMUArgs(img string) []string {
	args := qemu.DiskArgs([]qemu.Disk{{Path: img}}, "virt")
	return append(args, qemu.ShareArgs([]qemu.Share{{Host: benchShareDir(img), Guest: "/mnt/share"}})...)
}

// diskSkipLine starts the line the program prints when it cannot mount
// the disk; the rest says why. diskPartLine starts the one it prints when
// it mounts the disk read-only only: the figures that write do not run.
const (
	diskSkipLine = "bench: storage figures do not run: "
	diskPartLine = "bench: the storage figures that write do not run: "
)

// benchDiskBoot runs the storage figures once on s with img attached; a
// side that cannot mount the disk gives no figures and why, one that
// mounts it read-only only the figures that read and why not the rest.
func benchDiskBoot(s benchSide, args []string, img string, timeout time.Duration) (figs map[string]float64, why string, err error) {
	if s.diskQEMUArgs == nil {
		return nil, "this side has no disk", nil
	}
	qargs, err := s.diskQEMUArgs(args, img)
	if err != nil {
		return nil, "", err
	}
	out, err := runQEMU(qargs, timeout, func(string, int) {})
	if err != nil {
		return nil, "", err
	}
	if !strings.Contains(out, "bench: done") {
		return nil, "", fmt.Errorf("the program did not finish; output:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, diskSkipLine); ok {
			return map[string]float64{}, rest, nil
		}
		if rest, ok := strings.CutPrefix(line, diskPartLine); ok {
			why = rest
		}
	}
	figs, err = parseBench(out)
	return figs, why, err
}
