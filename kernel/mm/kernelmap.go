package mm

// The kernel's TTBR1 map: every physical address PA at KernBase+PA, RAM as
// Normal write-back memory, everything else as Device-nGnRnE (so MMIO works
// wherever the DTB puts it). 1 GiB blocks where a whole GiB is one kind,
// 2 MiB blocks elsewhere (ARM ARM D8.3.1: level-1 and level-2 blocks).

const (
	gib  = 1 << 30
	mib2 = 2 << 20

	kernNormal = descAF | descSHIn | attrNormal | descUXN
	kernDevice = descAF | attrDevice | descPXN | descUXN
	kernNC     = descAF | descSHIn | attrNormalNC | descPXN | descUXN

	// kernelMapSpan is how much physical address space is mapped: one
	// level-0 entry's worth (512 GiB), more than any board here has.
	kernelMapSpan = 512 * gib
)

// Range is a physical address range [Start, End).
type Range struct{ Start, End uintptr }

func coverage(rs []Range, lo, hi uintptr) (full, any bool) {
	covered := uintptr(0)
	for _, r := range rs {
		s, e := r.Start, r.End
		if s < lo {
			s = lo
		}
		if e > hi {
			e = hi
		}
		if e > s {
			covered += e - s
		}
	}
	return covered == hi-lo, covered != 0
}

// BuildKernelMap returns the physical address of a new level-0 table for
// TTBR1 that maps [0, 512 GiB) with the given RAM ranges as Normal memory.
// rs must not overlap.
func BuildKernelMap(a *Alloc, rs []Range) uintptr {
	l0 := a.Get()
	l1 := a.Get()
	if l0 == 0 || l1 == 0 {
		return 0
	}
	pageWords(l0)[0] = uint64(l1) | descTable
	w1 := pageWords(l1)
	for i := uintptr(0); i < 512; i++ {
		lo := i * gib
		full, any := coverage(rs, lo, lo+gib)
		switch {
		case full:
			w1[i] = uint64(lo) | descBlock | kernNormal
		case !any:
			w1[i] = uint64(lo) | descBlock | kernDevice
		default:
			l2 := a.Get()
			if l2 == 0 {
				return 0
			}
			w2 := pageWords(l2)
			for j := uintptr(0); j < 512; j++ {
				b := lo + j*mib2
				if f, _ := coverage(rs, b, b+mib2); f {
					w2[j] = uint64(b) | descBlock | kernNormal
				} else {
					w2[j] = uint64(b) | descBlock | kernDevice
				}
			}
			w1[i] = uint64(l2) | descTable
		}
	}
	return l0
}

// MapNonCacheable makes [pa, pa+size) of the kernel's map at root
// Normal non-cacheable, 2 MiB block by block: for memory outside RAM
// that another bus master reads (the Pi's framebuffer), whose stores
// are then posted and combined instead of Device memory's one by one,
// and which takes unaligned accesses. A GiB mapped as one Device block
// is split into 2 MiB ones first. Blocks of RAM are left as they are
// (two memory types for one frame would be a mismatched alias, ARM ARM
// B2.8). The entries change break-before-make (D8.14.1): each is
// invalid, then flush runs (a broadcast TLB invalidation), then the new
// one is written, and flush runs again. false when a split needs a
// page and none is free.
func MapNonCacheable(a *Alloc, root, pa, size uintptr, flush func()) bool {
	w1 := pageWords(uintptr(pageWords(root)[0] & descAddrMask))
	lo, hi := pa&^(mib2-1), (pa+size+mib2-1)&^(mib2-1)
	type entry struct {
		e *uint64
		b uintptr
	}
	var changed [8]entry // at most 16 MiB of framebuffer
	n := 0
	for b := lo; b < hi && n < len(changed); b += mib2 {
		i := b / gib
		if i >= 512 {
			break
		}
		if w1[i]&3 == descBlock {
			if w1[i]&attrMask != attrDevice {
				continue // a GiB of RAM
			}
			l2 := a.Get()
			if l2 == 0 {
				return false
			}
			w2 := pageWords(l2)
			for j := uintptr(0); j < 512; j++ {
				w2[j] = uint64(i*gib+j*mib2) | descBlock | kernDevice
			}
			w1[i] = uint64(l2) | descTable
		}
		e := &pageWords(uintptr(w1[i] & descAddrMask))[(b%gib)/mib2]
		if *e&attrMask != attrDevice {
			continue // RAM, or done
		}
		*e = 0
		changed[n] = entry{e, b}
		n++
	}
	if n == 0 {
		return true
	}
	flush()
	for _, c := range changed[:n] {
		*c.e = uint64(c.b) | descBlock | kernNC
	}
	flush()
	return true
}
