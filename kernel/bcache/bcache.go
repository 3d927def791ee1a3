// Package bcache owns the buffer cache: blocks of the disks held in
// memory, each a page, found by disk and position (Linux's buffer_head
// and its hash, fs/buffer.c). The backed file systems read their
// metadata through it (superblocks, group descriptors, inode tables,
// extent and directory blocks); a file's data goes to the page cache
// instead (kernel/fs). The least recently used buffer is the one a miss
// takes. Reads go through IO, which the kernel core sets at boot to its
// block I/O (kernel/blk_arm64.go); everything runs under the kernel
// lock. Builds on the host: go test ./kernel/bcache.
package bcache

import (
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// NBuf is how many blocks the cache holds (2 MiB of 4 KiB pages): the
// metadata a path walk or a directory listing of a big tree keeps
// reading stays in memory.
const NBuf = 512

// SectorSize is the unit of a disk position (the block layer's).
const SectorSize = 512

// IO reads (or writes) n bytes at sector of disk (its index in
// block.Disks) into (from) page pa: 0, or the error (EIO).
var IO func(disk int, write bool, sector uint64, pa uintptr, n uint32) unix.Errno

// FlushIO makes disk's completed writes durable (a cache flush, where
// the device has a write cache): 0, or the error (EIO).
var FlushIO func(disk int) unix.Errno

// MaxRun is the most pages ReadRun reads at once.
const MaxRun = 32

// ReadRun reads n whole pages from sector of disk into pages pas[:n] (a
// file system's run of data, straight into the page cache; the kernel
// splits it into as few requests as the device takes): 0 or EIO.
var ReadRun func(disk int, sector uint64, pas *[MaxRun]uintptr, n int) unix.Errno

// StartRun submits a read of n whole pages from sector of disk into
// pages pas[:n] as one request that completes by interrupt, and returns
// it (an index into block.Requests; kernel/fs sleeps on it), or -1 when
// it cannot go in flight (a disk read by PIO, every slot busy, more
// pages than one request carries): the caller reads with ReadRun then.
var StartRun func(disk int, sector uint64, pas *[MaxRun]uintptr, n int) int32

// WriteRun writes n whole pages from pages pas[:n] to sector of disk
// (a file's data, straight from the page cache): 0 or EIO. Use
// WriteData, which keeps the cache true.
var WriteRun func(disk int, sector uint64, pas *[MaxRun]uintptr, n int) unix.Errno

// WriteData is WriteRun with the buffers holding any of those sectors
// dropped first, so that no later Get answers the old bytes.
func WriteData(disk int, sector uint64, pas *[MaxRun]uintptr, n int) unix.Errno {
	if WriteRun == nil {
		return unix.EIO
	}
	Forget(disk, sector, uint64(n)*mm.PageSize/SectorSize)
	e := WriteRun(disk, sector, pas, n)
	if e == 0 {
		Stats.Writes += uint64(n)
	} else {
		Stats.Errors++
	}
	return e
}

// A buf is one block in memory.
type buf struct {
	used   bool
	disk   int
	sector uint64 // the block's first sector on the whole disk
	size   uint32
	page   uintptr
	stamp  uint64 // when last used: the LRU order
	next   int32  // 1 + the next in its hash chain, 0 at the end
}

const hashSize = 1024

var (
	bufs  [NBuf]buf
	heads [hashSize]int32 // 1 + the first buf of each chain; 0: empty
	clock uint64
	// Stats counts hits and misses (/proc/gometal-stats' "bcache").
	Stats struct{ Hits, Misses, Errors, Writes uint64 }
)

func hash(disk int, sector uint64) int {
	return int(((sector+uint64(disk)<<56)*0x9e3779b97f4a7c15)>>54) % hashSize
}

// Get returns the size bytes at sector of disk (size at most a page),
// read from the disk unless they are in memory: valid until NBuf other
// blocks have been got. EIO when the disk cannot read them.
func Get(disk int, sector uint64, size uint32) ([]byte, unix.Errno) {
	clock++
	h := hash(disk, sector)
	for k := heads[h]; k != 0; k = bufs[k-1].next {
		b := &bufs[k-1]
		if b.disk == disk && b.sector == sector && b.size == size {
			b.stamp = clock
			Stats.Hits++
			return mm.PageBytes(b.page)[:size], 0
		}
	}
	Stats.Misses++
	k := victim()
	if k < 0 {
		return nil, unix.ENOMEM
	}
	b := &bufs[k]
	if IO == nil {
		return nil, unix.EIO
	}
	if e := IO(disk, false, sector, b.page, size); e != 0 {
		Stats.Errors++
		return nil, e // b stays free: a failed read is not cached
	}
	b.used, b.disk, b.sector, b.size, b.stamp = true, disk, sector, size, clock
	b.next = heads[h]
	heads[h] = int32(k) + 1
	return mm.PageBytes(b.page)[:size], 0
}

// Write writes data (at most a page) to the disk at sector, through
// the cache: the buffer holding those bytes (taken if none does) gets
// them and goes to the disk, so that the next Get reads what the disk
// holds; a failed write drops the buffer rather than keep bytes the disk
// may not have. Buffers of another size that overlap it are dropped.
// Written through, not back: durable once Flush returns.
func Write(disk int, sector uint64, data []byte) unix.Errno {
	size := uint32(len(data))
	if size == 0 || size > mm.PageSize || IO == nil {
		return unix.EINVAL
	}
	clock++
	k := -1
	for j := range bufs {
		b := &bufs[j]
		if !b.used || b.disk != disk || !(b.sector < sector+uint64(size)/SectorSize && sector < b.sector+uint64(b.size)/SectorSize) {
			continue
		}
		if b.sector == sector && b.size == size {
			k = j
			continue
		}
		unhash(j)
	}
	if k < 0 {
		if k = victim(); k < 0 {
			return unix.ENOMEM
		}
		b := &bufs[k]
		b.used, b.disk, b.sector, b.size = true, disk, sector, size
		h := hash(disk, sector)
		b.next = heads[h]
		heads[h] = int32(k) + 1
	}
	b := &bufs[k]
	b.stamp = clock
	copy(mm.PageBytes(b.page)[:size], data)
	if e := IO(disk, true, sector, b.page, size); e != 0 {
		Stats.Errors++
		unhash(k)
		return e
	}
	Stats.Writes++
	return 0
}

// Flush makes every write to disk so far durable (FlushIO).
func Flush(disk int) unix.Errno {
	if FlushIO == nil {
		return 0
	}
	return FlushIO(disk)
}

// victim frees the least recently used buffer (or takes a free one with
// a page) and returns it, -1 when no page can be had.
func victim() int {
	best := -1
	for k := range bufs {
		b := &bufs[k]
		if !b.used {
			if b.page == 0 {
				if b.page = mm.Pages.Get(); b.page == 0 {
					continue
				}
			}
			return k
		}
		if best < 0 || b.stamp < bufs[best].stamp {
			best = k
		}
	}
	if best >= 0 {
		unhash(best)
	}
	return best
}

// unhash takes buffer k out of its chain and frees it (keeping its page).
func unhash(k int) {
	b := &bufs[k]
	p := &heads[hash(b.disk, b.sector)]
	for *p != 0 && int(*p-1) != k {
		p = &bufs[*p-1].next
	}
	if *p != 0 {
		*p = b.next
	}
	b.used = false
}

// Forget drops the buffers of disk that overlap sectors [sector,
// sector+count) (a write through the block device file, which does not
// go through the cache), or every buffer of the disk when count is 0
// (an instance on it went).
func Forget(disk int, sector, count uint64) {
	for k := range bufs {
		b := &bufs[k]
		if !b.used || b.disk != disk {
			continue
		}
		if count == 0 || b.sector < sector+count && sector < b.sector+uint64(b.size)/SectorSize {
			unhash(k)
		}
	}
}

// Cached counts the buffers in use.
func Cached() int {
	n := 0
	for k := range bufs {
		if bufs[k].used {
			n++
		}
	}
	return n
}
