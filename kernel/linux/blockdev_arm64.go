package linux

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/virtio"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/ext4fs"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/gpio"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/procfs"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Block device files (Linux's block/fops.c): /dev/vda, /dev/vda1,
// /dev/mmcblk0p2 read and written at any offset and length, as Linux's
// buffered block I/O allows, through the disk's driver in whole sectors
// (a partial sector is read, changed and written back); fsync sends the
// disk a flush. No page cache yet: each call goes to the device, which
// is why a call moves at most 64 KiB (blockChunkPages; a short transfer, as
// read(2) and write(2) allow; Go's os.File goes on with the rest).

// blockChunkPages bounds one transfer: the bounce pages below (64 KiB).
const blockChunkPages = 16

type blockDev struct {
	vfs.Base
	W vfs.Waitable // never notified: a disk is always ready
}

var blockDevImpl blockDev

// blockBounce are the pages a transfer passes through (the kernel lock
// is held across a transfer, so one set serves every call).
var blockBounce [virtio.MaxSegments]uintptr

// blockNodes are the nodes devtmpfs shows: the character devices and a
// node per disk and partition.
var blockNodes [len(devList) + block.MaxDisks*(block.MaxPartitions+1) + kernel.MaxI2C + 1 + kernel.MaxSPI*kernel.SPIChipSelects + gpio.MaxChips + 1]mount.DevNode

// blockNames holds the node names (a DevNode's Name is a string; these
// point into this table, which never changes after boot).
var blockNames [block.MaxDisks * (block.MaxPartitions + 1)][16]byte

// deviceNodes returns the nodes of every device: devList, then the
// disks, then the I2C buses, the RTC, the SPI devices, the GPIO chips
// and the framebuffer.
func deviceNodes() []mount.DevNode {
	n := copy(blockNodes[:], devList[:])
	k := 0
	for i := 0; i < block.NDisks; i++ {
		d := &block.Disks[i]
		for p := 0; p < d.Nodes(); p++ {
			part := d.NodePart(p)
			l := d.NameOf(part, &blockNames[k])
			blockNodes[n] = mount.DevNode{Name: unsafeString(&blockNames[k], l), Mode: unix.S_IFBLK | 0o660, Rdev: d.Major<<8 | (d.First + uint32(part))}
			n++
			k++
		}
	}
	n += i2cDeviceNodes(blockNodes[n:])
	n += rtcNode(blockNodes[n:])
	n += spidevNodes(blockNodes[n:])
	n += gpioNodes(blockNodes[n:])
	n += fbNode(blockNodes[n:])
	return blockNodes[:n]
}

// makeDiskNodes makes a node in the root's /dev for each disk and
// partition (and each I2C bus), when the root has a /dev (the initramfs's): a program as
// init finds /dev/vda with no devtmpfs mounted, as it finds the
// console there (devtmpfs shows them too).
func makeDiskNodes() {
	var w fs.Walk
	if fs.Resolve(&w, fs.RootPath(), []byte("/dev"), 0) != 0 || w.Node < 0 {
		return
	}
	for _, d := range mount.Devices[len(devList):] {
		fs.MakeDev(w.Node, []byte(d.Name), d.Mode, d.Rdev) // an existing name stays
	}
}

// blockOpen opens block device node i; ENXIO for a number no disk has
// (blkdev_open).
func blockOpen(i int32, flags uint32) uint64 {
	rdev := fs.Inodes[i].Rdev
	d, part := block.Find(rdev>>8, rdev&0xff)
	if d == nil {
		return errno(unix.ENXIO)
	}
	if blockBounce[0] == 0 {
		for k := range blockBounce[:blockChunkPages] {
			if blockBounce[k] = mm.Pages.Get(); blockBounce[k] == 0 {
				return errno(unix.ENOMEM)
			}
		}
	}
	if part < 0 {
		return errno(unix.ENXIO)
	}
	fd := openFD(&blockDevImpl, flags&^openOnlyFlags, flags&unix.O_CLOEXEC != 0)
	if !vfs.IsErr(fd) {
		fl, _ := getFD(fd)
		devNodes[fl.Index()] = i
		fs.Hold(i)
	}
	return fd
}

// diskOf returns the disk, first sector and length of description f.
func diskOf(f *vfs.File) (*block.Disk, uint64, uint64) {
	rdev := devRdev(f)
	d, part := block.Find(rdev>>8, rdev&0xff)
	if d == nil {
		return nil, 0, 0
	}
	start, length := d.Extent(part)
	return d, start, length
}

func (b *blockDev) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	return blockRW(f, buf, n, off, false)
}

func (b *blockDev) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	return blockRW(f, buf, n, off, true)
}

// blockRW moves up to 64 KiB less a sector between the app at buf and the
// device at byte off (-1: the description's position, which moves).
func blockRW(f *vfs.File, buf uintptr, n uint64, off int64, write bool) uint64 {
	d, start, length := diskOf(f)
	if d == nil {
		return errno(unix.ENXIO) // the disk went away
	}
	if write && d.ReadOnly {
		return errno(unix.EPERM) // blkdev_write_iter on a read-only disk
	}
	pos := off
	if off < 0 {
		pos = f.Pos
	}
	size := length * virtio.SectorSize
	if pos < 0 {
		return errno(unix.EINVAL)
	}
	if uint64(pos) >= size {
		if write && n > 0 {
			return errno(unix.ENOSPC) // blkdev_write_iter: past the end
		}
		return 0
	}
	// With a partial first sector, n bytes span up to n+511 more: one
	// sector less than the pages hold keeps the run inside them, and
	// inside what one request of the device may carry.
	chunk := uint64(min(blockChunkPages, kernel.BlockSegMax(d))) * mm.PageSize
	n = min(n, size-uint64(pos), chunk-virtio.SectorSize)
	if n == 0 {
		return 0
	}
	// The sectors that cover [pos, pos+n).
	first := uint64(pos) / virtio.SectorSize
	last := (uint64(pos) + n + virtio.SectorSize - 1) / virtio.SectorSize
	bytes := uint32((last - first) * virtio.SectorSize)
	headOff := uint64(pos) % virtio.SectorSize
	partial := headOff != 0 || (uint64(pos)+n)%virtio.SectorSize != 0
	if !write || partial {
		if kernel.BlockIO(d, false, start+first, &blockBounce, bytes) != 0 {
			return errno(unix.EIO)
		}
	}
	done := uint64(0)
	for done < n {
		at := headOff + done
		page := mm.PageBytes(blockBounce[at/mm.PageSize])
		po := at % mm.PageSize
		k := min(n-done, mm.PageSize-po)
		var ok bool
		if write {
			ok = usermem.CopyIn(page[po:po+k], buf+uintptr(done))
		} else {
			ok = usermem.CopyOut(buf+uintptr(done), page[po:po+k])
		}
		if !ok {
			if done == 0 {
				return errno(unix.EFAULT)
			}
			break
		}
		done += k
	}
	if write {
		// The buffer cache must not keep what this overwrote (a
		// program writing the device under a mounted file system).
		bcache.Forget(d.Index(), start+first, uint64(bytes)/bcache.SectorSize)
		if kernel.BlockIO(d, true, start+first, &blockBounce, bytes) != 0 {
			return errno(unix.EIO)
		}
	}
	if off < 0 {
		f.Pos += int64(done)
	}
	return done
}

// Seek: SEEK_END is the device's size (block_llseek).
func (b *blockDev) Seek(f *vfs.File, off int64, whence int) uint64 {
	_, _, length := diskOf(f)
	return fs.SeekFile(f, off, whence, int64(length*virtio.SectorSize))
}

// Ioctl: the block layer's generic requests (block/ioctl.c).
func (b *blockDev) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	d, _, length := diskOf(f)
	if d == nil {
		return errno(unix.ENXIO)
	}
	ok := true
	switch req {
	case unix.BLKGETSIZE64:
		ok = usermem.WriteU64(arg, length*virtio.SectorSize)
	case unix.BLKGETSIZE:
		ok = usermem.WriteU64(arg, length)
	case unix.BLKSSZGET, unix.BLKBSZGET:
		ok = usermem.WriteU32(arg, virtio.SectorSize)
	case unix.BLKPBSZGET, unix.BLKIOMIN, unix.BLKIOOPT:
		ok = usermem.WriteU32(arg, virtio.SectorSize)
	case unix.BLKROGET:
		v := uint32(0)
		if d.ReadOnly {
			v = 1
		}
		ok = usermem.WriteU32(arg, v)
	case unix.BLKFLSBUF:
		return 0 // no buffers are kept
	default:
		return errno(unix.ENOTTY)
	}
	if !ok {
		return errno(unix.EFAULT)
	}
	return 0
}

// blockSync flushes the disk of description f (fsync, fdatasync).
func blockSync(f *vfs.File) uint64 {
	d, _, _ := diskOf(f)
	if d == nil {
		return 0
	}
	if kernel.BlockFlush(d) != 0 {
		return errno(unix.EIO)
	}
	return 0
}

// syncDisks flushes every disk (sync, syncfs).
func syncDisks() {
	ext4fs.SyncAll()
	for i := 0; i < block.NDisks; i++ {
		kernel.BlockFlush(&block.Disks[i])
	}
}

func (b *blockDev) Stat(f *vfs.File) unix.Stat_t { return devNodeStat(f) }
func (b *blockDev) Release(f *vfs.File)          { fs.Drop(devNodes[f.Index()]) }
func (b *blockDev) Readiness(f *vfs.File) uint32 { return unix.EPOLLIN | unix.EPOLLOUT }
func (b *blockDev) Waitable() *vfs.Waitable      { return &b.W }
func (b *blockDev) Kind() vfs.Kind               { return vfs.KindDevice }

// unsafeString is the first l bytes of b as a string (b never changes).
func unsafeString(b *[16]byte, l int) string { return unsafe.String(&b[0], l) }

// sysFsync is fsync and fdatasync: EBADF for a descriptor not open; a
// block device's disk is flushed; a file of a writable share is fsynced
// on the host (Tfsync); everything else here lives in memory, or on a
// read-only store, and is as durable as it will be.
func sysFsync(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if fl.Impl == vfs.Impl(&blockDevImpl) {
		return blockSync(fl)
	}
	if nd, ok := fl.Impl.(*fs.Inode); ok {
		return errno(fs.SyncStored(nd.Index(), false))
	}
	return 0
}

// sysSync is sync: every disk flushed.
func sysSync(t *sched.Thread, f *sched.Frame) uint64 {
	syncDisks()
	return 0
}

// sysSyncfs is syncfs: EBADF for a descriptor not open, else as sync
// (the file systems on disks are not told apart yet).
func sysSyncfs(t *sched.Thread, f *sched.Frame) uint64 {
	if _, ok := getFD(f.X[0]); !ok {
		return errno(unix.EBADF)
	}
	syncDisks()
	return 0
}

// procPartitions is /proc/partitions as Linux's show_partition
// (block/genhd.c) prints it: a header, then a line a disk and a
// partition, "%4d  %7d %10llu %s" (major, minor, size in 1 KiB blocks,
// name).
func procPartitions(o *procfs.Buf) {
	o.Str("major minor  #blocks  name\n\n")
	var name [16]byte
	for i := 0; i < block.NDisks; i++ {
		d := &block.Disks[i]
		for p := 0; p < d.Nodes(); p++ {
			part := d.NodePart(p)
			_, length := d.Extent(part)
			o.Pad(uint64(d.Major), 4).Str("  ").Pad(uint64(d.First)+uint64(part), 7).Byte(' ')
			o.Pad(length/2, 10).Byte(' ').Raw(name[:d.NameOf(part, &name)]).Byte('\n')
		}
	}
}
