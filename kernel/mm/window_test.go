package mm

import (
	"testing"

	"github.com/gometal/gometal/drivers/cpu"
)

// A window maps every page it asks for as kernel data (EL1 read-write,
// EL0 nothing, no execute), in the level-0 entry past the direct map;
// out of memory it maps none and leaks nothing; unmapped, its pages go
// back to the allocator.
func TestWindowMapUnmap(t *testing.T) {
	a := testAlloc(t, 32)
	root := a.Get()
	va := uintptr(cpu.KernBase) + WindowBase + 7*PageSize
	if index(va, 0) != 1 {
		t.Fatalf("window at level-0 index %d, want 1 (past the direct map)", index(va, 0))
	}
	before := a.Used()
	if !MapWindow(a, root, va, 5) {
		t.Fatal("MapWindow failed with memory to spare")
	}
	pt := PageTable{Root: root}
	seen := map[uintptr]bool{}
	for i := 0; i < 5; i++ {
		pa, d, ok := pt.Lookup(va + uintptr(i)*PageSize)
		if !ok || seen[pa] {
			t.Fatalf("page %d: mapped %v, pa %#x repeated %v", i, ok, pa, seen[pa])
		}
		seen[pa] = true
		if d&descAPEL0 != 0 || d&descAPRO != 0 || d&descPXN == 0 || d&descUXN == 0 || d&attrNormal == 0 {
			t.Errorf("page %d: descriptor %#x is not kernel read-write data", i, d)
		}
	}
	tables := a.Used() - before - 5
	UnmapWindow(a, root, va, 5)
	if got := a.Used() - before; got != tables {
		t.Errorf("after unmapping, %d pages in use beyond the %d tables", got-tables, tables)
	}
	if _, _, ok := pt.Lookup(va); ok {
		t.Error("still mapped after UnmapWindow")
	}

	// More pages than are left: nothing stays mapped, nothing leaks.
	used := a.Used()
	if MapWindow(a, root, va, 64) {
		t.Fatal("MapWindow of more pages than exist succeeded")
	}
	if a.Used() != used {
		t.Errorf("a failed MapWindow kept %d pages", a.Used()-used)
	}
	if _, _, ok := pt.Lookup(va); ok {
		t.Error("a failed MapWindow left a page mapped")
	}
}
