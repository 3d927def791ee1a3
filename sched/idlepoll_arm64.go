package sched

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
)

// Polling the last stretch of an idle wait instead of halting through it.
//
// A core with nothing to run waits in WFI for its timer, and the timer's
// interrupt reaches a halted core late by however long the platform takes
// to wake it. Under QEMU's TCG that is long: the timer is a host timer of
// QEMU's main loop, whose callback then wakes the halted vCPU's thread,
// two host wake-ups on a busy host (a kernel trace on the 2-core test
// host put it at a median of 88 µs, more than the whole kernel path of a
// time.Sleep(1ms)). On a Pi 4 it is a few µs. Linux's guests meet the same
// wall and answer it the same way (drivers/cpuidle/cpuidle-haltpoll.c,
// and the menu governor's polling state): when the wait is short, poll
// rather than halt.
//
// Here each core learns how late its timer wakes it (an average of the
// last wake-ups, learnLate), arms its timer that much before a deadline
// further off than that (the window), and when that early timer wakes
// it, polls the counter until the deadline instead of halting again. A
// deadline is never taken early: a thread's wait ends only once the
// counter has passed it, as before. Where the timer is punctual (real
// hardware) the window stays under pollMinNanos and nothing changes.
//
// A wait that is short from its start (the Go runtime's sysmon sleeps
// 20 µs at a time while it watches system calls) is halted through as
// before, not polled: polled, it would spin its vCPU the whole time, and
// under TCG with more vCPUs than host cores that host time is taken from
// the cores with work (a futex ping-pong between two cores ran 25%
// slower when every short wait polled). Only the stretch between an
// early wake-up and its deadline is polled: half the lateness, on
// average, per wait longer than the window.
//
// The poll reads ISR_EL1, which shows a pending interrupt (a wake-up SGI,
// the timer arriving on time) without QEMU's global lock, and only every
// pollSpins reads the counter, which takes it.

const (
	// pollMaxNanos bounds the window, and with it the host CPU a core
	// burns per idle wait: a host so busy that its timer comes later
	// than this is better served by halting.
	pollMaxNanos = 200_000
	// pollMinNanos: a window below this is not worth polling for.
	pollMinNanos = 5_000
	// lateShift sets the average's weight of one wake-up (1/8, as TCP's
	// smoothed round-trip time, RFC 6298 §2).
	lateShift = 3
	// pollSpins is how many ISR_EL1 reads the poll makes between two
	// counter reads (a few µs under TCG).
	pollSpins = 64
)

// pollWindow is how long before a deadline c arms its timer: half as
// much again as the timer's average lateness, so that most wake-ups
// come before the deadline, within pollMaxNanos.
func pollWindow(c *CPU) uint64 {
	w := c.timerLate + c.timerLate/2
	if w < timer.NanosToTicks(pollMinNanos) {
		return 0
	}
	return min(w, timer.NanosToTicks(pollMaxNanos))
}

// idleTimer decides how c waits for its next deadline d (0: none): it
// returns when to arm the timer (d, or d less the window; 0 for no
// deadline) and whether to poll instead of halting, which it does only
// for the deadline it armed the timer early for, once in its window.
func idleTimer(c *CPU, d uint64) (at uint64, poll bool) {
	w := pollWindow(c)
	early := c.earlyFor
	c.earlyFor = 0
	switch {
	case d == 0:
		return 0, false
	case d == early && d <= c.Heartbeat+w:
		return d, true
	case w != 0 && d > c.Heartbeat+w:
		c.earlyFor = d
		return d - w, false
	}
	return d, false
}

// learnLate takes the lateness of a WFI that woke at c.Heartbeat with
// its timer armed for at (one that woke before at was woken by
// something else and says nothing). A wake-up later than pollMaxNanos
// counts as that much: it says the host is busy, not by how much the
// next will be late, and one descheduled vCPU must not hold the
// average up for long.
func learnLate(c *CPU, at uint64) {
	if at == 0 || c.Heartbeat < at {
		return
	}
	late := min(c.Heartbeat-at, timer.NanosToTicks(pollMaxNanos))
	c.timerLate = c.timerLate - c.timerLate>>lateShift + late>>lateShift
}

// pollUntil waits, IRQs masked, until an interrupt is pending or the
// counter reaches d, the deadline c's timer is armed for. Then it
// rewrites the timer: the counter being past its compare value, the
// write raises the timer's interrupt at once (QEMU evaluates the
// condition on the write, ARM ARM D11.2.4), which the caller takes like
// any other.
func pollUntil(c *CPU, d uint64) {
	c.Stats.Polls++
	for {
		for i := 0; i < pollSpins; i++ {
			if cpu.ReadISR() != 0 {
				return
			}
		}
		if timer.Now() >= d {
			timer.SetDeadline(d)
			return
		}
	}
}
