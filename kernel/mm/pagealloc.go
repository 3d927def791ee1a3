package mm

// The physical page allocator: a bump pointer over the usable RAM ranges
// (so boot touches no page it does not hand out) plus a free list threaded
// through freed pages (each free page's first word holds the next one's
// physical address). All pages handed out are zeroed.

const maxRanges = 16

type physRange struct{ next, end uintptr }

// Alloc is the physical page allocator.
type Alloc struct {
	ranges   [maxRanges]physRange
	nranges  int
	cur      int
	freeList uintptr // physical address of the first free page, 0 = none
	free     uintptr // pages on the free list
	total    uintptr
	used     uintptr
}

// Pages is the kernel's allocator.
var Pages Alloc

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
	*pageWords(pa) = [512]uint64{}
	return pa
}

// Put returns a page.
func (a *Alloc) Put(pa uintptr) {
	pageWords(pa)[0] = uint64(a.freeList)
	a.freeList = pa
	a.free++
	a.used--
}

// Used and Total count pages.
func (a *Alloc) Used() uintptr  { return a.used }
func (a *Alloc) Total() uintptr { return a.total }
