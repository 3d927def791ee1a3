package kernel

import (
	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"

	"golang.org/x/sys/unix"
)

// The Raspberry Pi's I2C buses (docs/ARCHITECTURE.md, "The Raspberry
// Pi's devices"): every BSC controller the device tree enables, numbered
// as the Pi's Linux numbers them (i2c-1 is the header's pins 3 and 5),
// driven by drivers/bcm2711 one transfer at a time under the kernel
// lock, polled: a transfer at 100 kHz takes about 100 µs a byte.

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
		InfoEnd()
	}
}

// I2CTransfer moves buf to (read: from) the slave at addr on bus,
// answering as Linux's i2c-bcm2835 does: 0, EREMOTEIO when the slave did
// not acknowledge, EIO when it stretched the clock too long, ETIMEDOUT
// when the transfer did not end. Under the kernel lock.
func I2CTransfer(bus int, addr uint16, read bool, buf []byte) unix.Errno {
	if bus < 0 || bus >= MaxI2C || !I2CPresent[bus] {
		return unix.ENXIO
	}
	cpu.Progress.Add(1) // waiters on the kernel lock: this is work
	deadline := cpu.ReadCNTVCT() + timer.NanosToTicks(i2cTimeoutNanos)
	switch i2cBuses[bus].Transfer(addr, read, buf, deadline) {
	case bcm2711.I2CNack:
		return unix.EREMOTEIO
	case bcm2711.I2CStretch:
		return unix.EIO
	case bcm2711.I2CTimeout:
		return unix.ETIMEDOUT
	}
	return 0
}
