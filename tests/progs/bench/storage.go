//go:build linux && arm64

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

// The storage figures: ext4 on the disk the harness attaches as the first
// virtio-blk device (a fresh image from mke2fs -t ext4 every boot, the
// same for both sides; cmd/gometal/benchdisk.go). On Linux the bench
// program, as init, first loads Debian's modules for it (virtio-mmio,
// virtio-blk, ext4 and what ext4 needs) from /modules, as
// tests/progs/netinit does for the network. A side that cannot mount the
// disk prints why and produces none of these figures (the table says
// "does not run").

const (
	diskDevice = "/dev/vda"
	diskMount  = "/mnt/disk"
	modulesDir = "/modules"
	// diskWait bounds the wait for the disk's node once the driver is in
	// (Linux probes the device as virtio_mmio loads, normally at once).
	diskWait = 5 * time.Second
)

var (
	diskState   int // 0: not tried, 1: mounted, 2: mounted read-only (said), -1: cannot
	diskWhy     string
	diskSeqName = diskMount + "/seq.dat"
	// diskReadName is the file the harness made the image with (mke2fs
	// -d), which the read figure reads.
	diskReadName = diskMount + "/read.dat"
	// diskRO: the side mounts ext4 read-only only (a kernel that reads
	// it and does not write it): the figures that write do not run
	// there, the read figure does.
	diskRO    bool
	diskFlags uintptr
)

// diskWritable reports whether the figures that write can run, saying
// once why not.
func diskWritable() bool {
	if diskRO && diskState == 1 {
		fmt.Println("bench: the storage figures that write do not run: ext4 mounts read-only only")
		diskState = 2
	}
	return !diskRO
}

// diskReady mounts the disk once, and reports whether the storage
// figures can run; the first time it cannot, it says why.
func diskReady() bool {
	if diskState == 0 {
		if err := mountDisk(); err != nil {
			diskState, diskWhy = -1, err.Error()
			fmt.Println("bench: storage figures do not run:", diskWhy)
		} else {
			diskState = 1
		}
	}
	return diskState > 0
}

func mountDisk() error {
	if _, err := guest.LoadModules(modulesDir); err != nil {
		return err
	}
	if _, err := os.Stat(diskDevice); errors.Is(err, os.ErrNotExist) {
		// Linux's initramfs has no devtmpfs mounted; gometal's /dev is one.
		os.MkdirAll("/dev", 0o755)
		unix.Mount("devtmpfs", "/dev", "devtmpfs", 0, "")
	}
	deadline := time.Now().Add(diskWait)
	for {
		if _, err := os.Stat(diskDevice); err == nil {
			break
		} else if time.Now().After(deadline) {
			return fmt.Errorf("no %s (is a disk attached?): %v", diskDevice, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := os.MkdirAll(diskMount, 0o755); err != nil {
		return err
	}
	err := unix.Mount(diskDevice, diskMount, "ext4", 0, "")
	if err == unix.EROFS {
		// A kernel that reads ext4 but does not write it yet.
		diskRO, diskFlags = true, unix.MS_RDONLY
		err = unix.Mount(diskDevice, diskMount, "ext4", diskFlags, "")
	}
	if err != nil {
		return fmt.Errorf("mount %s on %s as ext4: %v", diskDevice, diskMount, err)
	}
	return nil
}

// remountDisk unmounts and mounts the disk again: nothing of it stays
// cached, so the next read comes from the device (a cold read).
func remountDisk() {
	if err := unix.Unmount(diskMount, 0); err != nil {
		guest.Fail("umount " + diskMount + ": " + err.Error())
	}
	if err := unix.Mount(diskDevice, diskMount, "ext4", diskFlags, ""); err != nil {
		guest.Fail("mount again: " + err.Error())
	}
}

// diskWrite: write diskMiB to a new file in 1 MiB writes, then fsync it:
// MiB per second, the fsync included (the bytes are on the disk).
func diskWrite(s scale) {
	if !diskReady() || !diskWritable() {
		return
	}
	d := writeFile(diskSeqName, s.diskMiB)
	report("ext4_write_mib_per_s", float64(s.diskMiB)/d.Seconds(), "MiB/s")
}

// diskRead: read the file the image was made with after a remount
// (cold), in 1 MiB reads.
func diskRead(s scale) {
	if !diskReady() {
		return
	}
	st, err := os.Stat(diskReadName)
	if err != nil {
		guest.Fail("the image has no " + diskReadName + ": " + err.Error())
		return
	}
	remountDisk()
	n, d := readFile(diskReadName)
	if int64(n) != st.Size() {
		guest.Fail(fmt.Sprintf("read %d bytes of %d", n, st.Size()))
	}
	report("ext4_read_mib_per_s", float64(n>>20)/d.Seconds(), "MiB/s")
}

// diskParallelReaders is how many goroutines ext4_parallel_read_mib_per_s
// reads with: one a core of the benchmark's -smp 4.
const diskParallelReaders = 4

// diskParallelRead: the same file, cold again, read by
// diskParallelReaders goroutines at once, each its own part of it in
// 1 MiB preads: MiB per second of them all (a kernel that holds one
// disk request at a time serializes them; one that keeps several in
// flight keeps the device busy with all).
func diskParallelRead(s scale) {
	if !diskReady() {
		return
	}
	f, err := os.Open(diskReadName)
	if err != nil {
		guest.Fail("the image has no " + diskReadName + ": " + err.Error())
		return
	}
	st, _ := f.Stat()
	f.Close()
	remountDisk()
	if f, err = os.Open(diskReadName); err != nil {
		guest.Fail("open again: " + err.Error())
		return
	}
	defer f.Close()
	part := st.Size() / diskParallelReaders
	var total atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for r := range int64(diskParallelReaders) {
		wg.Go(func() {
			buf := make([]byte, 1<<20)
			for off := r * part; off < (r+1)*part; off += int64(len(buf)) {
				n, err := f.ReadAt(buf[:min(int64(len(buf)), (r+1)*part-off)], off)
				total.Add(int64(n))
				if err != nil {
					guest.Fail(fmt.Sprintf("pread at %d: %v", off, err))
					return
				}
			}
		})
	}
	wg.Wait()
	d := time.Since(start)
	if n := total.Load(); n != part*diskParallelReaders {
		guest.Fail(fmt.Sprintf("read %d bytes of %d", n, part*diskParallelReaders))
	}
	report("ext4_parallel_read_mib_per_s", float64(total.Load()>>20)/d.Seconds(), "MiB/s")
}

// writeFile writes mib MiB to a new file at path in 1 MiB writes, then
// fsyncs it, and returns how long that took.
func writeFile(path string, mib int) time.Duration {
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i*7 + i>>11)
	}
	start := time.Now()
	f, err := os.Create(path)
	if err != nil {
		guest.Fail("create " + path + ": " + err.Error())
	}
	for i := 0; i < mib; i++ {
		if _, err := f.Write(buf); err != nil {
			guest.Fail("write " + path + ": " + err.Error())
		}
	}
	if err := f.Sync(); err != nil {
		guest.Fail("fsync " + path + ": " + err.Error())
	}
	d := time.Since(start)
	f.Close()
	return d
}

// readFile reads the file at path through in 1 MiB reads and returns
// its length and how long that took.
func readFile(path string) (int, time.Duration) {
	buf := make([]byte, 1<<20)
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		guest.Fail("open " + path + ": " + err.Error())
	}
	n := 0
	for {
		k, err := f.Read(buf)
		n += k
		if err == io.EOF {
			break
		}
		if err != nil {
			guest.Fail("read " + path + ": " + err.Error())
		}
	}
	d := time.Since(start)
	f.Close()
	return n, d
}

// diskFsync: append 4 KiB to a file and fsync it, median of s.fsyncs.
func diskFsync(s scale) {
	if !diskReady() || !diskWritable() {
		return
	}
	f, err := os.OpenFile(diskMount+"/fsync.dat", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		guest.Fail("create: " + err.Error())
	}
	buf := make([]byte, 4096)
	d := make([]time.Duration, s.fsyncs)
	for i := range d {
		start := time.Now()
		if _, err := f.Write(buf); err != nil {
			guest.Fail("write: " + err.Error())
		}
		if err := f.Sync(); err != nil {
			guest.Fail("fsync: " + err.Error())
		}
		d[i] = time.Since(start)
	}
	f.Close()
	slices.Sort(d)
	report("ext4_fsync_us", float64(d[len(d)/2].Nanoseconds())/1000, "us")
}

// diskCreateUnlink: create s.diskFiles empty files in a new directory
// (open O_CREAT|O_EXCL, close), fsync the directory; then unlink them
// all and fsync it again: files per second each way.
func diskCreateUnlink(s scale) {
	if !diskReady() || !diskWritable() {
		return
	}
	dir := diskMount + "/files"
	if err := os.Mkdir(dir, 0o755); err != nil {
		guest.Fail("mkdir: " + err.Error())
	}
	names := make([]string, s.diskFiles)
	for i := range names {
		names[i] = fmt.Sprintf("%s/f%05d", dir, i)
	}
	syncDir := func() {
		d, err := os.Open(dir)
		if err != nil {
			guest.Fail("open dir: " + err.Error())
		}
		if err := d.Sync(); err != nil {
			guest.Fail("fsync dir: " + err.Error())
		}
		d.Close()
	}
	start := time.Now()
	for _, n := range names {
		fd, err := unix.Open(n, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		if err != nil {
			guest.Fail("create " + n + ": " + err.Error())
		}
		unix.Close(fd)
	}
	syncDir()
	created := time.Since(start)
	start = time.Now()
	for _, n := range names {
		if err := unix.Unlink(n); err != nil {
			guest.Fail("unlink " + n + ": " + err.Error())
		}
	}
	syncDir()
	unlinked := time.Since(start)
	report("ext4_create_per_s", float64(s.diskFiles)/created.Seconds(), "/s")
	report("ext4_unlink_per_s", float64(s.diskFiles)/unlinked.Seconds(), "/s")
}
