package kernel

import "github.com/gometal/gometal/drivers/cpu"

// SecondaryBoot is read by boot's secondaryEntry before its MMU is on;
// the offsets below are used by that assembly (secondaryboot_test.go pins them against this struct and the assembly).
type SecondaryBoot struct {
	TTBR0 uint64               // boot identity map, for the MMU-on step
	TTBR1 uint64               // the kernel's direct map
	MPIDR [cpu.MaxCPUs]uint64  // affinity of core i (Aff3 | Aff2..0)
	CPU   [cpu.MaxCPUs]uintptr // &sched.CPUs[i]: TPIDR_EL1 and g
	SP    [cpu.MaxCPUs]uintptr // initial stack: below the trap frame
}

const (
	SecondaryOffTTBR0 = 0
	SecondaryOffTTBR1 = 8
	SecondaryOffMPIDR = 16
	SecondaryOffCPU   = 16 + 8*cpu.MaxCPUs
	SecondaryOffSP    = 16 + 16*cpu.MaxCPUs
)
