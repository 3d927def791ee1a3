package mm

import (
	"testing"
	"unsafe"
)

// testPages gives the allocator Go memory to play physical memory.
func testAlloc(t *testing.T, pages int) *Alloc {
	PhysOffset = 0
	buf := make([]byte, (pages+1)*PageSize)
	start := PageUp(uintptr(unsafe.Pointer(&buf[0])))
	a := &Alloc{}
	a.AddRange(start, start+uintptr(pages)*PageSize)
	if pages > 8 && !a.InitRefs() {
		t.Fatal("InitRefs")
	}
	t.Cleanup(func() { _ = buf[0] })
	return a
}

func TestAllocZeroAndReuse(t *testing.T) {
	a := testAlloc(t, 4)
	p := a.Get()
	PageBytes(p)[100] = 7
	a.Put(p)
	q := a.Get()
	if q != p || PageBytes(q)[100] != 0 || PageBytes(q)[0] != 0 {
		t.Fatal("freed page not reused zeroed")
	}
	a.Get()
	a.Get()
	a.Get()
	if a.Get() != 0 {
		t.Fatal("allocator handed out more pages than it had")
	}
}

func TestPageTableMapLookupVisit(t *testing.T) {
	a := testAlloc(t, 64)
	var pt PageTable
	pt.Init(a)
	va := uintptr(0x5cc4_0000_0000)
	pg := a.Get()
	if !pt.Map(a, va, pg, ProtRead|ProtWrite) {
		t.Fatal("map failed")
	}
	pa, d, ok := pt.Lookup(va)
	if !ok || pa != pg || !Writable(d) || d&descUXN == 0 || d&descPXN == 0 || d&descAPEL0 == 0 {
		t.Fatalf("lookup %#x %#x %v", pa, d, ok)
	}
	if _, _, ok := pt.Lookup(va + PageSize); ok {
		t.Fatal("neighbour mapped")
	}
	// The walk must follow ARM's index split: level 0 = VA[47:39].
	if index(va, 0) != (va>>39)&511 || index(va, 3) != (va>>12)&511 {
		t.Fatal("index split")
	}
	n := 0
	pt.Visit(0, UserTop, new(uint64), func(v uintptr, e uint64) uint64 {
		if v != va {
			t.Errorf("visited %#x", v)
		}
		n++
		return 0
	}, nil)
	if n != 1 {
		t.Fatalf("visited %d pages", n)
	}
	if _, _, ok := pt.Lookup(va); ok {
		t.Fatal("visit returning 0 did not unmap")
	}
}

func TestKernelMap(t *testing.T) {
	a := testAlloc(t, 16)
	// The Raspberry Pi 4 shape: RAM from 0 with a hole for peripherals at
	// the top of the first 4 GiB.
	rs := []Range{{0, 0x3b400000}, {0x40000000, 0xfc000000}}
	l0 := BuildKernelMap(a, rs)
	l1 := pteAddr(pageWords(l0)[0])
	w1 := pageWords(l1)
	if w1[1]&3 != descBlock || w1[1]&attrNormal == 0 {
		t.Errorf("GiB 1 should be one Normal block: %#x", w1[1])
	}
	if w1[4]&attrNormal != 0 || w1[4]&descPXN == 0 {
		t.Errorf("GiB 4 should be Device: %#x", w1[4])
	}
	if w1[3]&3 != descTable {
		t.Fatalf("GiB 3 mixes RAM and MMIO, needs a table: %#x", w1[3])
	}
	w2 := pageWords(pteAddr(w1[3]))
	if w2[0]&attrNormal == 0 {
		t.Errorf("0xC0000000 is RAM")
	}
	if e := w2[(0xfe000000-0xc0000000)/mib2]; e&attrNormal != 0 || pteAddr(e) != 0xfe000000 {
		t.Errorf("0xFE000000 is MMIO: %#x", e)
	}
}
