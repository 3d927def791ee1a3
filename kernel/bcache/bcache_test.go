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
