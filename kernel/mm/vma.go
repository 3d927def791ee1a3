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
	// A file mapping's file: its inode's slot in the kernel's inode
	// table (kernel/fs; 0, a slot never used, for anonymous memory),
	// the mount it was reached through, and the file offset that Start
	// maps (Linux's vm_file, vm_pgoff). Each VMA with a file holds one
	// use of it (FileRef), so the inode outlives close and unlink while
	// mapped; a split takes one more, a merge or removal gives one back.
	File, Mnt int32
	Off       uintptr
}

// VMA flags.
const (
	VMAStack      uint8 = 1 << iota // the initial stack (grows down into its reservation)
	VMAFixed                        // kernel-owned mapping the app may not unmap (signal trampoline)
	VMAShared                       // MAP_SHARED of a file: writes go to the file's own pages
	VMANoWrite                      // a file mapping PROT_WRITE may never be given (Linux's !VM_MAYWRITE)
	VMAAnonShared                   // anonymous shared memory: its file is unnamed (/proc/PID/maps: /dev/zero)
	// VMADevice: the file is a device whose memory the mapping shows
	// (Linux's VM_IO | VM_PFNMAP: a framebuffer), its frames found by
	// DevicePage and mapped special (devicePTE), never the allocator's.
	VMADevice
)

// FileRef, set by the kernel, takes (delta 1) or gives back (-1) a
// VMA's use of its file (kernel/fs Hold and Drop, and of its mount).
// It is called only on the locked way: the mapping calls made without
// the kernel lock never add or remove a VMA with a file (hasFile).
var FileRef func(file, mnt int32, delta int)

func fileRef(v *VMA, delta int) {
	if v.File != 0 && FileRef != nil {
		FileRef(v.File, v.Mnt, delta)
	}
}

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
	fileRef(&v, 1)
	return true
}

func (l *VMAList) deleteAt(i int) {
	fileRef(&l.v[i], -1)
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
			tail.Off += fileOff(&v, end-v.Start)
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
			l.v[i].Off += fileOff(&v, end-v.Start)
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
	return l.AddVMA(VMA{Start: start, End: end, Prot: p, Flags: flags})
}

// AddVMA is Add for a VMA that may map a file.
func (l *VMAList) AddVMA(v VMA) bool {
	if !l.Remove(v.Start, v.End) {
		return false
	}
	i := l.firstEndingAfter(v.Start)
	if !l.insertAt(i, v) {
		return false
	}
	l.merge(i)
	return true
}

// joins reports whether b starts where a ends and continues it: the
// same rights and flags, and for a file mapping the same file at the
// offset where a's ends (Linux's vma_merge and is_mergeable_vma).
func joins(a, b *VMA) bool {
	return a.End == b.Start && a.Prot == b.Prot && a.Flags == b.Flags && a.File == b.File &&
		a.Mnt == b.Mnt && (a.File == 0 || a.Off+(a.End-a.Start) == b.Off)
}

// merge joins v[i] with its neighbours where they touch and match.
func (l *VMAList) merge(i int) {
	if i+1 < l.n && joins(&l.v[i], &l.v[i+1]) {
		l.v[i].End = l.v[i+1].End
		l.deleteAt(i + 1)
	}
	if i > 0 && joins(&l.v[i-1], &l.v[i]) {
		l.v[i-1].End = l.v[i].End
		l.deleteAt(i)
	}
}

// fileOff is how far the file offset moves when v's start moves by d:
// d for a file mapping, 0 for anonymous memory (whose Off stays 0).
func fileOff(v *VMA, d uintptr) uintptr {
	if v.File == 0 {
		return 0
	}
	return d
}

// HasFile reports whether [start, end) touches a file mapping.
func (l *VMAList) HasFile(start, end uintptr) bool {
	for i := l.firstEndingAfter(start); i < l.n && l.v[i].Start < end; i++ {
		if l.v[i].File != 0 {
			return true
		}
	}
	return false
}

// Covers reports whether every address of [start, end) is mapped.
func (l *VMAList) Covers(start, end uintptr) bool {
	a := start
	for i := l.firstEndingAfter(start); a < end; i++ {
		if i >= l.n || l.v[i].Start > a {
			return false
		}
		a = l.v[i].End
	}
	return true
}

// Protect changes the protection of every mapped page in [start, end).
// Like Linux, it fails (returns false) if part of the range is unmapped.
func (l *VMAList) Protect(start, end uintptr, p Prot) bool {
	// Check coverage first so a failure changes nothing.
	if !l.Covers(start, end) {
		return false
	}
	for a := start; a < end; {
		v, _ := l.Find(a)
		nv := *v
		if nv.Start < start {
			nv.Start = start
		}
		if nv.End > end {
			nv.End = end
		}
		nv.Off += fileOff(v, nv.Start-v.Start)
		nv.Prot = p
		if !l.AddVMA(nv) {
			return false
		}
		a = nv.End
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
