package mm

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A first touch maps the page and up to faultAround-1 after it in its
// VMA: not past the VMA's end, not past a page already there, never
// before the page touched; and not at all when memory runs short.
func TestFaultAround(t *testing.T) {
	present := func(s *Space, va uintptr) bool {
		_, _, ok := s.PT.Lookup(va)
		return ok
	}
	a := testAlloc(t, 400)
	var s Space
	if !s.Init(a) {
		t.Fatal("Init")
	}
	base, e := s.Mmap(0, 40*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if e != 0 {
		t.Fatal(e)
	}
	// Page 20 first, then page 2: page 2's run stops at page 20.
	if s.Fault(base+20*PageSize+5, AccessWrite) != FaultOK || s.Fault(base+2*PageSize, AccessRead) != FaultOK {
		t.Fatal("faults")
	}
	for i := uintptr(0); i < 40; i++ {
		want := i >= 2 && i < 2+faultAround || i >= 20 && i < 20+faultAround
		if got := present(&s, base+i*PageSize); got != want {
			t.Errorf("page %d: present %v, want %v", i, got, want)
		}
	}
	// Page 38: two pages left in the VMA, and the mapping after it is
	// not touched.
	after, _ := s.Mmap(base+40*PageSize, 4*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
	if s.Fault(base+38*PageSize, AccessWrite) != FaultOK {
		t.Fatal("fault 38")
	}
	if !present(&s, base+39*PageSize) || present(&s, after) {
		t.Errorf("page 39 present %v (want true), next VMA's first page %v (want false)", present(&s, base+39*PageSize), present(&s, after))
	}

	// Two pages before a last-level table's end (2 MiB): the run stops
	// at the table's end, though the VMA goes on.
	const tableSpan = 512 * PageSize
	edge := uintptr(0x4000_0000)
	if _, e := s.Mmap(edge-4*PageSize, 8*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED); e != 0 || edge%tableSpan != 0 {
		t.Fatal("mmap across a table's end", e)
	}
	if s.Fault(edge-2*PageSize, AccessWrite) != FaultOK {
		t.Fatal("fault before the table's end")
	}
	if !present(&s, edge-PageSize) || present(&s, edge) {
		t.Errorf("last page of the table present %v (want true), first of the next table %v (want false)", present(&s, edge-PageSize), present(&s, edge))
	}

	// Short of memory: only the page touched.
	small := testAlloc(t, 40)
	var s2 Space
	s2.Init(small)
	b2, _ := s2.Mmap(0, 20*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	for small.Total()-small.Used() >= small.Total()/faultAroundReserve {
		small.Get()
	}
	if s2.Fault(b2, AccessWrite) != FaultOK || !present(&s2, b2) || present(&s2, b2+PageSize) {
		t.Errorf("short of memory: page 0 present %v, page 1 %v; want only page 0", present(&s2, b2), present(&s2, b2+PageSize))
	}
}
