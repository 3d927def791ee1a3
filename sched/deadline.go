package sched

import "github.com/gometal/gometal/drivers/cpu"

// Each core's earliest thread deadline, kept instead of searched for.
// A core arms its timer for the earliest deadline of the threads blocked
// on it (and of its alarms) every time it leaves the kernel (ArmTimer) or
// goes idle, which used to mean a scan of the whole thread table on every
// locked system call's way out, with the kernel lock held.
//
// The cache is a lower bound: it is never later than the earliest
// deadline of the core's blocked threads, so a timer armed for it never
// fires late. Block lowers it; a thread that stops waiting before its
// deadline (woken, or its wait cancelled) can only make it too early, and
// marks it stale when it may have been that earliest one. A stale value,
// or one already past, is recomputed by a scan of the table (for that
// core only) the next time it is asked for: after an early wake-up, not
// on every exit. A thread that dies blocked leaves its deadline in the
// cache until it passes, which costs at most one timer interrupt.
//
// Like the state of the threads that live on it, a core's cache is
// guarded by that core's state lock (statelock.go).

// coreDeadline is one core's cached earliest deadline (0: none).
type coreDeadline struct {
	at    uint64
	stale bool
}

var coreDeadlines [cpu.MaxCPUs]coreDeadline

// deadlineCore is the core whose cache holds t's deadline, or -1.
func deadlineCore(t *Thread) int {
	if t.CPU < 0 || int(t.CPU) >= len(coreDeadlines) {
		return -1
	}
	return int(t.CPU)
}

// noteDeadline records t's deadline, just set by Block.
func noteDeadline(t *Thread) {
	core := deadlineCore(t)
	if t.Deadline == 0 || core < 0 {
		return
	}
	if d := &coreDeadlines[core]; d.at == 0 || t.Deadline < d.at {
		d.at = t.Deadline
	}
}

// dropDeadline notes that t no longer waits for its deadline; the caller
// then clears it.
func dropDeadline(t *Thread) {
	core := deadlineCore(t)
	if t.Deadline == 0 || core < 0 {
		return
	}
	if d := &coreDeadlines[core]; t.Deadline <= d.at {
		d.stale = true
	}
}

// threadDeadline returns the earliest deadline of the threads blocked on
// core (0: none), recomputing it if the cache is stale or past now.
func threadDeadline(core int, now uint64) uint64 {
	d := &coreDeadlines[core]
	if d.stale || d.at != 0 && d.at <= now {
		d.at, d.stale = scanDeadlines(core), false
	}
	return d.at
}

// scanDeadlines is the earliest deadline of the threads blocked on core,
// found the long way.
func scanDeadlines(core int) uint64 {
	var at uint64
	for i := range Active() {
		t := &Threads[i]
		if t.State == Blocked && t.Deadline != 0 && int(t.CPU) == core && (at == 0 || t.Deadline < at) {
			at = t.Deadline
		}
	}
	return at
}
