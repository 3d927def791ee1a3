package mm

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/sched"
)

// The table of address spaces, one per process at most (ARCHITECTURE.md,
// "The process layer"). A process holds a reference to its space (Refs:
// threads share it by belonging to one process, a vfork child and its
// parent by each holding one); a core holds the space its TTBR0 points
// at (OnCores), as Linux's lazy-TLB mm_count keeps an mm whose tables
// a core may still walk. A space is torn down once neither is left
// (Reap): no core can then walk its tables or hold its translations.

// MaxSpaces bounds the address spaces (proc.MaxProcs: a test checks
// they agree).
const MaxSpaces = 64

// Spaces is the table; a slot is free while its Root is 0.
var Spaces [MaxSpaces]Space

// NewSpace takes a free slot with a new, empty page table and one
// reference, or returns -1 (no slot, or no page for the root).
func NewSpace(a *Alloc) int32 {
	ReapSpaces() // those the cores have let go of since
	for i := range Spaces {
		s := &Spaces[i]
		if s.PT.Root != 0 || atomic.LoadUint32(&s.OnCores) != 0 {
			continue
		}
		*s = Space{mu: cpu.Spinlock{Name: "space", Rank: sched.RankSpace}}
		if !s.Init(a) {
			return -1
		}
		s.Refs = 1
		return int32(i)
	}
	return -1
}

// SpaceIndex returns s's slot.
func SpaceIndex(s *Space) int32 {
	for i := range Spaces {
		if &Spaces[i] == s {
			return int32(i)
		}
	}
	return -1
}

// Hold records that core's TTBR0 points at s now; Drop that it no
// longer does (after the core wrote another root and dropped its TLB).
func (s *Space) Hold(core int) { atomicOr(&s.OnCores, 1<<uint(core)) }
func (s *Space) Drop(core int) { atomicAnd(&s.OnCores, ^uint32(1<<uint(core))) }

func atomicOr(p *uint32, v uint32) {
	for {
		old := atomic.LoadUint32(p)
		if atomic.CompareAndSwapUint32(p, old, old|v) {
			return
		}
	}
}

func atomicAnd(p *uint32, v uint32) {
	for {
		old := atomic.LoadUint32(p)
		if atomic.CompareAndSwapUint32(p, old, old&v) {
			return
		}
	}
}

// Put drops a process's reference to s; the last one makes it dying,
// torn down by Reap once no core holds it.
func (s *Space) Put() {
	s.Refs--
	if s.Refs == 0 {
		// The files' uses go now, even if a core still points at the
		// space and its teardown waits: Linux's exit_mmap drops them
		// before the parent hears of the exit (exit_notify), so a
		// umount of the mount a program ran from is not EBUSY after
		// the wait for it returned.
		s.dropFiles()
		ReapSpaces()
		// Cores that ran its threads and went idle while it was
		// still referenced point at it yet: woken, they let go of it
		// and reap it (the kernel's dropDeadSpace, before idling again).
		sched.KickCores(atomic.LoadUint32(&s.OnCores))
	}
}

// ReapSpaces tears down every space nobody references that no core
// holds, and reports how many it did. Under the kernel lock; called
// where spaces come and go.
func ReapSpaces() int {
	n := 0
	for i := range Spaces {
		s := &Spaces[i]
		if s.PT.Root != 0 && s.Refs == 0 && atomic.LoadUint32(&s.OnCores) == 0 {
			s.destroy()
			n++
		}
	}
	return n
}

// DeadSpacesHeld is the mask of cores that still point at a space no
// process references any more (ReapSpaces waits for them).
func DeadSpacesHeld() uint32 {
	var m uint32
	for i := range Spaces {
		if s := &Spaces[i]; s.PT.Root != 0 && s.Refs == 0 {
			m |= atomic.LoadUint32(&s.OnCores)
		}
	}
	return m
}

// Live counts the spaces in use or waiting for a core to let go.
func LiveSpaces() int {
	n := 0
	for i := range Spaces {
		if Spaces[i].PT.Root != 0 {
			n++
		}
	}
	return n
}

// destroy frees every page s owns and its page-table pages. No core
// walks its tables or holds its translations (Reap's condition), so no
// invalidation is needed: each core dropped its TLB when it moved its
// TTBR0 away. Kernel pages mapped into it (VMAFixed: the signal
// trampoline, the vDSO) are not its own and stay.
func (s *Space) destroy() {
	a := s.A
	for i := 0; i < s.VMAs.Len(); i++ {
		v := s.VMAs.At(i)
		if v.Flags&VMAFixed != 0 {
			continue
		}
		clearPages(a, s.PT.Root, v.Start, v.End)
	}
	s.dropFiles() // gone already unless the space never had a use
	freeTables(a, s.PT.Root, 0)
	*s = Space{}
}

// dropFiles gives back the uses of their files that s's VMAs hold (no
// thread runs in s any more), each cleared from its VMA first: the last
// use of an unlinked file frees it (kernel/fs release), whose truncation
// looks for mappings of it (UnmapFile) in every space. Frames of the
// files s's tables still map stay counted by them until destroy.
func (s *Space) dropFiles() {
	for i := 0; i < s.VMAs.Len(); i++ {
		v := *s.VMAs.At(i)
		s.VMAs.At(i).File = 0
		fileRef(&v, -1)
	}
}

// leaves calls fn for every level-3 entry in use (a hidden page's
// too) for [start, end) under table, a table of level level covering
// from base, until fn answers false; it reports whether none did. The
// walk is Visit's, without its invalidation: the spaces it serves are
// walked by no core (teardown) or not yet (a fork's copy).
func leaves(table uintptr, level int, base, start, end uintptr, fn func(va uintptr, e *uint64) bool) bool {
	return leafTables(table, level, base, start, end, func(va uintptr, t *[512]uint64, i, j uintptr) bool {
		for ; i < j; i++ {
			if t[i] != 0 && !fn(va+i*PageSize, &t[i]) {
				return false
			}
		}
		return true
	})
}

// leafTables calls fn once for every level-3 table under table (of
// level level, covering from base) that maps part of [start, end), with
// the table's first address and the indexes [i, j) of its entries in
// the range, until fn answers false; it reports whether none did. fn
// loops over the entries itself: a call per 2 MiB, not per page (a fork
// of a 64 MiB parent made 16384 calls through a function value, each
// walking the child's table from its root), as Linux's copy_pte_range
// and zap_pte_range work a table at a time.
func leafTables(table uintptr, level int, base, start, end uintptr, fn func(va uintptr, t *[512]uint64, i, j uintptr) bool) bool {
	w := pageWords(table)
	if level == 3 {
		i, j := uintptr(0), uintptr(len(w))
		if start > base {
			i = (start - base) / PageSize
		}
		if last := base + uintptr(len(w))*PageSize; end < last {
			j = (PageUp(end) - base) / PageSize
		}
		return fn(base, w, i, j)
	}
	span := uintptr(1) << (39 - 9*uint(level))
	for i := uintptr(0); i < 512; i++ {
		lo := base + i*span
		if lo+span <= start || lo >= end {
			continue
		}
		if w[i]&descValid == 0 {
			continue
		}
		if !leafTables(pteAddr(w[i]), level+1, lo, start, end, fn) {
			return false
		}
	}
	return true
}

// clearPages frees the frames mapped in [start, end) of the table at
// root, without invalidating, and leaves the entries as they were: the
// tables go next (destroy), and Get zeroes a page when it hands it out.
func clearPages(a *Alloc, root, start, end uintptr) {
	leafTables(root, 0, 0, start, end, func(va uintptr, t *[512]uint64, i, j uintptr) bool {
		a.unrefEntries(t, i, j)
		return true
	})
}

// freeTables frees table (of level level) and the tables below it.
func freeTables(a *Alloc, table uintptr, level int) {
	if level < 3 {
		w := pageWords(table)
		for i := range w {
			if e := w[i]; e&descValid != 0 {
				freeTables(a, pteAddr(e), level+1)
			}
		}
	}
	a.Put(table)
}

// CopySpace makes a new space with src's mappings sharing src's pages
// copy-on-write (fork, Linux's dup_mmap): each VMA as it is, each page
// src has (a hidden one too) mapped to the same frame, counted once more
// (Alloc.Ref), read-only in both spaces; the first write to it from
// either copies it (Fault, breakCOW). Kernel pages (VMAFixed) are mapped
// as they are, uncounted. Taking write access away from src's pages is a
// change that restricts mappings, so it waits for src's pinned copies
// (quiesce) and invalidates src's translations before it returns. It
// returns the new slot, or -1 when a slot or memory runs out, leaving
// nothing behind (src's pages stay read-only until a write fault finds
// them unshared again).
func CopySpace(src int32) int32 {
	s := &Spaces[src]
	n := NewSpace(s.A)
	if n < 0 {
		return -1
	}
	d := &Spaces[n]
	// d is no one's yet: only s is locked, before its VMAs are read
	// (its other threads map and unmap without the kernel lock). The
	// list's entries in use only, not its whole array (48 KiB).
	s.lock()
	d.VMAs.n = copy(d.VMAs.v[:], s.VMAs.v[:s.VMAs.n])
	for i := 0; i < d.VMAs.n; i++ {
		fileRef(&d.VMAs.v[i], 1) // a fork shares the file (Linux's dup_mmap: get_file)
	}
	d.Brk = s.Brk
	d.ArgStart, d.ArgEnd, d.EnvStart, d.EnvEnd = s.ArgStart, s.ArgEnd, s.EnvStart, s.EnvEnd
	s.quiesce()
	ok := true
	for i := 0; i < s.VMAs.Len() && ok; i++ {
		v := s.VMAs.At(i)
		ok = sharePages(s, d, v.Start, v.End, v.Flags&VMAFixed != 0)
	}
	// src's writable entries became read-only: no core may keep writing
	// through a translation from before (TLBI ASIDE1IS: src's ASID, on
	// every core).
	flushSpace(&s.ASID)
	s.settle()
	s.unlock()
	if !ok {
		d.destroy() // drops the shares taken; kernel pages stay
		return -1
	}
	return n
}

// sharePages maps into d the pages src maps in [start, end): the same
// frames, counted, both entries read-only; with kernel set, kernel pages
// as they are. A table of entries at a time: d's table is found once
// for it and the counts taken under one hold of the allocator's lock.
func sharePages(src, d *Space, start, end uintptr, kernel bool) bool {
	ok := leafTables(src.PT.Root, 0, 0, start, end, func(va uintptr, st *[512]uint64, i, j uintptr) bool {
		dt := d.PT.leafTable(d.A, va, true)
		if dt == nil {
			return false
		}
		if kernel {
			copy(dt[i:j], st[i:j])
			return true
		}
		n, ok := src.A.shareEntries(st, dt, i, j)
		d.Resident += int64(n)
		return ok
	})
	publish()
	d.Peak = d.Resident
	return ok
}
