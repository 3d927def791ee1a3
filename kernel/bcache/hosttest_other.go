//go:build !arm64

package bcache

import (
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Reset empties the cache, as it is at boot (its pages belonged to the
// host test's earlier memory).
func Reset() {
	bufs = [NBuf]buf{}
	heads = [hashSize]int32{}
	clock = 0
	Stats.Hits, Stats.Misses, Stats.Errors, Stats.Writes = 0, 0, 0, 0
}

// HostDisk makes disk 0 of the host tests the image b: IO, ReadRun and
// WriteRun read and write its bytes (a write to a readOnly one, or past
// its end, is EIO), as a device would; Reset first.
func HostDisk(b []byte, readOnly bool) {
	Reset()
	IO = func(k int, write bool, sector uint64, pa uintptr, n uint32) unix.Errno {
		if write && readOnly || k != 0 || sector*SectorSize+uint64(n) > uint64(len(b)) {
			return unix.EIO
		}
		if write {
			copy(b[sector*SectorSize:], mm.PageBytes(pa)[:n])
		} else {
			copy(mm.PageBytes(pa)[:n], b[sector*SectorSize:])
		}
		return 0
	}
	ReadRun = func(k int, sector uint64, pas *[MaxRun]uintptr, n int) unix.Errno {
		return hostRun(k, false, sector, pas, n)
	}
	WriteRun = func(k int, sector uint64, pas *[MaxRun]uintptr, n int) unix.Errno {
		return hostRun(k, true, sector, pas, n)
	}
}

// hostRun is a run of whole pages through IO, a page at a time.
func hostRun(k int, write bool, sector uint64, pas *[MaxRun]uintptr, n int) unix.Errno {
	for j := 0; j < n; j++ {
		if e := IO(k, write, sector+uint64(j)*(mm.PageSize/SectorSize), pas[j], mm.PageSize); e != 0 {
			return e
		}
	}
	return 0
}
