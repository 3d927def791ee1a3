package prof

import (
	"testing"
	"unsafe"
)

// Identical samples are counted once; different ones each have an entry;
// a full table drops and says how many.
func TestTableCountsAndDrops(t *testing.T) {
	if unsafe.Sizeof(Sample{}) != SampleSize {
		t.Fatalf("Sample is %d bytes, the format says %d", unsafe.Sizeof(Sample{}), SampleSize)
	}
	Reset()
	Enable()
	a := Sample{Kind: KindApp, Frames: 2, PC: [MaxFrames]uint64{0x1000, 0x2000}, TID: 3}
	b := a
	b.PC[1] = 0x2004
	Add(0, &a, 1)
	Add(0, &a, 2)
	Add(0, &b, 1)
	Add(1, &a, 5)
	counts := map[uint64]uint64{}
	s, dropped := Table(0)
	for _, e := range s {
		if e.Count != 0 {
			counts[e.PC[1]] = e.Count
		}
	}
	if counts[0x2000] != 3 || counts[0x2004] != 1 || len(counts) != 2 || dropped != 0 {
		t.Errorf("core 0: %v, dropped %d", counts, dropped)
	}
	for i := 0; i < TableEntries; i++ {
		c := a
		c.PC[0] = uint64(i)
		Add(2, &c, 1)
	}
	if _, dropped := Table(2); dropped != TableEntries/4 {
		t.Errorf("a full table dropped %d, want %d", dropped, TableEntries/4)
	}
	Disable()
	Add(3, &a, 1)
	if s, _ := Table(3); s[hash(&a)%TableEntries].Count != 0 {
		t.Error("sampled while off")
	}
}
