package mm

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Space is the app's address space: its VMAs and the TTBR0 page table
// behind them. Pages are backed on first touch (Fault) with zeroed frames.
type Space struct {
	// mu is the space's lock (sched.RankSpace): its VMAs, its page
	// table's entries and Resident change only under it. A page fault
	// and the mapping calls (mmap, munmap, mprotect, madvise) take it
	// alone: kernel/linux answers them without the kernel lock
	// (ARCHITECTURE.md, "Each address space has a lock"). Reads that
	// take no lock (Pin's copies, PresentPage) see an entry before or
	// after a change; a reader of the VMAs from elsewhere (/proc) takes
	// it (Lock).
	mu   cpu.Spinlock
	PT   PageTable
	VMAs VMAList
	A    *Alloc
	// pins[i] is 1 while core i copies app memory (Pin, PinPage);
	// changing is 1 while the holder of mu removes or restricts
	// mappings (quiesce). See Pin.
	pins     [MaxCores]uint32
	changing uint32

	// Refs counts the processes that use the space (spaces.go), under
	// the kernel lock; OnCores has bit i set while core i's TTBR0
	// points at it (Hold, Drop: the core itself, atomically).
	Refs    int32
	OnCores uint32

	// Brk is the program break: the end of the loaded image (brk(2)
	// answers it and moves it nowhere).
	Brk uintptr

	// Where the program's arguments and environment strings are in its
	// stack (Linux's mm->arg_start and kin: /proc/PID/cmdline and
	// environ read them), set when the stack is built.
	ArgStart, ArgEnd, EnvStart, EnvEnd uintptr

	// Resident counts the pages the space owns (not the kernel's pages
	// mapped into it), for the OOM killer's choice and the state dump.
	Resident int64
	// Peak is the most Resident has been (ru_maxrss).
	Peak int64

	// ASID is the space's ID in the ASID allocator (asid.go: generation
	// and ASID; 0: none yet), under the allocator's lock.
	ASID uint64
}

// MaxCores bounds the cores that may Pin (drivers/cpu.MaxCPUs, which
// a test checks).
const MaxCores = 8

// Address-space layout (Linux arm64 with 48-bit VA uses the same shape).
const (
	// MmapTop is where mmap without a usable hint searches down from.
	MmapTop = 0x0000_FFFF_0000_0000
	// MmapBottom keeps mmap away from the ELF image and the zero page.
	MmapBottom = 0x0000_0001_0000_0000
	// StackTop is the top of the initial thread's stack.
	StackTop = 0x0000_FFFF_FF00_0000
	// StackSize is the initial stack's reservation (RLIMIT_STACK default).
	StackSize = 8 << 20
)

// Access is what a fault or a kernel copy wants to do.
type Access uint8

const (
	AccessRead Access = iota
	AccessWrite
	AccessExec
)

// FaultResult tells the trap handler what a fault came to.
type FaultResult uint8

const (
	FaultOK     FaultResult = iota
	FaultMapErr             // no VMA: SIGSEGV SEGV_MAPERR
	FaultAccErr             // VMA forbids it: SIGSEGV SEGV_ACCERR
	FaultOOM                // no memory: the app is killed
	FaultBus                // a file page wholly past the file's end: SIGBUS BUS_ADRERR
	FaultLocked             // a file's page is needed: ask again under the kernel lock
)

// FilePage, set by the kernel, returns the page cache's frame for the
// page of file (an inode's slot) at offset off (page aligned), filling a
// hole: FaultBus when off is at or past the file's end, or the file
// system is full, as Linux's shmem_fault answers VM_FAULT_SIGBUS. It
// runs under the kernel lock (the file layer's), which fileFault makes
// sure of.
var FilePage func(file int32, off uintptr) (uintptr, FaultResult)

// FileCached, set by the kernel, returns the page cache's frame for the
// page of file at off if it has one within the file's size, else 0, and
// never allocates (fault-around: mapFileAround). Under the kernel lock.
var FileCached func(file int32, off uintptr) uintptr

// DevicePage, set by the kernel, returns the memory behind a device
// mapping (VMADevice) of file at offset off (page aligned): its physical
// address and how many bytes from it are contiguous, 0 past the
// device's memory (SIGBUS). The frames are ones the kernel's direct map
// covers (a kernel copy to or from the mapping goes through it). It
// takes no lock and may run without the kernel lock: the device's
// memory is fixed at boot.
var DevicePage func(file int32, off uintptr) (pa, n uintptr)

// kernelHeld reports whether this core holds the kernel lock (a
// variable for the host's tests, which have no kernel lock).
var kernelHeld = holdsKernel

func holdsKernel() bool { return sched.KernelLock.Owner() == sched.SelfID() }

func (s *Space) lock() {
	id := sched.SelfID()
	s.mu.Lock(id)
	spacesHeld[id]++
}

func (s *Space) unlock() {
	spacesHeld[sched.SelfID()]--
	s.mu.Unlock()
}

// spacesHeld counts the spaces' locks each core holds: a fault that
// reads a file's page from the disk holds its space's, which ranks
// after the scheduler's state locks, so what the disk's polling does
// meanwhile must take none of those (HoldsSpace).
var spacesHeld [cpu.MaxCPUs]int32

// HoldsSpace reports whether this core holds a space's lock: then it
// may take no lock ranked before it (sched.RankSpace), such as the
// state locks a wake-up or sched.LendQueue takes.
func HoldsSpace() bool { return spacesHeld[sched.SelfID()] != 0 }

// Lock and Unlock take and drop the space's lock for a reader of its
// VMAs that is not the space's own (/proc/PID/maps, stat, status): the
// mapping calls of the process's threads change them without the
// kernel lock.
func (s *Space) Lock()   { s.lock() }
func (s *Space) Unlock() { s.unlock() }

func (s *Space) Init(a *Alloc) bool {
	s.A = a
	return s.PT.Init(a)
}

func allowed(p Prot, acc Access) bool {
	switch acc {
	case AccessWrite:
		return p&ProtWrite != 0
	case AccessExec:
		return p&ProtExec != 0
	}
	return p&(ProtRead|ProtWrite) != 0
}

// Fault is fault under the space's lock.
func (s *Space) Fault(addr uintptr, acc Access) FaultResult {
	s.lock()
	r := s.fault(addr, acc)
	s.unlock()
	return r
}

// fault makes the page at addr accessible for acc if its VMA allows it,
// backing it with a zeroed page if it has none yet.
func (s *Space) fault(addr uintptr, acc Access) FaultResult {
	v, ok := s.VMAs.Find(addr)
	if !ok {
		return FaultMapErr
	}
	if !allowed(v.Prot, acc) {
		return FaultAccErr
	}
	va := PageDown(addr)
	table := s.PT.leafTable(s.A, va, true)
	if table == nil {
		return FaultOOM
	}
	e := &table[index(va, 3)]
	if v.Flags&VMADevice != 0 && (*e == 0 || *e&descSpecial != 0) {
		return s.deviceFault(v, va, table, acc)
	}
	// A private copy of a device's page (deviceFault) is the space's
	// own, as anonymous memory is.
	if *e != 0 {
		pa := pteAddr(*e)
		if acc == AccessWrite && v.Flags&VMAShared != 0 {
			// A MAP_SHARED file page is the file's own frame, counted
			// by the cache and every mapping: writable in place,
			// whatever its count (a fork's read-only share too).
			*e = userPTE(pa, v.Prot)
			flushUserPage(&s.ASID, va)
			return FaultOK
		}
		if acc == AccessWrite && s.A.Refs(pa) > 1 {
			return s.breakCOW(va, e, pa, v.Prot)
		}
		// A page exists (perhaps hidden by PROT_NONE, left with old
		// rights by mprotect, or shared by a fork whose other side has
		// let go of it since): give it the VMA's rights.
		if acc == AccessWrite && *e&descValid != 0 && !Writable(*e) {
			atomic.AddUint64(&COWReuses, 1)
		}
		*e = s.pte(pa, v.Prot)
		flushUserPage(&s.ASID, va)
		return FaultOK
	}
	if v.File != 0 {
		return s.fileFault(v, va, table, acc)
	}
	pa := s.A.Get()
	if pa == 0 {
		return FaultOOM
	}
	s.Resident++
	s.mapAround(v, va, table)
	s.Peak = max(s.Peak, s.Resident)
	// The zeroed frames, then the entries, must reach every core's walker
	// (another core may touch these pages as soon as the space's lock
	// drops).
	publish()
	*e = userPTE(pa, v.Prot)
	publish()
	return FaultOK
}

// fileFault maps the page at va of v, a file mapping, whose entry e is
// empty, as Linux's filemap_fault and do_cow_fault: MAP_SHARED maps the
// page cache's frame itself (counted: Alloc.Ref), with the VMA's rights;
// MAP_PRIVATE maps it read-only for a read, so that a later write
// copies it (breakCOW: the cache's count keeps it shared), and a write
// gets its copy at once. A read (or a shared write) also maps the pages
// after it the cache already has (mapFileAround).
func (s *Space) fileFault(v *VMA, va uintptr, table *[512]uint64, acc Access) FaultResult {
	if FilePage == nil || !kernelHeld() {
		return FaultLocked
	}
	e := &table[index(va, 3)]
	pa, r := FilePage(v.File, v.Off+(va-v.Start))
	if r != FaultOK {
		return r
	}
	p := v.Prot
	if v.Flags&VMAShared == 0 {
		if acc == AccessWrite {
			np := s.A.Get()
			if np == 0 {
				return FaultOOM
			}
			*PageBytes(np) = *PageBytes(pa)
			pa = np
		} else {
			p &^= ProtWrite
			if !s.A.Ref(pa) {
				return FaultOOM
			}
		}
	} else if !s.A.Ref(pa) {
		return FaultOOM
	}
	s.Resident++
	if acc != AccessWrite || v.Flags&VMAShared != 0 {
		s.mapFileAround(v, va, table, p)
	}
	s.Peak = max(s.Peak, s.Resident)
	if p&ProtExec != 0 {
		// The cache's frames were written as data (a device's DMA, a
		// copy): no core may fetch stale instructions from them
		// (ARM ARM B2.4.4, "Instruction cache maintenance"), as the
		// loader's copies are made visible too.
		syncICache()
	}
	publish()
	*e = userPTE(pa, p)
	publish()
	return FaultOK
}

// deviceFault maps the device's memory behind v (VMADevice) from va to
// the end of va's last-level table or of v, whichever is first, as
// Linux's remap_pfn_range maps all of a device mapping at mmap (here
// 2 MiB at a time, at the first touch: a 2.4 MiB framebuffer takes two
// faults). The entries are special (devicePTE): no frame is counted
// and none is resident. An entry already there (hidden by PROT_NONE,
// or made read-only by mprotect) takes v's rights again. A private
// mapping maps the device read-only, and a write to it copies the page
// into one of the space's own (Linux's wp_page_copy of a VM_PFNMAP
// page: vm_normal_page is NULL, the copy is from the device's frame).
func (s *Space) deviceFault(v *VMA, va uintptr, table *[512]uint64, acc Access) FaultResult {
	if DevicePage == nil {
		return FaultBus
	}
	pa, n := DevicePage(v.File, v.Off+(va-v.Start))
	if n < PageSize {
		return FaultBus
	}
	p := v.Prot
	private := v.Flags&VMAShared == 0
	if private {
		p &^= ProtWrite
	}
	first := index(va, 3)
	e := &table[first]
	if private && acc == AccessWrite {
		np := s.A.Get()
		if np == 0 {
			return FaultOOM
		}
		*PageBytes(np) = *PageBytes(pa)
		if *e != 0 {
			*e = 0
			flushUserPage(&s.ASID, va)
		}
		s.Resident++
		s.Peak = max(s.Peak, s.Resident)
		publish()
		*e = userPTE(np, v.Prot)
		publish()
		return FaultOK
	}
	if *e != 0 {
		*e = devicePTE(pteAddr(*e), p)
		flushUserPage(&s.ASID, va)
		return FaultOK
	}
	for i := uintptr(0); first+i < uintptr(len(table)) && va+i*PageSize < v.End && (i+1)*PageSize <= n; i++ {
		if table[first+i] == 0 {
			table[first+i] = devicePTE(pa+i*PageSize, p)
		}
	}
	publish()
	return FaultOK
}

// mapFileAround maps, with rights p, the pages after va in v that the
// page cache has already (FileCached), up to faultAround in all, within
// table, va's last-level table, as Linux's do_fault_around and
// filemap_map_pages: a file read in order takes a fault per 64 KiB, not
// per page. It allocates nothing; it stops at the first page not in the
// cache, past the end, or already mapped.
func (s *Space) mapFileAround(v *VMA, va uintptr, table *[512]uint64, p Prot) {
	if FileCached == nil {
		return
	}
	first := index(va, 3)
	for i := uintptr(1); i < faultAround && first+i < uintptr(len(table)); i++ {
		at := va + i*PageSize
		if at >= v.End || table[first+i] != 0 {
			return
		}
		pa := FileCached(v.File, v.Off+(at-v.Start))
		if pa == 0 || !s.A.Ref(pa) {
			return
		}
		table[first+i] = userPTE(pa, p)
		s.Resident++
	}
}

// UnmapFile removes from every address space the pages that map file
// at or past offset off (page aligned), as Linux's truncate_pagecache
// does with unmap_mapping_range before it frees the pages: private
// copies too, so that a later touch past the end is SIGBUS. Under the
// kernel lock, with no space's lock held.
func UnmapFile(file int32, off uintptr) {
	for i := range Spaces {
		s := &Spaces[i]
		if s.PT.Root == 0 {
			continue
		}
		s.lock()
		for k := 0; k < s.VMAs.Len(); k++ {
			v := s.VMAs.At(k)
			if v.File != file {
				continue
			}
			start := v.Start
			if off > v.Off {
				start += off - v.Off
			}
			if start < v.End {
				s.dropPages(start, v.End, true)
			}
		}
		s.unlock()
	}
}

// FileMapped reports whether some address space maps file. Under the
// kernel lock, with no space's lock held.
func FileMapped(file int32) bool {
	for i := range Spaces {
		s := &Spaces[i]
		if s.PT.Root == 0 {
			continue
		}
		s.lock()
		found := false
		for k := 0; k < s.VMAs.Len() && !found; k++ {
			found = s.VMAs.At(k).File == file
		}
		s.unlock()
		if found {
			return true
		}
	}
	return false
}

// pte is the entry for the frame pa with rights p in s: read-only
// while another address space shares the frame (fork's copy-on-write),
// whatever p says, so that the first write faults and copies.
func (s *Space) pte(pa uintptr, p Prot) uint64 {
	if s.A.Refs(pa) > 1 {
		p &^= ProtWrite
	}
	return userPTE(pa, p)
}

// COWCopies counts the pages a write fault copied because a fork
// shared them, COWReuses those it took over in place because it was
// the last user (GOMETAL_STATS).
var COWCopies, COWReuses uint64

// breakCOW gives s a frame of its own for the shared frame pa that e
// maps at va, as Linux's wp_page_copy: a copy of its bytes, mapped
// with the VMA's rights p. The old entry is removed and invalidated on
// every core before the new one is written (break-before-make, ARM ARM
// D8.14.1: the output address changes), so no thread of s can write
// the shared frame through a stale translation after it is copied;
// another thread touching the page meanwhile faults and finds the new
// entry once it has the space's lock. s's share of pa goes; the last
// space left with it takes it in place on its own write fault.
func (s *Space) breakCOW(va uintptr, e *uint64, pa uintptr, p Prot) FaultResult {
	// lab:cow begin
	np := s.A.Get()
	if np == 0 {
		return FaultOOM
	}
	*PageBytes(np) = *PageBytes(pa)
	*e = 0
	flushUserPage(&s.ASID, va)
	*e = userPTE(np, p)
	publish()
	s.A.Unref(pa)
	atomic.AddUint64(&COWCopies, 1)
	return FaultOK
	// lab:cow stub
	// // TODO(lab cow): s wrote to (or the kernel writes for it into) the
	// // frame pa, which another address space shares. Give s a frame of
	// // its own (s.A.Get; none left is FaultOOM) holding pa's bytes
	// // (PageBytes), map it at va with rights p (userPTE) in e, break
	// // before make (flushUserPage with &s.ASID, publish), and drop
	// // s's share of pa (s.A.Unref). Count it in COWCopies.
	// _, _, _ = publish, flushUserPage, COWCopies
	// return FaultAccErr
	// lab:cow end
}

// faultAround is how many pages a first touch maps: the page touched and
// those after it. A Go heap, and most anonymous memory, is touched in
// address order, so one fault serves the next touches too: the
// exception and the kernel lock are paid once per 64 KiB instead of
// once per page (Linux does this for file pages, fault_around_bytes,
// and at a larger grain for anonymous memory with transparent huge
// pages). It costs memory only for pages mapped and never touched.
const faultAround = 16

// faultAroundReserve: fault-around stops while fewer than this share
// (1/8) of memory is free, so it never takes what a touched page needs.
const faultAroundReserve = 8

// mapAround maps, with zeroed pages, the untouched pages after va in
// v, up to faultAround in all, within table, va's last-level table. The
// initial stack, which grows down, is left alone.
func (s *Space) mapAround(v *VMA, va uintptr, table *[512]uint64) {
	if v.Flags&VMAStack != 0 {
		return
	}
	first := index(va, 3)
	for i := uintptr(1); i < faultAround && first+i < uintptr(len(table)); i++ {
		if va+i*PageSize >= v.End || s.A.Total()-s.A.Used() < s.A.Total()/faultAroundReserve {
			return
		}
		e := &table[first+i]
		if *e != 0 {
			return
		}
		pa := s.A.Get()
		if pa == 0 {
			return
		}
		*e = userPTE(pa, v.Prot)
		s.Resident++
	}
}

// UserPage returns the physical page behind addr for a kernel copy,
// faulting it in as the app's own access would.
func (s *Space) UserPage(addr uintptr, acc Access) (uintptr, bool) {
	if addr >= UserTop {
		return 0, false
	}
	if e := s.PT.leaf(nil, PageDown(addr), false); e != nil && *e&descValid != 0 {
		if acc != AccessWrite || Writable(*e) {
			return pteAddr(*e), true
		}
	}
	if s.Fault(addr, acc) != FaultOK {
		return 0, false
	}
	e := s.PT.leaf(nil, PageDown(addr), false)
	return pteAddr(*e), true
}

// PinPage returns the physical page behind addr for a kernel copy of
// acc, faulting it in as the app's own access would, with s pinned on
// core (Pin) when pinned is true: the caller copies, then Unpins. The
// mapping calls run without the kernel lock (Lock says so), so a copy
// made under it is not safe from a munmap on another core between
// finding the frame and writing it, which would then write into a frame
// the allocator has handed to someone else; pinned, no removal or
// restriction (all of which quiesce) can free the frame or take acc
// from it until Unpin. A core already pinned on s (a copy made without
// the kernel lock, which made sure of its pages with Present) is
// covered by that pin, and pinned is false. A page that a change takes
// away between the fault and the pin is faulted in again, or is EFAULT
// if the change removed it.
func (s *Space) PinPage(core int, addr uintptr, acc Access) (pa uintptr, pinned, ok bool) {
	if atomic.LoadUint32(&s.pins[core]) != 0 {
		pa, ok = s.UserPage(addr, acc)
		return pa, false, ok
	}
	if addr >= UserTop {
		return 0, false, false
	}
	for {
		if s.Pin(core) {
			if pa, ok := s.PresentPage(addr, acc); ok {
				return pa, true, true
			}
			s.Unpin(core)
		}
		// Not pinned here: Fault waits for the space's lock, which a
		// change holds while it waits for the pins (quiesce).
		if s.Fault(addr, acc) != FaultOK {
			return 0, false, false
		}
	}
}

// PresentPage returns the physical page behind addr if the app could
// make acc there now without a fault, and never faults one in: a miss
// (no page yet, hidden by PROT_NONE, read-only for a write) is false,
// and the caller takes the locked way (UserPage), which knows which of
// those it is. Unlike UserPage it may run without the kernel lock, for
// it only reads the table: a table page, once linked in, is never freed
// or unlinked (nothing here calls Alloc.Put on one), and the leaf is
// read once, so it is either the entry before a concurrent change or the
// one after. The frame may still be freed by a munmap on another core
// right after this returns; a reader of it then sees stale bytes, as if
// it had read just before the munmap, and must write nothing through it.
func (s *Space) PresentPage(addr uintptr, acc Access) (uintptr, bool) {
	if addr >= UserTop {
		return 0, false
	}
	e := s.PT.leaf(nil, PageDown(addr), false)
	if e == nil {
		return 0, false
	}
	d := atomic.LoadUint64(e)
	if d&descValid == 0 || acc == AccessWrite && !Writable(d) {
		return 0, false
	}
	return pteAddr(d), true
}

// Pin lets core copy app memory with neither the kernel lock nor the
// space's (and PinPage, a copy made under the kernel lock): until Unpin,
// no mapping is removed or restricted (munmap, MADV_DONTNEED, a
// MAP_FIXED over it, mprotect wait in quiesce), so a page found
// present (Present) stays mapped, with its rights, and its frame
// stays the app's. false: such a change is under way, and the caller
// takes the locked way (PinPage: the space's lock, to fault the page
// in). Pinned, a core must not wait for the space's lock, whose holder
// may be in quiesce waiting for the pin, nor for the kernel lock, which
// a locked munmap holds with it.
//
// The two sides are Dekker's: Pin stores its flag then loads changing,
// quiesce stores changing then loads every flag, with a full barrier
// between (fence), so at least one of them sees the other.
func (s *Space) Pin(core int) bool {
	atomic.StoreUint32(&s.pins[core], 1)
	fence()
	if atomic.LoadUint32(&s.changing) != 0 {
		atomic.StoreUint32(&s.pins[core], 0)
		return false
	}
	return true
}

// Unpin ends core's Pin.
func (s *Space) Unpin(core int) { atomic.StoreUint32(&s.pins[core], 0) }

// Present reports whether every page of [addr, addr+n) is mapped for
// acc now (PresentPage), so that a pinned copy through UserPage finds
// each and faults none in.
func (s *Space) Present(addr, n uintptr, acc Access) bool {
	if n == 0 {
		return true
	}
	if addr+n < addr || addr+n > UserTop {
		return false
	}
	for va := PageDown(addr); va < addr+n; va += PageSize {
		if _, ok := s.PresentPage(va, acc); !ok {
			return false
		}
	}
	return true
}

// quiesce begins a change that removes or restricts mappings: it waits
// until no core is pinned, and keeps new pins off until settle.
func (s *Space) quiesce() { s.quiesceOr(true) }

// quiesceOr is quiesce, or, without wait, false at once (and new pins
// let on again) if a core is pinned. A change made without the kernel
// lock must not wait for a pin: a core pinned by a lock-free pipe
// read may be waiting for the pipe's lock, held by a locked read on
// another core that waits for this space's lock to fault a page in.
// The locked way may wait: no holder of the kernel lock is pinned then.
func (s *Space) quiesceOr(wait bool) bool {
	atomic.StoreUint32(&s.changing, 1)
	fence()
	for i := range s.pins {
		for atomic.LoadUint32(&s.pins[i]) != 0 {
			if !wait {
				s.settle()
				return false
			}
		}
	}
	return true
}

// ErrBusy is what a mapping call made without wait answers when it
// would have had to wait for a core pinned on the space (quiesceOr):
// nothing has changed, and the caller takes the locked way. It is no
// errno Linux has.
const ErrBusy = unix.Errno(1 << 16)

// settle ends quiesce.
func (s *Space) settle() { atomic.StoreUint32(&s.changing, 0) }

// dropPages frees every page in [start, end), each only after its
// translation is gone from every core's TLB, and after every pinned
// copy (Pin) is over; false, with nothing done, if that means waiting
// and wait is not set (quiesceOr).
func (s *Space) dropPages(start, end uintptr, wait bool) bool {
	a := s.A
	if !s.quiesceOr(wait) {
		return false
	}
	if end-start <= maxPageFlushes*PageSize {
		// Few pages: each entry cleared, invalidated on every core and
		// its frame freed, page by page.
		s.PT.Visit(start, end, &s.ASID, func(va uintptr, e uint64) uint64 { return 0 }, func(old uint64) {
			if pa := pteAddr(old); pa != 0 && old&descSpecial == 0 {
				a.Unref(pa)
				s.Resident--
			}
		})
		s.settle()
		return true
	}
	// Many: every entry loses its valid bit, one invalidation of the
	// space's ASID on every core follows, and only then are the entries
	// cleared and the frames freed (Linux's __flush_tlb_range gives way
	// to flush_tlb_mm, TLBI ASIDE1IS, past MAX_DVM_OPS pages; under
	// QEMU's TCG each broadcast TLBI stops every vCPU, and munmap of a
	// Go heap arena was 8,192 of them). The other spaces' translations,
	// and the kernel's, stay.
	n := 0
	leaves(s.PT.Root, 0, 0, start, end, func(va uintptr, e *uint64) bool {
		if *e&descValid != 0 {
			*e &^= descValid
			n++
		}
		return true
	})
	if n > 0 {
		flushSpace(&s.ASID)
	}
	leaves(s.PT.Root, 0, 0, start, end, func(va uintptr, e *uint64) bool {
		if pa := pteAddr(*e); pa != 0 && *e&descSpecial == 0 {
			a.Unref(pa)
			s.Resident--
		}
		*e = 0
		return true
	})
	s.settle()
	return true
}

// maxPageFlushes is how many pages a removal invalidates one by one
// before it invalidates the space's whole ASID once instead (Linux's
// MAX_DVM_OPS is PTRS_PER_PTE, 512 with 4 KiB pages; fewer here, since
// a whole flush costs QEMU's TCG about as much as a few page ones).
const maxPageFlushes = 64

// Mmap is mmap under the space's lock.
func (s *Space) Mmap(hint, length uintptr, prot Prot, flags int) (uintptr, unix.Errno) {
	return s.MmapOr(hint, length, prot, flags, true)
}

// MmapOr is Mmap, or ErrBusy when without wait it would wait for a
// pinned core (quiesceOr); so are MunmapOr, MprotectOr and DontNeedOr.
// The mapping calls made without the kernel lock pass no wait.
func (s *Space) MmapOr(hint, length uintptr, prot Prot, flags int, wait bool) (uintptr, unix.Errno) {
	return s.MmapVMA(hint, length, VMA{Prot: prot}, flags, wait)
}

// MmapVMA is MmapOr for a mapping like v (its rights, flags and file;
// Start and End are chosen here): a file mapping is made on the locked
// way only (wait set).
func (s *Space) MmapVMA(hint, length uintptr, v VMA, flags int, wait bool) (uintptr, unix.Errno) {
	s.lock()
	a, e := s.mmap(hint, length, v, flags, wait)
	s.unlock()
	return a, e
}

// mmap implements mmap: anonymous private memory, or a file's pages
// (v.File) faulted in from its page cache (fileFault).
func (s *Space) mmap(hint, length uintptr, v VMA, flags int, wait bool) (uintptr, unix.Errno) {
	if length == 0 || hint&PageMask != 0 && flags&unix.MAP_FIXED != 0 {
		return 0, unix.EINVAL
	}
	n := PageUp(length)
	if n < length || n > UserTop {
		return 0, unix.ENOMEM
	}
	hint = PageDown(hint)
	var addr uintptr
	switch {
	case flags&unix.MAP_FIXED != 0:
		if hint+n > UserTop || hint+n < hint {
			return 0, unix.EINVAL
		}
		if s.VMAs.Overlaps(hint, hint+n, VMAFixed) {
			return 0, unix.EINVAL
		}
		if !wait && s.VMAs.HasFile(hint, hint+n) {
			return 0, ErrBusy // a file's use is given back on the locked way
		}
		addr = hint
		if !s.dropPages(addr, addr+n, wait) {
			return 0, ErrBusy
		}
	case flags&unix.MAP_FIXED_NOREPLACE != 0:
		if hint+n > UserTop || hint+n < hint {
			return 0, unix.EINVAL
		}
		if !s.VMAs.Free(hint, hint+n) {
			return 0, unix.EEXIST
		}
		addr = hint
	default:
		if hint != 0 && hint >= MmapBottom && hint+n <= UserTop && hint+n > hint && s.VMAs.Free(hint, hint+n) {
			addr = hint
		} else if addr = s.VMAs.FindGap(n, MmapBottom, MmapTop); addr == 0 {
			return 0, unix.ENOMEM
		}
	}
	v.Start, v.End = addr, addr+n
	if !s.VMAs.AddVMA(v) {
		return 0, unix.ENOMEM
	}
	return addr, 0
}

// Munmap is munmap under the space's lock.
func (s *Space) Munmap(addr, length uintptr) unix.Errno { return s.MunmapOr(addr, length, true) }

// MunmapOr is Munmap or ErrBusy (MmapOr).
func (s *Space) MunmapOr(addr, length uintptr, wait bool) unix.Errno {
	s.lock()
	e := s.munmap(addr, length, wait)
	s.unlock()
	return e
}

// munmap removes [addr, addr+length).
func (s *Space) munmap(addr, length uintptr, wait bool) unix.Errno {
	if addr&PageMask != 0 || length == 0 {
		return unix.EINVAL
	}
	end := PageUp(addr + length)
	if end > UserTop || end < addr {
		return unix.EINVAL
	}
	if s.VMAs.Overlaps(addr, end, VMAFixed) {
		return unix.EINVAL
	}
	if !wait && s.VMAs.HasFile(addr, end) {
		return ErrBusy
	}
	if !s.dropPages(addr, end, wait) {
		return ErrBusy
	}
	if !s.VMAs.Remove(addr, end) {
		return unix.ENOMEM
	}
	return 0
}

// Mprotect is mprotect under the space's lock.
func (s *Space) Mprotect(addr, length uintptr, prot Prot) unix.Errno {
	return s.MprotectOr(addr, length, prot, true)
}

// MprotectOr is Mprotect or ErrBusy (MmapOr).
func (s *Space) MprotectOr(addr, length uintptr, prot Prot, wait bool) unix.Errno {
	s.lock()
	e := s.mprotect(addr, length, prot, wait)
	s.unlock()
	return e
}

// mprotect changes rights. Existing pages are hidden, not freed, when the
// new rights forbid access, so their contents survive.
func (s *Space) mprotect(addr, length uintptr, prot Prot, wait bool) unix.Errno {
	if addr&PageMask != 0 {
		return unix.EINVAL
	}
	end := PageUp(addr + length)
	if end < addr || end > UserTop {
		return unix.ENOMEM
	}
	if s.VMAs.Overlaps(addr, end, VMAFixed) || prot&ProtWrite != 0 && s.VMAs.Overlaps(addr, end, VMANoWrite) {
		return unix.EACCES
	}
	if !wait && s.VMAs.HasFile(addr, end) {
		return ErrBusy
	}
	// Quiesced before anything changes, so that ErrBusy leaves the
	// VMAs as they were.
	if !s.quiesceOr(wait) {
		return ErrBusy
	}
	if !s.VMAs.Protect(addr, end, prot) {
		s.settle()
		return unix.ENOMEM
	}
	s.PT.Visit(addr, end, &s.ASID, func(va uintptr, e uint64) uint64 {
		if prot == 0 {
			return e &^ descValid // keep the frame, drop the access
		}
		if e&descSpecial != 0 {
			// Read-only, whatever prot says: a write faults, and
			// deviceFault gives the rights the mapping allows (a
			// private one copies the page).
			return devicePTE(pteAddr(e), prot&^ProtWrite)
		}
		return s.pte(pteAddr(e), prot)
	}, nil)
	s.settle()
	return 0
}

// DontNeed is dontNeed under the space's lock.
func (s *Space) DontNeed(addr, length uintptr) unix.Errno { return s.DontNeedOr(addr, length, true) }

// DontNeedOr is DontNeed or ErrBusy (MmapOr).
func (s *Space) DontNeedOr(addr, length uintptr, wait bool) unix.Errno {
	s.lock()
	e := s.dontNeed(addr, length, wait)
	s.unlock()
	return e
}

// dontNeed implements MADV_DONTNEED: the pages go back to the allocator and
// the next touch sees zeroes.
func (s *Space) dontNeed(addr, length uintptr, wait bool) unix.Errno {
	if addr&PageMask != 0 {
		return unix.EINVAL
	}
	end := PageUp(addr + length)
	if end < addr || end > UserTop {
		return unix.EINVAL
	}
	if s.VMAs.Overlaps(addr, end, VMADevice) {
		// A device's memory is not the allocator's to take back
		// (Linux's madvise_dontneed_free_valid_vma refuses VM_PFNMAP).
		return unix.EINVAL
	}
	if !s.dropPages(addr, end, wait) {
		return ErrBusy
	}
	return 0
}

// MapFixedPage is mapFixedPage under the space's lock.
func (s *Space) MapFixedPage(va, pa uintptr, prot Prot) bool {
	s.lock()
	ok := s.mapFixedPage(va, pa, prot)
	s.unlock()
	return ok
}

// mapFixedPage installs a kernel-provided page (the signal trampoline)
// that the app may not unmap or change.
func (s *Space) mapFixedPage(va, pa uintptr, prot Prot) bool {
	if !s.VMAs.Add(va, va+PageSize, prot, VMAFixed) {
		return false
	}
	return s.PT.Map(s.A, va, pa, prot)
}
