// Package timer drives the Arm generic timer's EL1 virtual timer (ARM ARM
// D11 "The Generic Timer in AArch64 state"): the monotonic counter every
// clock is built from, and the per-core deadline interrupt.
package timer

import "github.com/gometal/gometal/drivers/cpu"

const (
	ctlEnable = 1 << 0 // CNTV_CTL_EL0.ENABLE (IMASK, bit 1, clear)

	// cntkctlEL0VCTEN lets EL0 read CNTVCT_EL0 and CNTFRQ_EL0 (ARM ARM
	// D13.8.22 CNTKCTL_EL1): the Go runtime reads them in its delay loop.
	cntkctlEL0VCTEN = 1 << 1
	cntkctlEL0PCTEN = 1 << 0
	// The event stream (EVNTEN, with EVNTI selecting the counter bit
	// whose transitions generate events) wakes WFE regularly, so a lock
	// waiter in WFE never sleeps past a lost event: bit 10 of a 62.5 MHz
	// counter changes every ~16 µs.
	cntkctlEVNTEN = 1 << 2
	cntkctlEVNTI  = 10 << 4
)

var freq uint64

// Init records the counter frequency (once, on the boot core).
func Init() { freq = cpu.ReadCNTFRQ() }

// never is a compare value the counter does not reach (at 62.5 MHz, in
// four thousand years): a timer set to it is stopped. 2^63-1, not 2^64-1,
// so that the condition stays false read either way, the Arm ARM's
// unsigned compare or a signed difference.
const never = 1<<63 - 1

// InitCPU opens the counter to EL0 and enables the timer on the calling
// core, stopped (CNTKCTL_EL1, CNTV_CVAL_EL0 and CNTV_CTL_EL0 are per
// core). The timer stays enabled from then on: SetDeadline and Stop
// write only the compare value, one system-register write each, where
// masking and unmasking took two. Under QEMU's TCG each such write
// takes QEMU's global lock and reprograms a host timer.
func InitCPU() {
	cpu.WriteCNTKCTL(cntkctlEL0VCTEN | cntkctlEL0PCTEN | cntkctlEVNTEN | cntkctlEVNTI)
	cpu.WriteCNTVCVAL(never)
	cpu.WriteCNTVCTL(ctlEnable)
}

// Freq is the counter frequency in Hz.
func Freq() uint64 { return freq }

// Now returns the virtual count.
func Now() uint64 { return cpu.ReadCNTVCT() }

// Nanos converts the counter to nanoseconds since it started.
func Nanos() int64 { return TicksToNanos(cpu.ReadCNTVCT()) }

// TicksToNanos converts a count to nanoseconds without overflowing for
// centuries at any realistic frequency.
func TicksToNanos(t uint64) int64 {
	s := t / freq
	r := t % freq
	return int64(s*1e9 + r*1e9/freq)
}

// NanosToTicks converts nanoseconds to counter ticks.
func NanosToTicks(ns int64) uint64 {
	if ns <= 0 {
		return 0
	}
	s := uint64(ns) / 1e9
	r := uint64(ns) % 1e9
	return s*freq + r*freq/1e9
}

// SetDeadline arms this core's timer to fire when the counter reaches t
// (at once if it already has: ARM ARM D11.2.4, the condition is
// CNTVCT_EL0 >= CNTV_CVAL_EL0, evaluated on the write too).
func SetDeadline(t uint64) { cpu.WriteCNTVCVAL(t) }

// Stop stops this core's timer: a compare value never reached takes the
// condition, and with it the level-triggered interrupt, down at once.
func Stop() { cpu.WriteCNTVCVAL(never) }
