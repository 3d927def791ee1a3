package trace

import "github.com/gometal/gometal/drivers/cpu"

// rings are the per-core buffers; ring i is written only by core i.
var rings [cpu.MaxCPUs]ring

type ring struct {
	n  uint64 // events recorded; the next goes to ev[n % RingEvents]
	ev [RingEvents]Event
}

// on is set at boot when tracing was asked for and cleared before the
// rings are written out. Off, each hook costs this one load and branch.
var on bool

// Enable turns tracing on (at boot, before other cores run).
func Enable() { on = true }

// Disable stops recording, so the rings hold still while written out.
func Disable() { on = false }

// On reports whether tracing is on.
func On() bool { return on }

// Record appends an event to core's ring.
func Record(core int, k Kind, code uint8, num uint16, arg uint32) {
	if !on {
		return
	}
	r := &rings[core]
	r.ev[r.n%RingEvents] = Event{TS: now(), Kind: k, Code: code, Num: num, Arg: arg}
	r.n++
}

// Ring returns core's events oldest first, as two runs (the second
// empty until the ring has wrapped), and how many were recorded in all.
func Ring(core int) (first, second []Event, written uint64) {
	r := &rings[core]
	if r.n <= RingEvents {
		return r.ev[:r.n], nil, r.n
	}
	start := r.n % RingEvents
	return r.ev[start:], r.ev[:start], r.n
}

// Reset empties every ring (host tests).
func Reset() {
	for i := range rings {
		rings[i].n = 0
	}
	on = false
}
