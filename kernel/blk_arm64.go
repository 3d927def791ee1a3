package kernel

import (
	"math/bits"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/gic"
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
// their partition tables read at boot. I/O goes through BlockIO under
// the kernel lock, the caller polling the device for its answer, or,
// for a read the page cache lets its caller sleep on, BlockStart: the
// request stays in flight (several at once, up to the device's slots)
// and completes in the device's interrupt (docs/ARCHITECTURE.md,
// "Storage").

var (
	blks  [block.MaxDisks]virtio.Blk
	nblks int
	// bounce is a page the partition parser's sectors pass through.
	bounce uintptr
	// parsing is the disk Parse reads (a function value's argument can
	// be no pointer to a fixed table entry the hook does not know).
	parsing *block.Disk
	// blkIRQ is each device's GIC INTID (0: none, so nothing goes in
	// flight on it), blkDisk its index in block.Disks.
	blkIRQ  [block.MaxDisks]uint32
	blkDisk [block.MaxDisks]int
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
	bcache.StartRun, block.Poll = cacheStartRun, blkPoll
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
		if !ok {
			logLine("block: too many disks; the rest are left out")
			return
		}
		blkDisk[nblks] = d.Index()
		if irq := spiOf(n); irq != 0 {
			blkIRQ[nblks] = irq
			gic.Enable(ThisCPU().ID, irq)
		}
		nblks++
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
	if !mm.HoldsSpace() { // a fault's: LendQueue's state locks rank before it
		sched.LendQueue() // threads queued here run elsewhere meanwhile
	}
	b := &blks[d.Driver]
	var st uint8
	if write {
		st = b.Write(sector, pas, n)
	} else {
		st = b.Read(sector, pas, n)
	}
	blkCompleted(d.Driver) // reads in flight the polling answered
	return st
}

// BlockStart submits a read of n bytes at sector of disk d into the
// pages pas, to complete in the device's interrupt (block.Complete
// then wakes whoever sleeps on it): the request, or -1 when it cannot
// be in flight (the SD card is read by PIO; a device without an
// interrupt; every request or slot taken), and the caller reads with
// BlockIO instead.
func BlockStart(d *block.Disk, sector uint64, pas *[virtio.MaxSegments]uintptr, n uint32) int32 {
	if d.Major == block.MMCMajor || blkIRQ[d.Driver] == 0 {
		return -1
	}
	r := block.NewRequest(d.Index())
	if r < 0 {
		return -1
	}
	slot, ok := blks[d.Driver].Submit(false, sector, pas, n)
	if !ok {
		block.End(r)
		return -1
	}
	block.Requests[r].Slot = slot
	return r
}

// blkCompleted hands the reads in flight that virtio-blk device k
// answered (in its interrupt, or to a caller polling it) to their
// requests, and wakes their sleepers unless this core holds an address
// space's lock (a fault reading a page): the device's interrupt, which
// the polling leaves unacknowledged, wakes them once it lets go.
func blkCompleted(k int) {
	blkTake(k)
	if !mm.HoldsSpace() {
		block.Wake()
	}
}

// blkTake is blkCompleted without the wake-up.
func blkTake(k int) {
	b := &blks[k]
	for m := b.TakeDone(); m != 0; m &= m - 1 {
		slot := bits.TrailingZeros32(m)
		for i := range block.Requests {
			q := &block.Requests[i]
			if !q.Used || q.Done || q.Disk != blkDisk[k] || q.Slot != slot {
				continue
			}
			if st, done := b.Status(slot); done {
				block.Complete(int32(i), st != virtio.BlkOK)
			}
			break
		}
	}
}

// blkInterrupt handles a virtio-blk device's interrupt if id is one's
// (kernel lock held): its answers complete their requests.
func blkInterrupt(id uint32) bool {
	hit := false
	for k := 0; k < nblks; k++ {
		if blkIRQ[k] == id {
			blks[k].Interrupt()
			blkTake(k)
			hit = true
		}
	}
	if hit {
		block.Wake() // those a poller took too
	}
	return hit
}

// blkPoll is block.Poll: request r's device polled until it answers r,
// for a caller that must not sleep (the answer comes as the interrupt
// would bring it).
func blkPoll(r int32) {
	q := &block.Requests[r]
	k := block.Disks[q.Disk].Driver
	for !q.Done {
		cpu.Progress.Add(1) // waiters on the kernel lock: this is work
		blks[k].Reap()
		blkCompleted(k)
		if !q.Done {
			cpu.WFE()
		}
	}
}

// cacheStartRun is bcache.StartRun: n pages from sector of disk k in one
// request in flight, or -1 (bcache.StartRun says when).
func cacheStartRun(k int, sector uint64, pas *[bcache.MaxRun]uintptr, n int) int32 {
	d := &block.Disks[k]
	if n > BlockSegMax(d) {
		return -1
	}
	var seg [virtio.MaxSegments]uintptr
	copy(seg[:n], pas[:n])
	return BlockStart(d, sector, &seg, uint32(n)*mm.PageSize)
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
	st := blks[d.Driver].FlushCache()
	blkCompleted(d.Driver)
	return st
}

// BlockStats is the virtio-blk requests made on every device, and the
// most one device held in flight at once (gometal.stats=1).
func BlockStats() (requests, most uint64) {
	for k := 0; k < nblks; k++ {
		requests += blks[k].Requests
		most = max(most, uint64(blks[k].MaxInFlight))
	}
	return requests, most
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
