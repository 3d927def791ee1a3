package sched

import "gometal/drivers/timer"

// SliceNanos is the time slice: the longest a thread runs while another
// waits for its core.
const SliceNanos = 10_000_000

// Hooks the kernel package installs: how to take interrupts while idle and
// how to switch address spaces (one app for now, so nothing).
var (
	IdleIRQ func(c *CPU)
)

// Current returns the thread running on c, or nil while idle.
func Current(c *CPU) *Thread {
	if c.Current < 0 {
		return nil
	}
	return &Threads[c.Current]
}

// ExpireTimers wakes every blocked thread whose deadline has passed.
func ExpireTimers(now uint64) {
	for i := range Active() {
		t := &Threads[i]
		if t.State == Blocked && t.Deadline != 0 && t.Deadline <= now {
			Wake(t, t.TimeoutResult)
		}
	}
}

// NextDeadline returns the earliest thread deadline, or 0 for none.
func NextDeadline() uint64 {
	var d uint64
	for i := range Active() {
		t := &Threads[i]
		if t.State == Blocked && t.Deadline != 0 && (d == 0 || t.Deadline < d) {
			d = t.Deadline
		}
	}
	return d
}

// Schedule decides who runs next on c after a kernel entry. f holds the
// current thread's live context; on return it holds the context of the
// thread to run (possibly another one). If nothing is runnable the core
// idles here until something is.
func Schedule(c *CPU, f *Frame) {
	cur := Current(c)
	now := timer.Now()
	if cur != nil {
		switch cur.State {
		case Running:
			if !HasRunnable(c) || now < c.SliceEnd {
				return
			}
			cur.Ctx = *f
			cur.State = Runnable
			runQueues[c.ID].push(c.Current)
		case Blocked, Runnable:
			cur.Ctx = *f
		case Dead:
			cur.State = Free
		}
		c.Current = -1
	}
	for {
		if i := runQueues[c.ID].pop(); i >= 0 {
			t := &Threads[i]
			t.State = Running
			t.CPU = int32(c.ID)
			c.Current = i
			c.SliceEnd = timer.Now() + timer.NanosToTicks(SliceNanos)
			*f = t.Ctx
			return
		}
		idle(c)
	}
}

// idle waits for an interrupt with the timer set to the next deadline.
func idle(c *CPU) {
	if d := NextDeadline(); d != 0 {
		timer.SetDeadline(d)
	} else {
		timer.Stop()
	}
	waitForInterrupt()
	IdleIRQ(c)
}

// ArmTimer programs c's timer before returning to a thread: the earliest
// sleeper's deadline, or the end of the slice if another thread waits.
func ArmTimer(c *CPU) {
	d := NextDeadline()
	if HasRunnable(c) && (d == 0 || c.SliceEnd < d) {
		d = c.SliceEnd
	}
	if d != 0 {
		timer.SetDeadline(d)
	} else {
		timer.Stop()
	}
}
