package bcm2711

import "github.com/gometal/gometal/drivers/cpu"

// The BSC ("Broadcom Serial Controller") I2C masters: BCM2711 ARM
// Peripherals chapter 3, and Linux's drivers/i2c/busses/i2c-bcm2835.c
// for what the manual leaves out. A transfer is one message: the slave
// address, a length, and the bytes through a 16-byte FIFO, ended by a
// stop; the controller reports DONE, a NACK (ERR) or a slave that held
// the clock too long (CLKT).
const (
	bscC    = 0x00 // control
	bscS    = 0x04 // status
	bscDLEN = 0x08 // data length
	bscA    = 0x0c // slave address
	bscFIFO = 0x10
	bscDIV  = 0x14 // clock divider (the core clock's)
	bscCLKT = 0x1c // clock-stretch timeout, in SCL cycles

	bscCEnable = 1 << 15 // I2CEN
	bscCStart  = 1 << 7  // ST: start a transfer
	bscCClear  = 1 << 4  // CLEAR: empty the FIFO
	bscCRead   = 1 << 0  // READ: a read transfer

	bscSClockTimeout = 1 << 9 // CLKT
	bscSErr          = 1 << 8 // ERR: the slave did not acknowledge
	bscSRXD          = 1 << 5 // the FIFO holds data
	bscSTXD          = 1 << 4 // the FIFO can take data
	bscSDone         = 1 << 1 // DONE
	bscSActive       = 1 << 0 // TA

	// bscClockStretch is the CLKT value Linux's driver programs
	// (35 ms at 100 kHz: the SMBus timeout).
	bscClockStretch = 35 * 100 // in SCL cycles at 100 kHz, scaled in Init
	bscMaxLen       = 0xffff   // DLEN is 16 bits
)

// I2CErr is how a transfer ended.
type I2CErr uint8

const (
	I2COK      I2CErr = iota
	I2CNack           // the address or a byte was not acknowledged (Linux: EREMOTEIO)
	I2CStretch        // the slave held SCL past CLKT (Linux: EIO)
	I2CTimeout        // no DONE before the deadline (Linux: ETIMEDOUT)
)

// BSC is one controller at base (a kernel address).
type BSC struct {
	base uintptr
	Hz   uint32 // the bus clock it was set to
}

// Init sets the controller at base up for a bus clock of busHz from a
// core clock of coreHz, as i2c-bcm2835's set_rate does: the divider
// rounded up and even (the manual: "DIV ... always rounded down to an
// even number"), so the bus never runs faster than asked.
func (b *BSC) Init(base uintptr, coreHz, busHz uint32) {
	*b = BSC{base: base}
	if busHz == 0 {
		busHz = 100_000
	}
	div := (coreHz + busHz - 1) / busHz
	if div&1 != 0 {
		div++
	}
	div = min(max(div, 2), 0xfffe)
	b.Hz = coreHz / div
	cpu.Write32(base+bscDIV, div)
	cpu.Write32(base+bscCLKT, uint32(uint64(bscClockStretch)*uint64(b.Hz)/100_000))
	cpu.Write32(base+bscC, 0)
}

// Transfer moves len(buf) bytes to (or, read, from) the slave at addr
// (7-bit), polling the controller until the stop or deadline (a
// counter value). A zero-length transfer is an address probe (SMBus's
// quick command).
func (b *BSC) Transfer(addr uint16, read bool, buf []byte, deadline uint64) I2CErr {
	if len(buf) > bscMaxLen {
		return I2CNack
	}
	cpu.Write32(b.base+bscC, bscCClear)
	cpu.Write32(b.base+bscS, bscSClockTimeout|bscSErr|bscSDone) // write 1 to clear
	cpu.Write32(b.base+bscA, uint32(addr))
	cpu.Write32(b.base+bscDLEN, uint32(len(buf)))
	c := uint32(bscCEnable | bscCStart)
	if read {
		c |= bscCRead
	}
	cpu.Write32(b.base+bscC, c)
	k := 0
	for {
		s := cpu.Read32(b.base + bscS)
		// Move what the FIFO allows before asking whether it ended: the
		// last bytes of a read are in the FIFO when DONE comes.
		for read && k < len(buf) && s&bscSRXD != 0 {
			buf[k] = byte(cpu.Read32(b.base + bscFIFO))
			k++
			s = cpu.Read32(b.base + bscS)
		}
		for !read && k < len(buf) && s&bscSTXD != 0 {
			cpu.Write32(b.base+bscFIFO, uint32(buf[k]))
			k++
			s = cpu.Read32(b.base + bscS)
		}
		switch {
		case s&bscSErr != 0:
			b.stop(s)
			return I2CNack
		case s&bscSClockTimeout != 0:
			b.stop(s)
			return I2CStretch
		case s&bscSDone != 0 && (!read || k == len(buf)):
			b.stop(s)
			return I2COK
		}
		if cpu.ReadCNTVCT() > deadline {
			b.stop(s)
			return I2CTimeout
		}
	}
}

// stop clears the status and the FIFO and disables the controller until
// the next transfer.
func (b *BSC) stop(s uint32) {
	cpu.Write32(b.base+bscS, s&(bscSClockTimeout|bscSErr|bscSDone))
	cpu.Write32(b.base+bscC, bscCClear)
}
