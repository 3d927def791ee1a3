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

// A file mapping keeps its file offset through splits, merges only
// with a VMA that continues the same file at the next offset, and holds
// one use of its file per VMA (FileRef).
func TestVMAFileRanges(t *testing.T) {
	uses := map[int32]int{}
	FileRef = func(file, mnt int32, delta int) { uses[file] += delta }
	defer func() { FileRef = nil }()
	var l VMAList
	const f = 7
	l.AddVMA(VMA{Start: 0x10000, End: 0x20000, Prot: ProtRead, Flags: VMAShared, File: f, Off: 0x3000})
	if uses[f] != 1 {
		t.Fatalf("uses after mmap: %d", uses[f])
	}
	// A hole in the middle: two VMAs, the tail at its own offset.
	l.Remove(0x14000, 0x15000)
	if l.Len() != 2 || l.At(1).Start != 0x15000 || l.At(1).Off != 0x8000 || uses[f] != 2 {
		t.Fatalf("split: %+v uses %d", l.v[:l.n], uses[f])
	}
	// Filled again with the file at the offset that continues both: one VMA.
	l.AddVMA(VMA{Start: 0x14000, End: 0x15000, Prot: ProtRead, Flags: VMAShared, File: f, Off: 0x7000})
	if l.Len() != 1 || l.At(0).Off != 0x3000 || l.At(0).End != 0x20000 || uses[f] != 1 {
		t.Fatalf("merge: %+v uses %d", l.v[:l.n], uses[f])
	}
	// The same file at another offset, or anonymous memory, does not merge.
	l.AddVMA(VMA{Start: 0x20000, End: 0x21000, Prot: ProtRead, Flags: VMAShared, File: f, Off: 0})
	l.Add(0x21000, 0x22000, ProtRead, VMAShared)
	if l.Len() != 3 || uses[f] != 2 {
		t.Fatalf("no merge: %+v uses %d", l.v[:l.n], uses[f])
	}
	// mprotect of the front: the rest keeps its offset.
	l.Protect(0x10000, 0x12000, ProtRead|ProtWrite)
	if l.At(0).Off != 0x3000 || l.At(1).Start != 0x12000 || l.At(1).Off != 0x5000 || uses[f] != 3 {
		t.Fatalf("protect: %+v uses %d", l.v[:l.n], uses[f])
	}
	if !l.HasFile(0x11000, 0x11001) || l.HasFile(0x21000, 0x22000) {
		t.Fatal("HasFile wrong")
	}
	// The front cut off: its use goes, the rest starts further in.
	l.Remove(0x10000, 0x13000)
	if l.At(0).Start != 0x13000 || l.At(0).Off != 0x6000 || uses[f] != 2 {
		t.Fatalf("front removed: %+v uses %d", l.v[:l.n], uses[f])
	}
	l.Remove(0, 0x30000)
	if l.Len() != 0 || uses[f] != 0 {
		t.Fatalf("all removed: %+v uses %d", l.v[:l.n], uses[f])
	}
}
