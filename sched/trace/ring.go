package trace

import "github.com/gometal/gometal/drivers/cpu"

// rings are the per-core buffers; ring i is written only by core i.
var rings [cpu.MaxCPUs]ring

type ring struct {
	n  uint64 // events recorded; the next goes to ev[n % RingEvents]
	ev [RingEvents]Event
	// unstamped counts the newest events recorded without their time
	// (RecordLater); the core's next Stamp or Record gives them one.
	unstamped uint64
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
	ts := now()
	r.stamp(ts)
	r.ev[r.n%RingEvents] = Event{TS: ts, Kind: k, Code: code, Num: num, Arg: arg}
	r.n++
}

// RecordLater is Record for a caller that holds a lock other cores spin
// on (the scheduler's state locks): the event is appended now and gets
// its time at the core's next Stamp (when the lock is let go) or
// Record. Under QEMU's TCG reading the counter takes QEMU's global lock,
// and a core waiting for that while holding a state lock holds up every
// core waiting for it: with the time read in place, tracing made
// the cross-core futex and epoll wake-ups it was meant to show twice as
// slow. The time is then the end of the locked section the event
// happened in, a few microseconds late at most, and a core's events
// stay in order.
func RecordLater(core int, k Kind, code uint8, num uint16, arg uint32) {
	if !on {
		return
	}
	r := &rings[core]
	r.ev[r.n%RingEvents] = Event{Kind: k, Code: code, Num: num, Arg: arg}
	r.n++
	r.unstamped++
}

// Stamp gives core's events recorded by RecordLater their time: now.
func Stamp(core int) {
	if !on || rings[core].unstamped == 0 {
		return
	}
	rings[core].stamp(now())
}

// StampAll stamps every core's pending events (at write-out, after
// Disable; a core still inside a locked section may tear one event, as
// it may for a Record at that instant).
func StampAll() {
	ts := now()
	for i := range rings {
		rings[i].stamp(ts)
	}
}

// stamp gives r's unstamped events the time ts.
func (r *ring) stamp(ts uint64) {
	for k := min(r.unstamped, RingEvents, r.n); k > 0; k-- {
		r.ev[(r.n-k)%RingEvents].TS = ts
	}
	r.unstamped = 0
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
		rings[i].n, rings[i].unstamped = 0, 0
	}
	on = false
}

// RecordProc records that thread tid belongs to process pid named comm
// (KindProc).
func RecordProc(core int, tid, pid int32, comm *[16]byte) {
	if !on {
		return
	}
	Record(core, KindProc, 0, 0, uint32(tid))
	Record(core, KindProc, 1, 0, uint32(pid))
	for i := 0; i < 4; i++ {
		c := comm[4*i:]
		Record(core, KindProc, uint8(2+i), 0, uint32(c[0])|uint32(c[1])<<8|uint32(c[2])<<16|uint32(c[3])<<24)
	}
}
