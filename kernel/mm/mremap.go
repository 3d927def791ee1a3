package mm

import "golang.org/x/sys/unix"

// Mremap is mremap(2) under the space's lock: [old, old+oldSize), all
// in one VMA, becomes newSize bytes long, in place (shrunk, or grown
// into free space after it) or, with MREMAP_MAYMOVE, moved where there
// is room (or to dst with MREMAP_FIXED), its pages going along without a
// copy: their entries move and the frames stay (Linux's move_vma and
// move_page_tables). It runs on the locked way only: it may make and
// remove VMAs with a file.
func (s *Space) Mremap(old, oldSize, newSize uintptr, flags int, dst uintptr) (uintptr, unix.Errno) {
	s.lock()
	a, e := s.mremap(old, oldSize, newSize, flags, dst)
	s.unlock()
	return a, e
}

func (s *Space) mremap(old, oldSize, newSize uintptr, flags int, dst uintptr) (uintptr, unix.Errno) {
	fixed := flags&unix.MREMAP_FIXED != 0
	if flags&^(unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED) != 0 || fixed && flags&unix.MREMAP_MAYMOVE == 0 ||
		old&PageMask != 0 || fixed && dst&PageMask != 0 {
		return 0, unix.EINVAL
	}
	oldSize, n := PageUp(oldSize), PageUp(newSize)
	// oldSize 0 duplicates a shared mapping on Linux; not here.
	if n == 0 || n < newSize || oldSize == 0 || old+oldSize < old || n > UserTop {
		return 0, unix.EINVAL
	}
	p, ok := s.VMAs.Find(old)
	if !ok || old+oldSize > p.End || p.Flags&(VMAFixed|VMAStack) != 0 {
		return 0, unix.EFAULT
	}
	v := *p
	if n > oldSize && v.Flags&VMADevice != 0 {
		// A device's memory does not grow (Linux's vma_to_resize:
		// VM_PFNMAP is EFAULT).
		return 0, unix.EFAULT
	}
	if fixed {
		if dst+n > UserTop || dst+n < dst || dst < old+oldSize && old < dst+n {
			return 0, unix.EINVAL
		}
		if s.VMAs.Overlaps(dst, dst+n, VMAFixed) {
			return 0, unix.EINVAL
		}
		if e := s.munmap(dst, n, true); e != 0 {
			return 0, e
		}
		if n < oldSize {
			s.munmap(old+n, oldSize-n, true)
			oldSize = n
		}
		return s.moveVMA(&v, old, oldSize, dst, n)
	}
	if n <= oldSize {
		if n < oldSize {
			if e := s.munmap(old+n, oldSize-n, true); e != 0 {
				return 0, e
			}
		}
		return old, 0
	}
	if old+oldSize == v.End && old+n <= UserTop && s.VMAs.Free(v.End, old+n) {
		grow := v
		grow.Start, grow.End = v.End, old+n
		grow.Off += fileOff(&v, v.End-v.Start)
		if !s.VMAs.AddVMA(grow) { // merges with v
			return 0, unix.ENOMEM
		}
		return old, 0
	}
	if flags&unix.MREMAP_MAYMOVE == 0 {
		return 0, unix.ENOMEM
	}
	if dst = s.VMAs.FindGap(n, MmapBottom, MmapTop); dst == 0 {
		return 0, unix.ENOMEM
	}
	return s.moveVMA(&v, old, oldSize, dst, n)
}

// moveVMA moves [old, old+oldSize) of v to [dst, dst+n), free, n at
// least oldSize: a VMA like v there (at the file offset old maps), the
// page-table entries moved across (the same frames, counts and
// resident pages), the old translations invalidated on every core once
// no pinned copy can be using them (quiesce), the old range unmapped.
func (s *Space) moveVMA(v *VMA, old, oldSize, dst, n uintptr) (uintptr, unix.Errno) {
	// The destination's tables first, so that nothing changes if one
	// cannot be had.
	for va := dst; va < dst+oldSize; va = (va | (PageSize*512 - 1)) + 1 {
		if s.PT.leafTable(s.A, va, true) == nil {
			return 0, unix.ENOMEM
		}
	}
	nv := *v
	nv.Start, nv.End = dst, dst+n
	nv.Off += fileOff(v, old-v.Start)
	if !s.VMAs.AddVMA(nv) {
		return 0, unix.ENOMEM
	}
	s.quiesce()
	moved := false
	for i := uintptr(0); i < oldSize; i += PageSize {
		e := s.PT.leaf(nil, old+i, false)
		if e == nil || *e == 0 {
			continue
		}
		*s.PT.leaf(nil, dst+i, false) = *e
		*e = 0
		moved = true
	}
	if moved {
		flushSpace(&s.ASID)
	}
	publish()
	s.settle()
	if !s.VMAs.Remove(old, old+oldSize) {
		return 0, unix.ENOMEM
	}
	return dst, 0
}
