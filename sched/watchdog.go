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
