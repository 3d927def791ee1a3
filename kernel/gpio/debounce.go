package gpio

import "github.com/gometal/gometal/kernel/clock"

// Software debounce, gpiolib-cdev's for a chip that cannot debounce
// (neither the BCM2711 nor the PL061 nor the mockup can): a debounced
// line watches both physical edges whatever its request asked, each
// edge restarts its wait, and when the line has held still for the
// period its level is sampled; a level that differs from the last one
// taken is the line's new value and, if the request watches that edge,
// an event (debounce_irq_handler and debounce_work_func). A value read
// while it waits is the last one taken, as Linux's debounced_value.

// ArmDebounce, set by the kernel, asks for Debounced to run at
// monotonic time when (nanoseconds): one timer serves every line.
var ArmDebounce func(when int64)

// debounceEdge restarts debounced line's wait at an edge.
func debounceEdge(c, line int) {
	l := &Chips[c].Lines[line]
	l.deadline = clock.Monotonic() + int64(l.Debounce)*1000
	if ArmDebounce != nil {
		ArmDebounce(nextDeadline())
	}
}

// Debounced takes the level of every line whose wait ended by now, and
// re-arms the timer for the next; the timer's handler calls it, under
// the kernel lock.
func Debounced(now int64) {
	for c := 0; c < NChips; c++ {
		ch := &Chips[c]
		for line := 0; line < ch.NLines; line++ {
			l := &ch.Lines[line]
			if l.deadline == 0 || l.deadline > now {
				continue
			}
			l.deadline = 0
			high := ch.HW.Get(line)
			if high == l.level {
				continue
			}
			l.level = high
			if l.Req == 0 || l.Flags&Edges == 0 {
				continue
			}
			rising := high != (l.Flags&ActiveLow != 0)
			if l.Flags&Edges != Edges && rising != (l.Flags&EdgeRising != 0) {
				continue // an edge the request does not watch
			}
			put(c, line, rising)
		}
	}
	if next := nextDeadline(); next != 0 && ArmDebounce != nil {
		ArmDebounce(next)
	}
}

// nextDeadline is the earliest wait's end, 0 with none.
func nextDeadline() int64 {
	var d int64
	for c := 0; c < NChips; c++ {
		for line := 0; line < Chips[c].NLines; line++ {
			if w := Chips[c].Lines[line].deadline; w != 0 && (d == 0 || w < d) {
				d = w
			}
		}
	}
	return d
}
