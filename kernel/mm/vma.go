package mm

// A VMA is one contiguous range of the app's address space with one
// protection, as mmap made it. The list is a sorted, fixed-size array of
// non-overlapping ranges; adjacent ranges with equal attributes are merged
// so Go's habit of mapping arenas piecewise does not fill it.

// MaxVMAs bounds the list.
const MaxVMAs = 2048

type VMA struct {
	Start, End uintptr // [Start, End), page aligned
	Prot       Prot
	Flags      uint8
}

// VMA flags.
const (
	VMAStack uint8 = 1 << iota // the initial stack (grows down into its reservation)
	VMAFixed                   // kernel-owned mapping the app may not unmap (signal trampoline)
)

type VMAList struct {
	v [MaxVMAs]VMA
	n int
}

func (l *VMAList) Len() int      { return l.n }
func (l *VMAList) At(i int) *VMA { return &l.v[i] }

// Find returns the VMA containing addr.
func (l *VMAList) Find(addr uintptr) (*VMA, bool) {
	lo, hi := 0, l.n
	for lo < hi {
		m := (lo + hi) / 2
		if l.v[m].End <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < l.n && l.v[lo].Start <= addr {
		return &l.v[lo], true
	}
	return nil, false
}

// firstEndingAfter returns the index of the first VMA with End > addr.
func (l *VMAList) firstEndingAfter(addr uintptr) int {
	lo, hi := 0, l.n
	for lo < hi {
		m := (lo + hi) / 2
		if l.v[m].End <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Free reports whether [start, end) overlaps no VMA.
func (l *VMAList) Free(start, end uintptr) bool {
	i := l.firstEndingAfter(start)
	return i == l.n || l.v[i].Start >= end
}

// Overlaps reports whether [start,end) touches a VMA with any of flags.
func (l *VMAList) Overlaps(start, end uintptr, flags uint8) bool {
	for i := l.firstEndingAfter(start); i < l.n && l.v[i].Start < end; i++ {
		if l.v[i].Flags&flags != 0 {
			return true
		}
	}
	return false
}

func (l *VMAList) insertAt(i int, v VMA) bool {
	if l.n == MaxVMAs {
		return false
	}
	copy(l.v[i+1:l.n+1], l.v[i:l.n])
	l.v[i] = v
	l.n++
	return true
}

func (l *VMAList) deleteAt(i int) {
	copy(l.v[i:l.n-1], l.v[i+1:l.n])
	l.n--
}

// Remove cuts [start, end) out of the list, splitting VMAs at the edges.
// It fails only if a split needs a slot and the list is full.
func (l *VMAList) Remove(start, end uintptr) bool {
	i := l.firstEndingAfter(start)
	for i < l.n && l.v[i].Start < end {
		v := l.v[i]
		switch {
		case v.Start < start && v.End > end: // hole in the middle
			tail := v
			tail.Start = end
			if !l.insertAt(i+1, tail) {
				return false
			}
			l.v[i].End = start
			return true
		case v.Start < start:
			l.v[i].End = start
			i++
		case v.End > end:
			l.v[i].Start = end
			return true
		default:
			l.deleteAt(i)
		}
	}
	return true
}

// Add inserts [start, end) with the given attributes, replacing whatever
// was there, and merges it with equal neighbours.
func (l *VMAList) Add(start, end uintptr, p Prot, flags uint8) bool {
	if !l.Remove(start, end) {
		return false
	}
	i := l.firstEndingAfter(start)
	if !l.insertAt(i, VMA{start, end, p, flags}) {
		return false
	}
	l.merge(i)
	return true
}

// merge joins v[i] with its neighbours where they touch and match.
func (l *VMAList) merge(i int) {
	if i+1 < l.n && l.v[i].End == l.v[i+1].Start && l.v[i].Prot == l.v[i+1].Prot && l.v[i].Flags == l.v[i+1].Flags {
		l.v[i].End = l.v[i+1].End
		l.deleteAt(i + 1)
	}
	if i > 0 && l.v[i-1].End == l.v[i].Start && l.v[i-1].Prot == l.v[i].Prot && l.v[i-1].Flags == l.v[i].Flags {
		l.v[i-1].End = l.v[i].End
		l.deleteAt(i)
	}
}

// Protect changes the protection of every mapped page in [start, end).
// Like Linux, it fails (returns false) if part of the range is unmapped.
func (l *VMAList) Protect(start, end uintptr, p Prot) bool {
	// Check coverage first so a failure changes nothing.
	a := start
	for i := l.firstEndingAfter(start); a < end; i++ {
		if i >= l.n || l.v[i].Start > a {
			return false
		}
		a = l.v[i].End
	}
	for a = start; a < end; {
		v, _ := l.Find(a)
		s, e, flags := v.Start, v.End, v.Flags
		if s < start {
			s = start
		}
		if e > end {
			e = end
		}
		if !l.Add(s, e, p, flags) {
			return false
		}
		a = e
	}
	return true
}

// FindGap returns the highest free, page-aligned range of length n ending
// at or below top and starting at or above bottom, or 0 if none.
func (l *VMAList) FindGap(n, bottom, top uintptr) uintptr {
	end := top
	for i := l.n - 1; i >= -1; i-- {
		var gapStart uintptr = bottom
		if i >= 0 {
			if l.v[i].Start >= end {
				continue
			}
			gapStart = l.v[i].End
			if gapStart < bottom {
				gapStart = bottom
			}
		}
		if end >= gapStart+n && end-n >= gapStart {
			return end - n
		}
		if i >= 0 {
			end = l.v[i].Start
			if end <= bottom {
				return 0
			}
		}
	}
	return 0
}
