package mm

// PageTable is a 4-level stage-1 translation table for TTBR0 (user half,
// T0SZ=16): level 0 resolves VA[47:39], level 1 VA[38:30], level 2
// VA[29:21], level 3 VA[20:12] (ARM ARM D8.2.6).
type PageTable struct {
	Root uintptr // physical address of the level-0 table
}

// UserTop is the first address past the app's half (48-bit VA).
const UserTop = 1 << 48

func index(va uintptr, level int) uintptr {
	return (va >> (39 - 9*uint(level))) & 511
}

// Init allocates the root table.
func (pt *PageTable) Init(a *Alloc) bool {
	pt.Root = a.Get()
	return pt.Root != 0
}

// leaf returns the level-3 entry for va, allocating tables if create is
// set. It returns nil if a table is missing (and create is false) or
// memory is out.
func (pt *PageTable) leaf(a *Alloc, va uintptr, create bool) *uint64 {
	t := pt.leafTable(a, va, create)
	if t == nil {
		return nil
	}
	return &t[index(va, 3)]
}

// leafTable is leaf's table: the level-3 table that maps va, whose
// entries map the pages around it.
func (pt *PageTable) leafTable(a *Alloc, va uintptr, create bool) *[512]uint64 {
	table := pt.Root
	for level := 0; level < 3; level++ {
		e := &pageWords(table)[index(va, level)]
		if *e&descValid == 0 {
			if !create {
				return nil
			}
			next := a.Get()
			if next == 0 {
				return nil
			}
			// The new table's zeroes must be visible to every
			// core's walker before the descriptor that leads to it.
			publish()
			*e = uint64(next) | descTable
		}
		table = pteAddr(*e)
	}
	return pageWords(table)
}

// Lookup returns the physical page mapped at va and its descriptor.
func (pt *PageTable) Lookup(va uintptr) (pa uintptr, desc uint64, ok bool) {
	e := pt.leaf(nil, va, false)
	if e == nil || *e&descValid == 0 {
		return 0, 0, false
	}
	return pteAddr(*e), *e, true
}

// Map installs pa at va with protection p. It fails only when a table page
// cannot be allocated.
func (pt *PageTable) Map(a *Alloc, va, pa uintptr, p Prot) bool {
	e := pt.leaf(a, va, true)
	if e == nil {
		return false
	}
	*e = userPTE(pa, p)
	publish()
	return true
}

// Writable reports whether a descriptor lets EL0 write.
func Writable(desc uint64) bool { return desc&descAPRO == 0 }

// Visit calls fn for every mapped page in [start, end), skipping absent
// tables whole, so that unmapping a 64 MiB reservation nobody touched costs
// a few table reads. fn returns the new descriptor (0 to unmap). A changed
// entry is written, then its TLB entry is invalidated on every core (for
// the address space whose ID is *id: flushUserPage), and only then is
// after (if not nil) called with the old descriptor: a frame may be
// reused only once no core can still reach it through a stale TLB entry
// (ARM ARM D8.14.4 "break-before-make" ordering).
func (pt *PageTable) Visit(start, end uintptr, id *uint64, fn func(va uintptr, e uint64) uint64, after func(old uint64)) (changed bool) {
	return visit(pt.Root, 0, 0, start, end, id, fn, after)
}

func visit(table uintptr, level int, base, start, end uintptr, id *uint64, fn func(uintptr, uint64) uint64, after func(uint64)) bool {
	span := uintptr(1) << (39 - 9*uint(level))
	changed := false
	w := pageWords(table)
	for i := uintptr(0); i < 512; i++ {
		lo := base + i*span
		hi := lo + span
		if hi <= start || lo >= end {
			continue
		}
		e := w[i]
		if e == 0 || level < 3 && e&descValid == 0 {
			// Level 3 visits hidden (PROT_NONE) pages too: they still
			// own a frame.
			continue
		}
		if level < 3 {
			if visit(pteAddr(e), level+1, lo, start, end, id, fn, after) {
				changed = true
			}
			continue
		}
		ne := fn(lo, e)
		if ne != e {
			w[i] = ne
			flushUserPage(id, lo)
			if after != nil {
				after(e)
			}
			changed = true
		}
	}
	return changed
}
