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

// A fork's copy has every page of the original in frames of its own
// (a write to one is not seen in the other) and the kernel's pages
// shared; tearing both down gives every page back.
func TestCopySpace(t *testing.T) {
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
	c := CopySpace(i)
	if c < 0 {
		t.Fatal("CopySpace")
	}
	d := &Spaces[c]
	cpa, ok := d.UserPage(base, AccessRead)
	if !ok || cpa == pa || PageBytes(cpa)[7] != 42 {
		t.Fatalf("the copy's page: %#x (original %#x), byte %d", cpa, pa, PageBytes(cpa)[7])
	}
	PageBytes(cpa)[7] = 1
	if PageBytes(pa)[7] != 42 {
		t.Error("a write to the copy reached the original")
	}
	if k, _, ok := d.PT.Lookup(0x1000); !ok || k != kpage {
		t.Errorf("the kernel page in the copy: %#x, want %#x", k, kpage)
	}
	s.Put()
	d.Put()
	if LiveSpaces() != 0 || a.Used() != before+1 {
		t.Errorf("after both go: %d spaces, %d pages used, want 0 and %d", LiveSpaces(), a.Used(), before+1)
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
