package mm

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/sched"
)

// The physical page allocator: a bump pointer over the usable RAM ranges
// (so boot touches no page it does not hand out) plus a free list threaded
// through freed pages (each free page's first word holds the next one's
// physical address). All pages handed out are zeroed.

const maxRanges = 16

type physRange struct{ next, end uintptr }

// Alloc is the physical page allocator. Its lock (mu) makes it safe to
// call from any core, with or without the kernel lock: a page fault is
// served under its address space's lock alone (space.go).
type Alloc struct {
	mu       cpu.Spinlock
	ranges   [maxRanges]physRange
	nranges  int
	cur      int
	freeList uintptr // physical address of the first free page, 0 = none
	free     uintptr // pages on the free list
	total    uintptr
	used     uintptr

	// refs counts, per frame, the address spaces that map it (InitRefs):
	// fork shares a frame between parent and child until one of them
	// writes (copy-on-write), as Linux counts a page's users in its
	// struct page. refs is the kernel address of a uint16 per frame
	// from refBase up, refN of them; 0 until InitRefs.
	refs    uintptr
	refBase uintptr
	refN    uintptr
}

// MaxFrameRefs bounds a frame's count: each address space maps a frame
// at most once, so MaxSpaces bounds it (a uint16 holds far more).
const MaxFrameRefs = 1<<16 - 1

// Pages is the kernel's allocator.
var Pages = Alloc{mu: cpu.Spinlock{Name: "pages", Rank: sched.RankPages}}

func (a *Alloc) lock()   { a.mu.Lock(sched.SelfID()) }
func (a *Alloc) unlock() { a.mu.Unlock() }

// AddRange makes [start, end) available. Unaligned edges are dropped.
func (a *Alloc) AddRange(start, end uintptr) {
	start, end = PageUp(start), PageDown(end)
	if end <= start || a.nranges == maxRanges {
		return
	}
	a.ranges[a.nranges] = physRange{start, end}
	a.nranges++
	a.total += (end - start) / PageSize
}

// Get returns a zeroed page's physical address, or 0 when memory is out.
func (a *Alloc) Get() uintptr {
	pa := a.GetRaw()
	if pa != 0 {
		// Zeroed outside the lock: the page is the caller's alone now.
		*pageWords(pa) = [512]uint64{}
	}
	return pa
}

// GetRaw is Get without the zeroing: for a page whose every byte the
// caller writes before anyone else sees it (a file page a store's read
// fills: kernel/fs's storedPage). The page may hold what it held before.
func (a *Alloc) GetRaw() uintptr {
	a.lock()
	pa := a.take()
	a.unlock()
	return pa
}

// take is Get's part under the lock: a page, counted once.
func (a *Alloc) take() uintptr {
	var pa uintptr
	if a.freeList != 0 {
		pa = a.freeList
		a.freeList = uintptr(pageWords(pa)[0])
		a.free--
	} else {
		for a.cur < a.nranges && a.ranges[a.cur].next >= a.ranges[a.cur].end {
			a.cur++
		}
		if a.cur == a.nranges {
			return 0
		}
		pa = a.ranges[a.cur].next
		a.ranges[a.cur].next += PageSize
	}
	a.used++
	if r := a.ref(pa); r != nil {
		*r = 1
	}
	return pa
}

// Put returns a page.
func (a *Alloc) Put(pa uintptr) {
	a.lock()
	a.put(pa)
	a.unlock()
}

// put is Put under the lock.
func (a *Alloc) put(pa uintptr) {
	if r := a.ref(pa); r != nil {
		*r = 0
	}
	pageWords(pa)[0] = uint64(a.freeList)
	a.freeList = pa
	a.free++
	a.used--
}

// Used and Total count pages.
func (a *Alloc) Used() uintptr  { return a.used }
func (a *Alloc) Total() uintptr { return a.total }

// InitRefs sets aside the frames' reference counts, a uint16 for every
// frame from the lowest range's start to the highest's end, in pages
// taken whole from one range (so the table is contiguous in the direct
// map). Called once, after every AddRange and before the first Get of a
// frame an address space will map; false when no range has the room.
func (a *Alloc) InitRefs() bool {
	if a.nranges == 0 {
		return false
	}
	lo, hi := a.ranges[0].next, a.ranges[0].end
	for i := 1; i < a.nranges; i++ {
		lo = min(lo, a.ranges[i].next)
		hi = max(hi, a.ranges[i].end)
	}
	n := (hi - lo) / PageSize
	size := PageUp(n * 2)
	for i := a.nranges - 1; i >= 0; i-- {
		r := &a.ranges[i]
		if r.end-r.next < size {
			continue
		}
		table := r.next
		r.next += size
		a.used += size / PageSize
		for p := table; p < table+size; p += PageSize {
			*pageWords(p) = [512]uint64{}
		}
		a.refs, a.refBase, a.refN = table+PhysOffset, lo, n
		return true
	}
	return false
}

// ref is pa's count, or nil before InitRefs (and for a frame outside
// the table, which none handed out is).
func (a *Alloc) ref(pa uintptr) *uint16 { return a.counts().of(pa) }

// refTable is where the frames' counts are (Alloc.refs, refBase, refN):
// the loops over a table's entries read it once, not per entry.
type refTable struct{ refs, base, n uintptr }

func (a *Alloc) counts() refTable { return refTable{a.refs, a.refBase, a.refN} }

// of is pa's count in t, or nil (ref). A frame below the table's base
// wraps around to an index past its end.
//
//go:nocheckptr
func (t refTable) of(pa uintptr) *uint16 {
	i := (pa - t.base) / PageSize
	if t.refs == 0 || i >= t.n {
		return nil
	}
	return (*uint16)(addrPtr(t.refs + 2*i))
}

// Refs is how many address spaces map the frame at pa (1 for a frame
// just handed out by Get; 1 always before InitRefs).
func (a *Alloc) Refs(pa uintptr) int {
	if r := a.ref(pa); r != nil {
		return int(*r)
	}
	return 1
}

// Ref adds an address space's use of the frame at pa (fork sharing
// it); false when the count is full.
func (a *Alloc) Ref(pa uintptr) bool {
	a.lock()
	r := a.ref(pa)
	ok := r != nil && *r < MaxFrameRefs
	if ok {
		*r++
	}
	a.unlock()
	return ok
}

// Unref drops an address space's use of the frame at pa; the last one
// gives the frame back (Put). It reports whether it did.
func (a *Alloc) Unref(pa uintptr) bool {
	a.lock()
	last := a.unref(pa)
	a.unlock()
	return last
}

// unref is Unref under the lock.
func (a *Alloc) unref(pa uintptr) bool {
	if r := a.ref(pa); r != nil && *r > 1 {
		*r--
		return false
	}
	a.put(pa)
	return true
}

// unrefEntries drops a use of the frame of every entry in use of the
// level-3 table t in [i, j) (Unref, under one hold of the lock for the
// lot). The entries stay: the table is about to be freed (teardown).
// unref's test is written out here so that the common case (a frame
// still shared) makes no call: under QEMU's TCG a call's return is a
// lookup, and a 64 MiB child's teardown made 16384.
func (a *Alloc) unrefEntries(t *[512]uint64, i, j uintptr) {
	a.lock()
	counts := a.counts()
	for _, e := range t[i:j] {
		if e == 0 || e&descSpecial != 0 {
			continue // a device's frame is no one's to free
		}
		if r := counts.of(pteAddr(e)); r != nil && *r > 1 {
			*r--
			continue
		}
		a.put(pteAddr(e))
	}
	a.unlock()
}

// shareEntries is fork's sharing of the frames of the level-3 table st
// in [i, j), under one hold of the lock: each entry in use (a hidden
// page's too) has its frame counted once more (Ref), becomes read-only
// and is copied to the same index of dt. It returns how many it shared,
// and false if a count was full, where it stopped.
func (a *Alloc) shareEntries(st, dt *[512]uint64, i, j uintptr) (int, bool) {
	src, dst := st[i:j], dt[i:j]
	dst = dst[:len(src)] // one length: no bounds checks in the loop
	n, ok := 0, true
	a.lock()
	counts := a.counts()
	for k, e := range src {
		if e == 0 {
			continue
		}
		if e&descSpecial != 0 {
			// A device's memory, shared and never copied (Linux's
			// copy_pte_range copies a VM_PFNMAP's entries as they are).
			dst[k] = e
			continue
		}
		r := counts.of(pteAddr(e))
		if r == nil || *r == MaxFrameRefs {
			ok = false
			break
		}
		*r++
		e |= descAPRO
		src[k], dst[k] = e, e
		n++
	}
	a.unlock()
	return n, ok
}
