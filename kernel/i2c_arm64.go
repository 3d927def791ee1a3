package kernel

import (
	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/gic"
)

// The Raspberry Pi's I2C buses (docs/ARCHITECTURE.md, "The Raspberry
// Pi's devices"): every BSC controller the device tree enables, numbered
// as the Pi's Linux numbers them (i2c-1 is the header's pins 3 and 5),
// driven by drivers/bcm2711. A transfer is a list of messages chained
// by repeated starts and ended by a stop (Linux's i2c_transfer), one at
// a time on the machine (i2c_job.go: the controllers share one
// interrupt). A thread's transfer is driven by that interrupt while the
// thread sleeps (about 100 µs a byte at 100 kHz); the kernel's own (the
// RTC's) is polled under the kernel lock.

// MaxI2C bounds the bus numbers (BSC0 to BSC6 on the BCM2711).
const MaxI2C = 7

// i2cBusOf maps a controller's offset in the peripherals to its bus
// number (BCM2711 ARM Peripherals §3.2: BSC0 at 0x7e205000, BSC1 at
// 0x7e804000, BSC2 (HDMI's) at 0x7e805000, BSC3-6 at 0x7e205600 on).
var i2cOffsets = [MaxI2C]uintptr{0x205000, 0x804000, 0x805000, 0x205600, 0x205800, 0x205a00, 0x205c00}

var (
	i2cBuses [MaxI2C]bcm2711.BSC
	// I2CPresent says which buses the machine has.
	I2CPresent [MaxI2C]bool
	// i2cIRQ is the controllers' interrupt (one GIC SPI for all of
	// them in the BCM2711's device tree), 0 if the tree gives none:
	// then every transfer is polled.
	i2cIRQ uint32
)

// i2cCompatibles are the device-tree compatibles of the BSC.
var i2cCompatibles = [...]string{"brcm,bcm2711-i2c", "brcm,bcm2835-i2c"}

// i2cTimeoutNanos bounds one transfer (i2c-dev's default adapter
// timeout, one second).
const i2cTimeoutNanos = 1_000_000_000

// defaultCoreHz is the core clock (the BSC's and the SPI masters') when
// the firmware does not say: the Pi 4's, 500 MHz with the default
// config.txt.
const defaultCoreHz = 500_000_000

// coreClock is the VPU core clock the firmware reports, the clock the
// BSC and SPI dividers divide.
func coreClock() uint32 {
	if Board.Present {
		propValue = [bcm2711.PropWords]uint32{}
		propValue[0] = bcm2711.ClockCore
		if v, ok := propertyWith(bcm2711.TagClockRate, 8); ok && v[1] != 0 {
			return v[1]
		}
	}
	return defaultCoreHz
}

func initI2C() {
	core := coreClock()
	found := false
	for _, compat := range i2cCompatibles {
		for n := dtb.FindCompatible(-1, compat); n >= 0; n = dtb.FindCompatible(n, compat) {
			addr, ok := enabledDevice(n)
			if !ok {
				continue
			}
			bus := -1
			for k, off := range i2cOffsets {
				if addr&0xffffff == off {
					bus = k
				}
			}
			if bus < 0 || I2CPresent[bus] {
				continue
			}
			hz, _ := dtb.PropU32(n, "clock-frequency")
			i2cBuses[bus].Init(cpu.KVA(addr), core, hz)
			I2CPresent[bus] = true
			found = true
			if typ, num, _, ok := dtb.Interrupt(n, 0); ok && typ == dtIRQSPI && i2cIRQ == 0 {
				i2cIRQ = num + spiBase
				gic.Enable(ThisCPU().ID, i2cIRQ)
			}
		}
	}
	if found && Info("i2c:") {
		for k := range I2CPresent {
			if I2CPresent[k] {
				Puts(" i2c-")
				PutDec(int64(k))
				Puts(" (")
				PutDec(int64(i2cBuses[k].Hz / 1000))
				Puts(" kHz)")
			}
		}
		if i2cIRQ == 0 {
			Puts(", polled (no interrupt in the device tree)")
		}
		InfoEnd()
	}
}
