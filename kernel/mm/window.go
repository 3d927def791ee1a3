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

// MapWindowFrame maps the frame at pa (a page-cache frame, whose use
// the caller counted: Alloc.Ref) at va in the kernel table at root, to
// be read as part of a window (execve's program image). False when no
// page-table page is to be had.
func MapWindowFrame(a *Alloc, root, va, pa uintptr) bool {
	pt := PageTable{Root: root}
	e := pt.leaf(a, va, true)
	if e == nil {
		return false
	}
	*e = kernPTE(pa)
	return true
}

// PublishWindow makes the entries MapWindowFrame wrote visible to every
// core's walker (an invalid entry is never in a TLB: no invalidation).
func PublishWindow() { publish() }

// windowFlushAll is how many pages an unmap drops one at a time; past
// it one invalidation of the whole TLB is cheaper (Linux's
// flush_tlb_kernel_range does the same past MAX_DVM_OPS pages). Under
// QEMU's TCG each broadcast TLBI is work on every vCPU: a 20 MiB program
// image was 5,000 of them an execve.
const windowFlushAll = 64

// UnmapWindowFrames unmaps the n frames at va that MapWindowFrame
// mapped and drops the counted use of each (Alloc.Unref), only once no
// core's TLB can reach it through the window: the entries are first
// made invalid with their addresses kept (the architecture ignores
// every other bit of an invalid descriptor, ARM ARM D8.3), then
// invalidated in the TLBs, then read back and cleared.
func UnmapWindowFrames(a *Alloc, root, va uintptr, n int) {
	pt := PageTable{Root: root}
	all := n > windowFlushAll
	for i := 0; i < n; i++ {
		p := va + uintptr(i)*PageSize
		if e := pt.leaf(nil, p, false); e != nil && *e&descValid != 0 {
			*e &^= descValid
			if !all {
				flushPage(p)
			}
		}
	}
	if all {
		flushKernel()
	}
	for i := 0; i < n; i++ {
		if e := pt.leaf(nil, va+uintptr(i)*PageSize, false); e != nil && *e != 0 {
			a.Unref(pteAddr(*e))
			*e = 0
		}
	}
}
