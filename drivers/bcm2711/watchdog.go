package bcm2711

import "github.com/gometal/gometal/drivers/cpu"

// The power-management block's watchdog (the brcm,bcm2835-pm-wdt node's
// first reg). Every write carries the password in its top byte or is
// ignored.
const (
	pmRSTC = 0x1c // reset control
	pmWDOG = 0x24 // watchdog countdown, in 16 µs ticks

	pmPassword        = 0x5a000000
	pmRSTCWrcfgMask   = 0x30 // RSTC.WRCFG: what the watchdog does on expiry
	pmRSTCWrcfgFull   = 0x20 // a full reset of the chip
	pmWDOGTimeMask    = 0x000fffff
	pmResetDelayTicks = 10 // ~160 µs: long enough for the write to land
)

// Reset makes the watchdog reset the whole SoC shortly, the way Linux's
// bcm2835_restart does; on the board the firmware then boots again from
// the SD card. The caller should halt afterwards.
func Reset(pmBase uintptr) {
	cpu.Write32(pmBase+pmWDOG, pmPassword|pmResetDelayTicks&pmWDOGTimeMask)
	rstc := cpu.Read32(pmBase+pmRSTC) &^ pmRSTCWrcfgMask
	cpu.Write32(pmBase+pmRSTC, pmPassword|rstc|pmRSTCWrcfgFull)
}
