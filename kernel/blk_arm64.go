package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/sdhci"
	"github.com/gometal/gometal/drivers/virtio"
	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/ext4fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/vfatfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The disks: every virtio-blk device QEMU virt has (gometal run -disk),
// and the Pi's SD card (sdcard_arm64.go), registered with kernel/block,
// their partition tables read at boot. I/O goes through BlockIO, one
// request at a time under the kernel lock, the caller waiting for the
// device (docs/ARCHITECTURE.md, "Storage": what is built, what comes).

var (
	blks  [block.MaxDisks]virtio.Blk
	nblks int
	// bounce is a page the partition parser's sectors pass through.
	bounce uintptr
	// parsing is the disk Parse reads (a function value's argument can
	// be no pointer to a fixed table entry the hook does not know).
	parsing *block.Disk
)

// diskMounts are the gometal.mount=DEV:GUEST words of the command line
// (gometal run -disk FILE:GUEST), pointing into the bootargs: the disks
// the Linux layer mounts before /init starts.
var (
	diskMounts  [block.MaxDisks][]byte
	diskMountsN int
)

// DiskMount is the k-th gometal.mount= value; ok is false past the last.
func DiskMount(k int) (v []byte, ok bool) {
	if k >= diskMountsN {
		return nil, false
	}
	return diskMounts[k], true
}

// initBlock finds the virtio-blk devices, registers each as a disk and
// reads its partition table, logging it as Linux does (" vda: vda1 vda2");
// the buffer cache and ext4 get their way to the disks and the log.
func initBlock() {
	bcache.IO, bcache.ReadRun, bcache.WriteRun, bcache.FlushIO = cacheIO, cacheRun, cacheWriteRun, cacheFlush
	ext4fs.Say, vfatfs.Say = fsSay, fsSay
	for n, addr, modern := nextVirtio(-1, virtio.DeviceBlk); n >= 0; n, addr, modern = nextVirtio(n, virtio.DeviceBlk) {
		if nblks == len(blks) {
			logLine("block: too many disks; the rest are left out")
			return
		}
		b := &blks[nblks]
		if !modern || !b.InitBlk(cpu.KVA(addr), nicPage) {
			if Info("block: the virtio-blk device at ") {
				PutHex(uint64(addr))
				Puts(" did not start")
				InfoEnd()
			}
			continue
		}
		d, ok := block.AddVirtio(b.Sectors, b.ReadOnly, b.Flush, nblks)
		nblks++
		if !ok {
			logLine("block: too many disks; the rest are left out")
			return
		}
		addDisk(d)
	}
}

// addDisk reads disk d's partition table and logs it.
func addDisk(d *block.Disk) {
	if bounce == 0 {
		bounce = mm.Pages.Get()
	}
	if bounce != 0 {
		parsing = d
		d.Table = block.Parse(d.Sectors, parseRead)
		parsing = nil
	}
	var nb [16]byte
	if Info("") {
		PutBytes(nb[:d.NameOf(0, &nb)])
		Puts(": ")
		putMiB(d.Sectors * virtio.SectorSize)
		if d.ReadOnly {
			Puts(", read-only")
		}
		if d.Table.Kind != "" {
			Puts(", ")
			Puts(d.Table.Kind)
			Puts(":")
			for k := 0; k < d.Table.N; k++ {
				Puts(" ")
				PutBytes(nb[:d.NameOf(d.Table.Parts[k].Num, &nb)])
			}
		}
		InfoEnd()
	}
}

// parseRead is the partition parser's ReadSector: sector n of the disk
// being parsed, through the bounce page.
func parseRead(n uint64, b *[512]byte) bool {
	var pas [virtio.MaxSegments]uintptr
	pas[0] = bounce
	if BlockIO(parsing, false, n, &pas, 512) != 0 {
		return false
	}
	copy(b[:], mm.PageBytes(bounce)[:512])
	return true
}

// BlockIO reads (or writes) n bytes at sector of disk d (its whole
// device) into (from) the pages pas, each a whole page but the last,
// and returns 0 or the virtio status (BlkIOErr, BlkUnsupp) of a failure.
// Called under the kernel lock; it waits for the device.
func BlockIO(d *block.Disk, write bool, sector uint64, pas *[virtio.MaxSegments]uintptr, n uint32) uint8 {
	cpu.Progress.Add(1) // waiters on the kernel lock: this is work (spinlock.go)
	if d.Major == block.MMCMajor {
		return sdIO(write, sector, pas, n) // lends its queue a page at a time
	}
	sched.LendQueue() // threads queued here run elsewhere meanwhile
	b := &blks[d.Driver]
	if write {
		return b.Write(sector, pas, n)
	}
	return b.Read(sector, pas, n)
}

// cacheIO is bcache.IO: one page of disk k through BlockIO.
func cacheIO(k int, write bool, sector uint64, pa uintptr, n uint32) unix.Errno {
	var pas [virtio.MaxSegments]uintptr
	pas[0] = pa
	if BlockIO(&block.Disks[k], write, sector, &pas, n) != 0 {
		return unix.EIO
	}
	return 0
}

// cacheRun is bcache.ReadRun: n pages from sector of disk k, as many a
// request as the device takes (its seg_max).
func cacheRun(k int, sector uint64, pas *[bcache.MaxRun]uintptr, n int) unix.Errno {
	return cacheRunAs(k, false, sector, pas, n)
}

// cacheWriteRun is bcache.WriteRun: cacheRun's other direction.
func cacheWriteRun(k int, sector uint64, pas *[bcache.MaxRun]uintptr, n int) unix.Errno {
	return cacheRunAs(k, true, sector, pas, n)
}

func cacheRunAs(k int, write bool, sector uint64, pas *[bcache.MaxRun]uintptr, n int) unix.Errno {
	d := &block.Disks[k]
	per := min(BlockSegMax(d), virtio.MaxSegments)
	var seg [virtio.MaxSegments]uintptr
	for done := 0; done < n; {
		m := min(per, n-done)
		copy(seg[:m], pas[done:done+m])
		if BlockIO(d, write, sector+uint64(done)*(mm.PageSize/virtio.SectorSize), &seg, uint32(m)*mm.PageSize) != 0 {
			return unix.EIO
		}
		done += m
	}
	return 0
}

// cacheFlush is bcache.FlushIO: disk k's write cache to the medium.
func cacheFlush(k int) unix.Errno {
	if BlockFlush(&block.Disks[k]) != 0 {
		return unix.EIO
	}
	return 0
}

// fsSay is ext4fs.Say: a line in the kernel log, on the console too
// at a level shown there.
func fsSay(level uint8, line []byte) {
	if Log(level, "") {
		PutBytes(line)
		InfoEnd()
	}
}

// BlockFlush makes d's completed writes durable (VIRTIO_BLK_T_FLUSH).
func BlockFlush(d *block.Disk) uint8 {
	if d.Major == block.MMCMajor || !d.Flush {
		return 0 // the SD card is written through (no cache command is sent)
	}
	return blks[d.Driver].FlushCache()
}

// BlockSegMax is how many pages one BlockIO of d may carry.
func BlockSegMax(d *block.Disk) int {
	if d.Major == block.MMCMajor {
		return virtio.MaxSegments
	}
	return blks[d.Driver].SegMax()
}

// sdIO is BlockIO for the SD card, a page at a time by PIO.
func sdIO(write bool, sector uint64, pas *[virtio.MaxSegments]uintptr, n uint32) uint8 {
	for i := 0; n > 0; i++ {
		k := min(n, mm.PageSize)
		cpu.Progress.Add(1) // a page by PIO is slow under QEMU: work, for the lock's waiters
		sched.LendQueue()
		var e sdhci.Err
		if write {
			e = SDCard.Write(sector, k/sdhci.BlockSize, cpu.KVA(pas[i]))
		} else {
			e = SDCard.Read(sector, k/sdhci.BlockSize, cpu.KVA(pas[i]))
		}
		if e != sdhci.OK {
			return virtio.BlkIOErr
		}
		sector += uint64(k / sdhci.BlockSize)
		n -= k
	}
	return 0
}
