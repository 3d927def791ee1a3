package sched

// Silent returns a core that is online, not idle, and has not entered the
// kernel for more than limit counter ticks before now, or -1. A busy core
// takes its timer tick at least every slice (ArmTimer), so such a core has
// stopped answering: stuck at EL1 with interrupts masked, or gone.
func Silent(now, limit uint64, except int) int {
	for i := range CPUs {
		c := &CPUs[i]
		if i == except || !c.Online || c.Idle {
			continue
		}
		if c.Heartbeat != 0 && now > c.Heartbeat && now-c.Heartbeat > limit {
			return i
		}
	}
	return -1
}

// Starved returns a thread that has waited on a run queue for more than
// limit counter ticks before now, or -1. Queues are FIFO (a steal may take
// from the middle, never adding), so each queue's head is its oldest
// thread. A thread runs within SliceNanos times the number queued before
// it; one that waits seconds was lost: on the queue of a core that was
// never told (a missed SGI), or behind a scheduler bug.
func Starved(now, limit uint64) int32 {
	found := int32(-1)
	LockState() // a queue another core's FUTEX_WAKE is changing must not look stale
	for i := range CPUs {
		q := &runQueues[i]
		if q.n == 0 {
			continue
		}
		if t := &Threads[q.head]; now > t.readyAt && now-t.readyAt > limit {
			found = q.head
			break
		}
	}
	UnlockState()
	return found
}

// QueuedOn returns the core whose run queue holds thread i, or -1.
func QueuedOn(i int32) int {
	for c := range CPUs {
		q := &runQueues[c]
		for j, k := q.head, 0; k < q.n; j, k = Threads[j].next, k+1 {
			if j == i {
				return c
			}
		}
	}
	return -1
}
