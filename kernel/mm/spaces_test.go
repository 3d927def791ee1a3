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
