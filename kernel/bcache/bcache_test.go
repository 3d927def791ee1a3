//go:build !arm64

package bcache

import (
	"testing"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"

	"golang.org/x/sys/unix"
)

// A disk whose sector n holds n in every byte; reads are counted, and
// sector 13 fails.
func fake(reads *int) {
	IO = func(disk int, write bool, sector uint64, pa uintptr, n uint32) unix.Errno {
		if sector == 13 {
			return unix.EIO
		}
		*reads++
		b := mm.PageBytes(pa)[:n]
		for i := range b {
			b[i] = byte(sector + uint64(i)/SectorSize + uint64(disk)*100)
		}
		return 0
	}
}

func TestCache(t *testing.T) {
	usermem.HostReset(NBuf+64, 1)
	Reset()
	reads := 0
	fake(&reads)
	b, e := Get(0, 8, 4096)
	if e != 0 || len(b) != 4096 || b[0] != 8 || b[4095] != 15 {
		t.Fatalf("Get: %v %d %d", e, len(b), b[0])
	}
	if Get(0, 8, 4096); reads != 1 || Stats.Hits != 1 {
		t.Errorf("a second Get read the disk again: %d reads, %d hits", reads, Stats.Hits)
	}
	if b, _ := Get(1, 8, 4096); b[0] != 108 || reads != 2 {
		t.Errorf("another disk's sector 8: %d, %d reads", b[0], reads)
	}
	if _, e := Get(0, 13, 1024); e != unix.EIO {
		t.Errorf("a failed read: %v, want EIO", e)
	}
	if _, e := Get(0, 13, 1024); e != unix.EIO || Cached() != 2 {
		t.Errorf("a failed read was cached: %v, %d buffers", e, Cached())
	}
	// Fill the cache past its size: the least recently used goes, and
	// sector 8 of disk 0, used again meanwhile, stays.
	for k := uint64(0); k < NBuf; k++ {
		Get(2, k*8, 4096)
		if k == NBuf/2 {
			Get(0, 8, 4096)
		}
	}
	before := reads
	if Get(0, 8, 4096); reads != before {
		t.Error("the recently used buffer was evicted")
	}
	if Get(1, 8, 4096); reads != before+1 {
		t.Error("the least recently used buffer was not evicted")
	}
	// Forget drops what a write overlapped, and only that.
	Forget(0, 10, 1)
	if Get(0, 8, 4096); reads != before+2 {
		t.Error("Forget kept a buffer its sectors overlap")
	}
	Forget(0, 0, 0)
	Forget(2, 0, 0)
	if n := Cached(); n != 1 {
		t.Errorf("%d buffers after forgetting disks 0 and 2, want disk 1's one", n)
	}
}

// Write goes to the disk through the buffer: the next Get returns the
// bytes written without a read, a buffer of another size over the same
// sectors is dropped (its bytes are stale), a failed write is not kept,
// and Flush reaches FlushIO.
func TestWrite(t *testing.T) {
	usermem.HostReset(NBuf+64, 1)
	Reset()
	reads := 0
	fake(&reads)
	disk := map[uint64][]byte{}
	read := IO
	IO = func(d int, write bool, sector uint64, pa uintptr, n uint32) unix.Errno {
		if !write {
			return read(d, write, sector, pa, n)
		}
		if sector == 40 {
			return unix.EIO
		}
		disk[sector] = append([]byte(nil), mm.PageBytes(pa)[:n]...)
		return 0
	}
	if b, _ := Get(0, 10, 1024); b[0] != 10 {
		t.Fatalf("Get: %d", b[0])
	}
	data := make([]byte, 4096)
	for i := range data {
		data[i] = 0xA5
	}
	if e := Write(0, 8, data); e != 0 || len(disk[8]) != 4096 || disk[8][0] != 0xA5 {
		t.Fatalf("Write: %v, disk holds %d bytes", e, len(disk[8]))
	}
	before := reads
	if b, _ := Get(0, 8, 4096); b[100] != 0xA5 || reads != before {
		t.Errorf("Get after Write: %#x, %d reads", b[100], reads-before)
	}
	// The 1 KiB buffer at sector 10 lies inside the write: dropped, so
	// the next Get reads the disk again.
	if Get(0, 10, 1024); reads != before+1 {
		t.Errorf("a stale overlapping buffer was kept (%d reads)", reads-before)
	}
	n := Cached()
	if e := Write(0, 40, data[:512]); e != unix.EIO || Cached() != n {
		t.Errorf("a failed write: %v, %d buffers (was %d)", e, Cached(), n)
	}
	if Stats.Writes != 1 {
		t.Errorf("Stats.Writes = %d, want 1", Stats.Writes)
	}
	flushed := -1
	FlushIO = func(d int) unix.Errno { flushed = d; return 0 }
	defer func() { FlushIO = nil }()
	if e := Flush(3); e != 0 || flushed != 3 {
		t.Errorf("Flush: %v, FlushIO saw disk %d", e, flushed)
	}
}
