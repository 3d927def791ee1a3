package mm

// Kernel windows: memory the kernel sees as one contiguous range of
// virtual addresses, made of pages from anywhere in physical memory (what
// Linux's vmalloc gives). The direct map covers the first level-0 entry
// of the kernel's TTBR1 table (kernelmap.go); windows live in the
// entries after it, mapped page by page, so a buffer that code indexes
// as one slice (a TCP connection's rings) costs pages only while it is
// in use, not a fixed array in the kernel's .bss.

// WindowBase is the first kernel virtual address past the direct map,
// as an offset from the kernel half's base (cpu.KernBase).
const WindowBase = kernelMapSpan

// kernPTE builds a level-3 descriptor for a kernel data page: EL1 read
// and write, EL0 nothing, executable by no one.
func kernPTE(pa uintptr) uint64 {
	return uint64(pa)&descAddrMask | descPage | kernNormal | descPXN
}

// MapWindow maps n fresh zeroed pages at va, va+PageSize, ... in the
// kernel table at root (va page-aligned, past the direct map). It maps
// all of them or, out of memory, none, and says which.
func MapWindow(a *Alloc, root, va uintptr, n int) bool {
	pt := PageTable{Root: root}
	for i := 0; i < n; i++ {
		pa := a.Get()
		if pa == 0 {
			UnmapWindow(a, root, va, i)
			return false
		}
		e := pt.leaf(a, va+uintptr(i)*PageSize, true)
		if e == nil {
			a.Put(pa)
			UnmapWindow(a, root, va, i)
			return false
		}
		*e = kernPTE(pa)
	}
	// An invalid entry is never held in a TLB (ARM ARM D8.16.1), so a new
	// mapping needs no invalidation, only to be visible to every core's
	// walker before the address is handed out.
	publish()
	return true
}

// UnmapWindow unmaps the n pages at va, drops them from every core's
// TLB, and gives them back to a. The page tables under them stay, for
// the next mapping at the same place.
func UnmapWindow(a *Alloc, root, va uintptr, n int) {
	pt := PageTable{Root: root}
	for i := 0; i < n; i++ {
		p := va + uintptr(i)*PageSize
		e := pt.leaf(nil, p, false)
		if e == nil || *e&descValid == 0 {
			continue
		}
		pa := pteAddr(*e)
		*e = 0
		flushPage(p)
		a.Put(pa)
	}
}
