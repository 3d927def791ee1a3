package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"
)

// ASIDs (kernel/mm/asid.go holds the allocator and why). A core gives
// the address space it switches to an ASID under asidLock, a lock of
// its own because a core may switch spaces without the kernel lock (a
// thread picked on the way out of an interrupt, finishTrap); it is the
// last lock in the order, taken with nothing after it.
var (
	asids    mm.ASIDs
	asidLock = cpu.Spinlock{Name: "asid", Rank: sched.RankASID}

	// asidBitsArg is gometal.asidbits=N (0: the hardware's width): a
	// tiny ASID space, so that a test sees the generation roll over
	// within a few processes.
	asidBitsArg uint64
)

// initASIDs chooses the ASID width on the boot core, before any other
// core runs: the hardware's (16 bits on the Cortex-A72), or fewer if
// the boot argument asks.
func initASIDs() {
	bits := cpu.ASIDBits()
	if asidBitsArg > 0 && uint(asidBitsArg) < bits {
		bits = uint(asidBitsArg)
	}
	asids.Init(bits)
	mm.UseASIDBits(asids.Bits)
}

// initASIDWidth makes this core's TTBR0 carry 16-bit ASIDs when the
// allocator uses more than 8 bits (every core the same).
func initASIDWidth() {
	if asids.Bits > 8 {
		cpu.UseASIDs16()
	}
}

// switchTTBR0 points this core's TTBR0 at s under s's ASID, which the
// allocator gives it (a new one if its generation ended), dropping the
// core's TLB first if a generation began since its last switch.
func switchTTBR0(c *sched.CPU, s *mm.Space) {
	asidLock.Lock(c.ID)
	old := s.ASID
	asid, flush := asids.Switch(c.ID, &s.ASID)
	asidLock.Unlock()
	if s.ASID != old {
		// A new ID: its store completes before this core's first walk
		// under it (DSB ISH), so that an invalidation by ASID on another
		// core either reads the new ID or comes after a change this
		// core's walks then see (cpu.TLBIPageASID). Linux's __switch_to
		// has a dsb(ish) on every switch; here a new ID is rare.
		cpu.BarrierISH()
	}
	cpu.SwitchTTBR0(uint64(s.PT.Root)|asid<<ttbrASIDShift, flush)
}

// ttbrASIDShift is where TTBR0_EL1 holds the ASID (ARM ARM D13.2.145:
// bits [63:48]).
const ttbrASIDShift = 48

// ASIDRollovers is how many ASID generations began after the first
// (GOMETAL_STATS).
func ASIDRollovers() uint64 { return asids.Rollovers }
