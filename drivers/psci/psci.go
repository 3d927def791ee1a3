// Package psci starts cores through the Arm Power State Coordination
// Interface (Arm DEN 0022, "PSCI"): the firmware (QEMU's built-in PSCI, or
// TF-A on real boards) powers a core on at a physical entry address. The
// conduit, HVC or SMC, is whatever the DTB's /psci node names in "method".
package psci

// Conduit is how PSCI calls reach the firmware.
type Conduit uint8

const (
	None Conduit = iota // no PSCI: use the spin table
	HVC                 // "hvc": firmware at EL2 (QEMU virt entered at EL1)
	SMC                 // "smc": firmware at EL3 (QEMU virt,virtualization=on)
)

// Function IDs (DEN 0022D §5.1): CPU_ON in the SMC64 calling
// convention; SYSTEM_OFF and SYSTEM_RESET take no arguments (SMC32).
const (
	fnCPUOn64     = 0xC4000003
	fnSystemOff   = 0x84000008
	fnSystemReset = 0x84000009
)

// Return codes (DEN 0022D §5.2.2).
const (
	Success         = 0
	NotSupported    = -1
	InvalidParams   = -2
	Denied          = -3
	AlreadyOn       = -4
	OnPending       = -5
	InternalFailure = -6
	NotPresent      = -7
	Disabled        = -8
	InvalidAddress  = -9
)

// CPUOn powers on the core whose MPIDR affinity is mpidr; it starts at
// physical address entry with MMU and caches off, at the caller's EL or
// the highest non-secure EL, with context in X0 (DEN 0022D §5.6).
func CPUOn(c Conduit, mpidr uint64, entry uintptr, context uint64) int64 {
	return call(c, fnCPUOn64, mpidr, uint64(entry), context)
}

// SystemOff powers the machine off (DEN 0022D §5.10); it returns only
// if the firmware refuses.
func SystemOff(c Conduit) { call(c, fnSystemOff, 0, 0, 0) }

// SystemReset resets the machine (DEN 0022D §5.11); it returns only if
// the firmware refuses.
func SystemReset(c Conduit) { call(c, fnSystemReset, 0, 0, 0) }

// ErrorName names a PSCI return code for the boot log.
func ErrorName(r int64) string {
	switch r {
	case Success:
		return "success"
	case NotSupported:
		return "NOT_SUPPORTED"
	case InvalidParams:
		return "INVALID_PARAMETERS"
	case Denied:
		return "DENIED"
	case AlreadyOn:
		return "ALREADY_ON"
	case OnPending:
		return "ON_PENDING"
	case InternalFailure:
		return "INTERNAL_FAILURE"
	case NotPresent:
		return "NOT_PRESENT"
	case Disabled:
		return "DISABLED"
	case InvalidAddress:
		return "INVALID_ADDRESS"
	}
	return "unknown error"
}

func call(c Conduit, fn, a1, a2, a3 uint64) int64 {
	switch c {
	case HVC:
		return hvc(fn, a1, a2, a3)
	case SMC:
		return smc(fn, a1, a2, a3)
	}
	return NotSupported
}
