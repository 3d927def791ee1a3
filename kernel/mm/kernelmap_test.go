package mm

import "testing"

// TestMapNonCacheable: the Pi's framebuffer region (outside RAM, within
// a GiB that also holds RAM) becomes Normal non-cacheable 2 MiB blocks,
// break-before-make (invalid across the first flush); RAM's blocks stay
// Normal; a GiB that was one Device block is split first.
func TestMapNonCacheable(t *testing.T) {
	a := testAlloc(t, 64)
	root := BuildKernelMap(a, []Range{{0, 0x3c000000}})
	if root == 0 {
		t.Fatal("BuildKernelMap")
	}
	block := func(pa uintptr) uint64 {
		w1 := pageWords(uintptr(pageWords(root)[0] & descAddrMask))
		e := w1[pa/gib]
		if e&3 == descBlock {
			return e
		}
		return pageWords(uintptr(e & descAddrMask))[(pa%gib)/mib2]
	}
	flushes := 0
	var during uint64
	flush := func() {
		flushes++
		if flushes == 1 {
			during = block(0x3c100000)
		}
	}
	if !MapNonCacheable(a, root, 0x3bf00000, 0x600000, flush) {
		t.Fatal("MapNonCacheable failed")
	}
	if flushes != 2 || during != 0 {
		t.Errorf("%d flushes, entry %#x across the first: want 2, invalid", flushes, during)
	}
	for pa, want := range map[uintptr]uint64{0x3be00000: attrNormal, 0x3c000000: attrNormalNC, 0x3c200000: attrNormalNC,
		0x3c400000: attrNormalNC, 0x3c600000: attrDevice, 0x40000000: attrDevice} {
		if got := block(pa) & attrMask; got != want {
			t.Errorf("block at %#x: attr %#x, want %#x", pa, got, want)
		}
	}
	if e := block(0x3c000000); e&^(attrMask|descAddrMask) != kernNC&^attrMask|descBlock || uintptr(e&descAddrMask) != 0x3c000000 {
		t.Errorf("block at 0x3c000000 is %#x", e)
	}
	// A GiB of Device memory (above RAM) is split, and only the block
	// asked for changes.
	if !MapNonCacheable(a, root, 0x140200000, 0x1000, func() {}) {
		t.Fatal("MapNonCacheable above RAM failed")
	}
	if block(0x140200000)&attrMask != attrNormalNC || block(0x140000000)&attrMask != attrDevice || block(0x140400000)&attrMask != attrDevice {
		t.Error("the split GiB's blocks are wrong")
	}
}
