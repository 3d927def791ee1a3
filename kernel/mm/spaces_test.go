package mm

import (
	"testing"

	"github.com/gometal/gometal/drivers/cpu"
	"golang.org/x/sys/unix"
)

// A space that is no longer referenced goes back whole (its pages and
// its page-table pages) once no core holds it, and kernel pages mapped
// into it stay the kernel's.
func TestSpaceTeardown(t *testing.T) {
	if MaxCores > 32 || MaxCores != cpu.MaxCPUs {
		t.Fatalf("OnCores is a 32-bit mask; MaxCores %d", MaxCores)
	}
	a := testAlloc(t, 400)
	Spaces = [MaxSpaces]Space{}
	before := a.Used()
	kpage := a.Get() // a kernel page, as the signal trampoline is
	i := NewSpace(a)
	if i < 0 {
		t.Fatal("NewSpace")
	}
	s := &Spaces[i]
	if s.Refs != 1 || SpaceIndex(s) != i {
		t.Fatalf("refs %d index %d", s.Refs, SpaceIndex(s))
	}
	base, e := s.Mmap(0, 40*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if e != 0 {
		t.Fatal(e)
	}
	for va := base; va < base+40*PageSize; va += 8 * PageSize {
		if s.Fault(va, AccessWrite) != FaultOK {
			t.Fatal("fault")
		}
	}
	s.Mprotect(base, PageSize, 0) // a hidden page still owns its frame
	if !s.MapFixedPage(0x1000, kpage, ProtRead|ProtExec) {
		t.Fatal("MapFixedPage")
	}
	if a.Used() <= before+1 {
		t.Fatal("nothing allocated")
	}
	s.Hold(3)
	s.Put()
	if LiveSpaces() != 1 {
		t.Fatal("a space a core holds was torn down")
	}
	s.Drop(3)
	ReapSpaces()
	if LiveSpaces() != 0 || a.Used() != before+1 {
		t.Errorf("after teardown: %d spaces, %d pages used, want 0 and %d", LiveSpaces(), a.Used(), before+1)
	}
	if j := NewSpace(a); j != i {
		t.Errorf("the slot was not reused: %d", j)
	}
}

// A fork's copy shares every page of the original copy-on-write: the
// same frame, counted twice, read-only in both; the first write from
// either side copies it, the last holder takes it over in place, and
// tearing both down gives every page back. Kernel pages are shared
// uncounted.
func TestCopyOnWrite(t *testing.T) {
	a := testAlloc(t, 400)
	Spaces = [MaxSpaces]Space{}
	before := a.Used()
	kpage := a.Get()
	i := NewSpace(a)
	s := &Spaces[i]
	base, _ := s.Mmap(0, 4*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	s.Fault(base, AccessWrite)
	s.MapFixedPage(0x1000, kpage, ProtRead|ProtExec)
	pa, _ := s.UserPage(base, AccessWrite)
	PageBytes(pa)[7] = 42
	used := a.Used()
	c := CopySpace(i)
	if c < 0 {
		t.Fatal("CopySpace")
	}
	d := &Spaces[c]
	if grew := a.Used() - used; grew > 7 { // a root and 2×3 tables below it
		t.Errorf("fork took %d pages; only page tables were due", grew)
	}
	cpa, ok := d.UserPage(base, AccessRead)
	if !ok || cpa != pa || a.Refs(pa) != 2 {
		t.Fatalf("the copy's page: %#x (original %#x), refs %d", cpa, pa, a.Refs(pa))
	}
	for _, sp := range []*Space{s, d} {
		if _, desc, _ := sp.PT.Lookup(base); Writable(desc) {
			t.Fatal("a shared page is writable")
		}
	}
	// An mprotect keeps a shared page read-only.
	s.Mprotect(base, PageSize, ProtRead|ProtWrite)
	if _, desc, _ := s.PT.Lookup(base); Writable(desc) {
		t.Fatal("mprotect made a shared page writable")
	}
	copies, reuses := COWCopies, COWReuses
	// The child writes: it gets a copy.
	wpa, ok := d.UserPage(base, AccessWrite)
	if !ok || wpa == pa || PageBytes(wpa)[7] != 42 || COWCopies != copies+1 {
		t.Fatalf("the child's write: frame %#x (shared %#x), byte %d, copies %d", wpa, pa, PageBytes(wpa)[7], COWCopies-copies)
	}
	PageBytes(wpa)[7] = 1
	if PageBytes(pa)[7] != 42 || a.Refs(pa) != 1 {
		t.Errorf("after the child's copy: original byte %d, refs %d", PageBytes(pa)[7], a.Refs(pa))
	}
	// The parent writes: the last user takes the frame in place.
	ppa, ok := s.UserPage(base, AccessWrite)
	if !ok || ppa != pa || COWReuses != reuses+1 || COWCopies != copies+1 {
		t.Errorf("the parent's write: frame %#x (want %#x), reuses %d", ppa, pa, COWReuses-reuses)
	}
	if k, _, ok := d.PT.Lookup(0x1000); !ok || k != kpage || a.Refs(kpage) != 1 {
		t.Errorf("the kernel page in the copy: %#x, want %#x (refs %d)", k, kpage, a.Refs(kpage))
	}
	s.Put()
	d.Put()
	if LiveSpaces() != 0 || a.Used() != before+1 {
		t.Errorf("after both go: %d spaces, %d pages used, want 0 and %d", LiveSpaces(), a.Used(), before+1)
	}
}

// xv6's cowtest, on the host: a space holding most of memory forks (in
// a loop), each child's pages go when it does, and a hidden page
// survives the share.
func TestForkMostOfMemory(t *testing.T) {
	a := testAlloc(t, 400)
	Spaces = [MaxSpaces]Space{}
	i := NewSpace(a)
	s := &Spaces[i]
	const n = 300
	base, _ := s.Mmap(0, n*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	for va := base; va < base+n*PageSize; va += PageSize {
		pa, ok := s.UserPage(va, AccessWrite)
		if !ok {
			t.Fatal("fault")
		}
		PageBytes(pa)[0] = byte(va >> PageShift)
	}
	s.Mprotect(base, PageSize, 0)
	used := a.Used()
	for round := 0; round < 50; round++ {
		c := CopySpace(i)
		if c < 0 {
			t.Fatalf("round %d: fork of %d pages failed with %d free", round, n, a.Total()-a.Used())
		}
		d := &Spaces[c]
		// The child writes a few pages, reads the rest.
		for k := uintptr(1); k < n; k++ {
			va := base + k*PageSize
			acc := AccessRead
			if k%50 == 0 {
				acc = AccessWrite
			}
			pa, ok := d.UserPage(va, acc)
			if !ok || PageBytes(pa)[0] != byte(va>>PageShift) {
				t.Fatalf("round %d: child's page %d wrong", round, k)
			}
		}
		d.Put()
		if a.Used() != used {
			t.Fatalf("round %d: %d pages used after the child went, want %d", round, a.Used(), used)
		}
	}
	if s.Mprotect(base, PageSize, ProtRead|ProtWrite) != 0 {
		t.Fatal("mprotect")
	}
	pa, ok := s.UserPage(base, AccessWrite)
	if !ok || PageBytes(pa)[0] != byte(base>>PageShift) {
		t.Error("the hidden page lost its bytes")
	}
}

// A fork that runs out of memory leaves nothing behind: the frames it
// shared count one user again, and the parent writes them in place.
func TestForkOutOfMemory(t *testing.T) {
	a := testAlloc(t, 60)
	Spaces = [MaxSpaces]Space{}
	i := NewSpace(a)
	s := &Spaces[i]
	// Pages spread one per 2 MiB need a level-3 table each in the copy.
	const n = 20
	base := uintptr(MmapBottom)
	for k := uintptr(0); k < n; k++ {
		if _, e := s.Mmap(base+k<<21, PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED); e != 0 {
			t.Fatal(e)
		}
		if _, ok := s.UserPage(base+k<<21, AccessWrite); !ok {
			t.Fatalf("fault %d (%d used of %d)", k, a.Used(), a.Total())
		}
	}
	used := a.Used()
	if c := CopySpace(i); c >= 0 {
		t.Fatalf("fork with %d pages free succeeded", a.Total()-used)
	}
	if a.Used() != used || LiveSpaces() != 1 {
		t.Fatalf("a failed fork left %d pages, %d spaces", a.Used()-used, LiveSpaces())
	}
	for k := uintptr(0); k < n; k++ {
		pa, _, _ := s.PT.Lookup(base + k<<21)
		if a.Refs(pa) != 1 {
			t.Fatalf("page %d: refs %d", k, a.Refs(pa))
		}
	}
}

// Resident follows the pages a space owns: faulted in (with
// fault-around), copied by fork, given back by munmap.
func TestResidentCount(t *testing.T) {
	a := testAlloc(t, 400)
	Spaces = [MaxSpaces]Space{}
	i := NewSpace(a)
	s := &Spaces[i]
	base, _ := s.Mmap(0, 64*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	s.Fault(base, AccessWrite)
	n := s.Resident
	if n < 1 || n > faultAround {
		t.Fatalf("after one fault: %d resident", n)
	}
	c := CopySpace(i)
	if Spaces[c].Resident != n {
		t.Errorf("the copy has %d resident, want %d", Spaces[c].Resident, n)
	}
	s.Munmap(base, 64*PageSize)
	if s.Resident != 0 {
		t.Errorf("after munmap: %d resident", s.Resident)
	}
}

// File mappings: a MAP_SHARED fault maps the page cache's frame itself
// (counted), writable in place even after a fork shares it; a
// MAP_PRIVATE write copies; a fork holds the file once more per VMA and
// teardown gives every use back; UnmapFile takes the pages past an end
// out of every space; a fault off the kernel lock asks for it.
func TestSpaceFileMapping(t *testing.T) {
	a := testAlloc(t, 400)
	Spaces = [MaxSpaces]Space{}
	cache := a.Get() // the file's one page
	PageBytes(cache)[0] = 'f'
	uses := 0
	FileRef = func(file, mnt int32, delta int) { uses += delta }
	FilePage = func(file int32, off uintptr) (uintptr, FaultResult) {
		if off >= PageSize {
			return 0, FaultBus
		}
		return cache, FaultOK
	}
	held := false
	kernelHeld = func() bool { return held }
	defer func() { FileRef, FilePage, kernelHeld = nil, nil, holdsKernel }()

	i := NewSpace(a)
	s := &Spaces[i]
	sh, _ := s.MmapVMA(0, 2*PageSize, VMA{Prot: ProtRead | ProtWrite, Flags: VMAShared, File: 3}, unix.MAP_SHARED, true)
	pr, _ := s.MmapVMA(0, PageSize, VMA{Prot: ProtRead | ProtWrite, File: 3}, unix.MAP_PRIVATE, true)
	if uses != 2 {
		t.Fatalf("uses %d", uses)
	}
	if r := s.Fault(sh, AccessRead); r != FaultLocked {
		t.Fatalf("a file fault off the kernel lock: %d", r)
	}
	held = true
	if s.Fault(sh, AccessWrite) != FaultOK || s.Fault(pr, AccessRead) != FaultOK {
		t.Fatal("fault")
	}
	if pa, _ := s.PresentPage(sh, AccessWrite); pa != cache || a.Refs(cache) != 3 {
		t.Fatalf("shared: frame %#x refs %d", pa, a.Refs(cache))
	}
	if _, ok := s.PresentPage(pr, AccessWrite); ok {
		t.Fatal("a private mapping of the cache's frame is writable")
	}
	if r := s.Fault(sh+PageSize, AccessRead); r != FaultBus {
		t.Fatalf("past the end: %d", r)
	}
	c := CopySpace(i)
	if uses != 4 {
		t.Fatalf("after fork: uses %d", uses)
	}
	d := &Spaces[c]
	if d.Fault(sh, AccessWrite) != FaultOK {
		t.Fatal("child fault")
	}
	if pa, _ := d.PresentPage(sh, AccessWrite); pa != cache {
		t.Fatal("the child's MAP_SHARED write fault copied the page")
	}
	if s.Fault(pr, AccessWrite) != FaultOK {
		t.Fatal("private write")
	}
	if pa, _ := s.PresentPage(pr, AccessWrite); pa == cache || PageBytes(pa)[0] != 'f' {
		t.Fatal("the private write did not copy the page")
	}
	UnmapFile(3, 0)
	if _, ok := d.PresentPage(sh, AccessRead); ok || a.Refs(cache) != 1 {
		t.Fatalf("UnmapFile left the page: refs %d", a.Refs(cache))
	}
	s.Put()
	d.Put()
	ReapSpaces()
	if uses != 0 {
		t.Fatalf("after teardown: uses %d", uses)
	}
}

// mremap grows in place when the space after is free, moves the pages
// (the same frames) when it is not, shrinks, and moves to a fixed
// address; a file mapping keeps its offset and its use of the file.
func TestSpaceMremap(t *testing.T) {
	a := testAlloc(t, 400)
	Spaces = [MaxSpaces]Space{}
	uses := 0
	FileRef = func(file, mnt int32, delta int) { uses += delta }
	defer func() { FileRef = nil }()
	s := &Spaces[NewSpace(a)]
	base, _ := s.Mmap(0, PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	s.Fault(base, AccessWrite)
	pa, _ := s.PresentPage(base, AccessRead)
	if r, e := s.Mremap(base, PageSize, 2*PageSize, 0, 0); e != 0 || r != base || s.VMAs.Len() != 1 || s.VMAs.At(0).End != base+2*PageSize {
		t.Fatalf("grow in place: %#x %v %+v", r, e, s.VMAs.v[:s.VMAs.n])
	}
	s.Mmap(base+2*PageSize, PageSize, ProtRead, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
	if _, e := s.Mremap(base, 2*PageSize, 4*PageSize, 0, 0); e != unix.ENOMEM {
		t.Fatalf("grow into a mapping without MAYMOVE: %v", e)
	}
	r, e := s.Mremap(base, 2*PageSize, 4*PageSize, unix.MREMAP_MAYMOVE, 0)
	if e != 0 || r == base {
		t.Fatalf("move: %#x %v", r, e)
	}
	if got, ok := s.PresentPage(r, AccessRead); !ok || got != pa {
		t.Fatal("the page did not move with its mapping")
	}
	if _, ok := s.VMAs.Find(base); ok {
		t.Fatal("the old range is still mapped")
	}
	if _, e := s.Mremap(r, PageSize, PageSize, unix.MREMAP_FIXED, base); e != unix.EINVAL {
		t.Fatalf("MREMAP_FIXED without MAYMOVE: %v", e)
	}
	f, _ := s.MmapVMA(0, 4*PageSize, VMA{Prot: ProtRead, Flags: VMAShared, File: 5, Off: 8 * PageSize}, unix.MAP_SHARED, true)
	to := uintptr(0x7000_0000_0000)
	if m, e := s.Mremap(f+PageSize, 2*PageSize, PageSize, unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED, to); e != 0 || m != to {
		t.Fatalf("fixed move: %#x %v", m, e)
	}
	if v, ok := s.VMAs.Find(to); !ok || v.Off != 9*PageSize || v.End != to+PageSize || uses != 3 {
		t.Fatalf("moved file mapping: %+v uses %d", v, uses)
	}
	s.Put()
	ReapSpaces()
	if uses != 0 {
		t.Fatalf("uses after teardown: %d", uses)
	}
}
