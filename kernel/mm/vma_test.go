package mm

import "testing"

func TestVMAAddMergeRemove(t *testing.T) {
	var l VMAList
	l.Add(0x10000, 0x20000, ProtRead, 0)
	l.Add(0x20000, 0x30000, ProtRead, 0)
	if l.Len() != 1 || l.At(0).End != 0x30000 {
		t.Fatalf("adjacent equal VMAs not merged: %+v", l.v[:l.n])
	}
	l.Add(0x18000, 0x19000, ProtRead|ProtWrite, 0)
	if l.Len() != 3 {
		t.Fatalf("middle insert: %+v", l.v[:l.n])
	}
	if v, ok := l.Find(0x18800); !ok || v.Prot != ProtRead|ProtWrite {
		t.Fatalf("Find: %+v %v", v, ok)
	}
	l.Remove(0x14000, 0x2c000)
	if l.Len() != 2 || l.At(0).End != 0x14000 || l.At(1).Start != 0x2c000 {
		t.Fatalf("remove: %+v", l.v[:l.n])
	}
	if _, ok := l.Find(0x20000); ok {
		t.Fatal("removed address still found")
	}
	if !l.Free(0x14000, 0x2c000) || l.Free(0x13000, 0x15000) {
		t.Fatal("Free wrong")
	}
}

func TestVMAProtect(t *testing.T) {
	var l VMAList
	l.Add(0x100000, 0x200000, 0, 0)
	if !l.Protect(0x140000, 0x150000, ProtRead|ProtWrite) {
		t.Fatal("protect failed")
	}
	if l.Len() != 3 {
		t.Fatalf("split: %+v", l.v[:l.n])
	}
	if l.Protect(0x1f0000, 0x210000, ProtRead) {
		t.Fatal("protect over a hole must fail")
	}
	if v, _ := l.Find(0x1f8000); v.Prot != 0 {
		t.Fatal("failed protect changed something")
	}
	l.Protect(0x100000, 0x200000, 0)
	if l.Len() != 1 {
		t.Fatalf("re-merge: %+v", l.v[:l.n])
	}
}

func TestVMAFindGap(t *testing.T) {
	var l VMAList
	top := uintptr(0x1000000)
	a := l.FindGap(0x10000, 0x10000, top)
	if a != top-0x10000 {
		t.Fatalf("empty: %#x", a)
	}
	l.Add(a, top, ProtRead, 0)
	b := l.FindGap(0x10000, 0x10000, top)
	if b != a-0x10000 {
		t.Fatalf("second: %#x", b)
	}
	l.Add(0x10000, a, ProtRead, 0)
	if g := l.FindGap(0x1000, 0x10000, top); g != 0 {
		t.Fatalf("full space gave %#x", g)
	}
}
