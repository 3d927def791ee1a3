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
