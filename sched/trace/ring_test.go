//go:build !arm64

package trace

import (
	"testing"
	"unsafe"
)

func TestEventLayout(t *testing.T) {
	if s := unsafe.Sizeof(Event{}); s != EventSize {
		t.Fatalf("Event is %d bytes, the file says %d", s, EventSize)
	}
}

// Off records nothing; on, a ring keeps the newest RingEvents events,
// oldest first, and counts every one recorded.
func TestRingKeepsNewest(t *testing.T) {
	Reset()
	Record(1, KindIdle, 0, 0, 0)
	if _, _, n := Ring(1); n != 0 {
		t.Fatalf("recorded %d events while off", n)
	}
	Enable()
	defer Reset()
	total := RingEvents + 10
	for i := 0; i < total; i++ {
		Record(1, KindRun, 0, 0, uint32(i))
	}
	first, second, n := Ring(1)
	if n != uint64(total) || len(first)+len(second) != RingEvents {
		t.Fatalf("written %d, kept %d+%d", n, len(first), len(second))
	}
	all := append(append([]Event{}, first...), second...)
	for i, e := range all {
		if want := uint32(total - RingEvents + i); e.Arg != want {
			t.Fatalf("event %d has arg %d, want %d (oldest first)", i, e.Arg, want)
		}
		if i > 0 && e.TS <= all[i-1].TS {
			t.Fatalf("timestamps out of order at %d", i)
		}
	}
	if f, s, n := Ring(0); len(f)+len(s) != 0 || n != 0 {
		t.Error("another core's ring changed")
	}
}
