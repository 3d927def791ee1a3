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

// An event recorded for later gets its time at the core's next Stamp,
// Record or StampAll: never 0, never before the event recorded ahead of
// it, the same for every event of one locked section; other cores'
// pending events are left alone by a core's Stamp.
func TestRecordLaterIsStampedInOrder(t *testing.T) {
	Reset()
	Enable()
	defer Reset()
	Record(0, KindSyscall, 0, 0, 1)
	RecordLater(0, KindStop, 0, 0, 2)
	RecordLater(0, KindRun, 0, 0, 3)
	RecordLater(1, KindIdle, 0, 0, 4)
	Stamp(0)
	Record(0, KindSysret, 0, 0, 5)
	RecordLater(0, KindIdle, 0, 0, 6)
	Record(0, KindWake, 0, 0, 7)
	RecordLater(0, KindRun, 0, 0, 8)
	ev, _, _ := Ring(0)
	if ev[1].TS == 0 || ev[1].TS != ev[2].TS || ev[1].TS < ev[0].TS || ev[3].TS <= ev[2].TS {
		t.Fatalf("one section's events stamped %d, %d after %d, before %d", ev[1].TS, ev[2].TS, ev[0].TS, ev[3].TS)
	}
	if ev[4].TS != ev[5].TS {
		t.Fatalf("a Record did not stamp the pending event with its own time: %d, %d", ev[4].TS, ev[5].TS)
	}
	if other, _, _ := Ring(1); other[0].TS != 0 {
		t.Fatalf("core 0's Stamp stamped core 1's event (%d)", other[0].TS)
	}
	StampAll()
	other, _, _ := Ring(1)
	if ev, _, _ := Ring(0); ev[6].TS == 0 || other[0].TS == 0 {
		t.Fatalf("StampAll left events unstamped: %d, %d", ev[6].TS, other[0].TS)
	}
}
