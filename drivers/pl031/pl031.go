// Package pl031 reads and sets the Arm PrimeCell real-time clock (PL031),
// which QEMU virt sets to the host's wall-clock time at start. Register offsets from
// Arm DDI 0224 §3.3.
package pl031

import "github.com/gometal/gometal/drivers/cpu"

const (
	regDR = 0x000 // data register: seconds since the Unix epoch
	regLR = 0x008 // load register: a write sets the counter (§3.3.3)
)

// Seconds reads the RTC at the given kernel virtual address.
func Seconds(base uintptr) uint32 { return cpu.Read32(base + regDR) }

// SetSeconds sets it to sec (Linux's pl031_set_time writes RTC_LR).
func SetSeconds(base uintptr, sec uint32) { cpu.Write32(base+regLR, sec) }
