package kernel

import (
	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"

	"golang.org/x/sys/unix"
)

// The Raspberry Pi's SPI buses (docs/ARCHITECTURE.md, "The Raspberry
// Pi's devices"): every SPI master the device tree enables (SPI0 is
// disabled until config.txt's dtparam=spi=on, which on QEMU gometal run
// applies itself), numbered as Linux numbers them, each with its two
// native chip selects (CE0, CE1: spidevB.0 and spidevB.1). A message is
// polled under the kernel lock: Begin, its transfers, End.

// MaxSPI bounds the bus numbers (SPI0 to SPI6; 1 and 2 are the AUX
// block's, another controller).
const MaxSPI = 7

// SPIChipSelects is how many native chip selects a bus has.
const SPIChipSelects = 2

// spiOffsets maps a controller's offset in the peripherals to its bus
// (BCM2711 ARM Peripherals §9.2: SPI0 at 0x7e204000, SPI3-6 from
// 0x7e204600 on); 0 marks the AUX ones.
var spiOffsets = [MaxSPI]uintptr{0x204000, 0, 0, 0x204600, 0x204800, 0x204a00, 0x204c00}

var (
	spiBuses [MaxSPI]bcm2711.SPI
	// SPIPresent says which buses the machine has.
	SPIPresent [MaxSPI]bool
)

// spiTimeoutNanos bounds one transfer.
const spiTimeoutNanos = 1_000_000_000

func initSPI() {
	core := coreClock()
	found := false
	for n := dtb.FindCompatible(-1, "brcm,bcm2835-spi"); n >= 0; n = dtb.FindCompatible(n, "brcm,bcm2835-spi") {
		addr, ok := enabledDevice(n)
		if !ok {
			continue
		}
		for k, off := range spiOffsets {
			if off != 0 && addr&0xffffff == off && !SPIPresent[k] {
				spiBuses[k].Init(cpu.KVA(addr), core)
				SPIPresent[k] = true
				found = true
			}
		}
	}
	if found && Info("spi:") {
		for k := range SPIPresent {
			if SPIPresent[k] {
				Puts(" spi")
				PutDec(int64(k))
			}
		}
		Puts(" (core clock ")
		PutDec(int64(core / 1e6))
		Puts(" MHz)")
		InfoEnd()
	}
}

// SPIRate is the clock bus gives a device that asks for hz.
func SPIRate(bus int, hz uint32) uint32 {
	r, _ := spiBuses[bus].Rate(hz)
	return r
}

// SPIBegin starts a message on bus to chip select cs (its mode,
// bcm2711.SPIMode* bits, at hz).
func SPIBegin(bus, cs int, mode uint8, hz uint32) {
	spiBuses[bus].Begin(cs, mode, hz)
}

// SPITransfer clocks n bytes: tx out (nil: zeros), rx in (nil: dropped);
// ETIMEDOUT when they did not come back within a second.
func SPITransfer(bus int, tx, rx []byte, n int) unix.Errno {
	cpu.Progress.Add(1) // waiters on the kernel lock: this is work
	if !spiBuses[bus].Transfer(tx, rx, n, cpu.ReadCNTVCT()+timer.NanosToTicks(spiTimeoutNanos)) {
		return unix.ETIMEDOUT
	}
	return 0
}

// SPIEnd ends the message: the chip deselected.
func SPIEnd(bus int) {
	spiBuses[bus].End(cpu.ReadCNTVCT() + timer.NanosToTicks(spiTimeoutNanos))
}
