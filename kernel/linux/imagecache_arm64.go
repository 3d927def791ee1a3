package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/mm"
)

// The program page cache: the pages of a program that came in the
// initramfs, copied once into page frames that every process running it
// maps, as Linux backs every mapping of a file with the same page-cache
// pages (mm/filemap.c; fs/binfmt_elf.c's elf_map maps each segment's
// file pages MAP_PRIVATE). Only segments the program cannot write (its
// text and read-only data) share them; a writable segment is copied
// into pages of the process's own, as before.
//
// The archive's bytes never change (kernel/fs copies a file out of it
// before its first write), so an entry, keyed by where the file's bytes
// are in the archive, is never stale and lives as long as the kernel.
// Each space that maps a frame counts a reference to it (mm.Alloc.Ref),
// as a fork's sharing does, and the cache holds one of its own: a
// shared frame is never writable in any space (mm.Space.pte), and a
// write to it, after an mprotect that allows one, copies it
// (copy-on-write) as a private file mapping's write does on Linux.
//
// Why: an exec of a 3 MiB Go program copied its 1.9 MiB of text and
// read-only data into new frames every time. Under QEMU's TCG it cost
// far more than the copy: QEMU keeps the code it translated by physical
// address, so a program in new frames had its whole start-up translated
// again, and when those frames were freed and zeroed for another use,
// QEMU had to throw the translations in them away first (a page fault's
// zeroing of 16 such frames took 0.6 ms). In frames that stay, every
// exec reuses the translations of the one before, as it does on Linux.

// imageCacheEntries bounds the programs cached at once; imageIndexPages
// bounds an entry's index pages (each holds the addresses of 512 frames:
// 2 MiB of the file), so a file past 64 MiB is not cached.
const (
	imageCacheEntries = 8
	imageIndexPages   = 32
	imageIndexSlots   = mm.PageSize / 8
)

// imageCacheShare: the cache takes at most this fraction (1/16) of
// memory, since its frames are never given back; a program that does
// not fit is copied per process, as before.
const imageCacheShare = 16

// imageEntry is one cached file.
type imageEntry struct {
	data  uintptr // the address of the file's first byte in the archive; 0: a free entry
	size  uintptr
	index [imageIndexPages]uintptr // physical index pages: frame addresses by page of the file
}

// imageCache is under the kernel lock (execve and /init's load).
var (
	imageCache      [imageCacheEntries]imageEntry
	imageCachePages uintptr // frames and index pages the cache holds
)

// imageEntryFor returns img's entry, taking a free one for a file not
// cached yet, or nil when the file is too big or the table is full.
func imageEntryFor(img []byte) *imageEntry {
	if len(img) == 0 || mm.PageUp(uintptr(len(img)))/mm.PageSize > imageIndexPages*imageIndexSlots {
		return nil
	}
	data := uintptr(unsafe.Pointer(&img[0]))
	var free *imageEntry
	for i := range imageCache {
		e := &imageCache[i]
		if e.data == data && e.size == uintptr(len(img)) {
			return e
		}
		if e.data == 0 && free == nil {
			free = e
		}
	}
	if free != nil {
		free.data, free.size = data, uintptr(len(img))
	}
	return free
}

// imageCacheGet is a zeroed page for the cache, within its share of
// memory; 0 past it or when memory is out.
func imageCacheGet() uintptr {
	if imageCachePages >= mm.Pages.Total()/imageCacheShare {
		return 0
	}
	pa := mm.Pages.Get()
	if pa != 0 {
		imageCachePages++
	}
	return pa
}

// frame returns the frame holding the file's page pg (img is the file),
// filling it on first use: the file's bytes, zeroes past its end (as a
// page-cache page past EOF). 0 when the cache cannot take it.
func (e *imageEntry) frame(img []byte, pg uintptr) uintptr {
	slot := &e.index[pg/imageIndexSlots]
	if *slot == 0 {
		if *slot = imageCacheGet(); *slot == 0 {
			return 0
		}
	}
	f := &(*[imageIndexSlots]uintptr)(unsafe.Pointer(mm.PageBytes(*slot)))[pg%imageIndexSlots]
	if *f == 0 {
		pa := imageCacheGet()
		if pa == 0 {
			return 0
		}
		off := pg * mm.PageSize
		copy(mm.PageBytes(pa)[:], img[off:min(off+mm.PageSize, uintptr(len(img)))])
		*f = pa
	}
	return *f
}
