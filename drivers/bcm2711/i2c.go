package bcm2711

import "github.com/gometal/gometal/drivers/cpu"

// The BSC ("Broadcom Serial Controller") I2C masters: BCM2711 ARM
// Peripherals chapter 3, and Linux's drivers/i2c/busses/i2c-bcm2835.c
// for what the manual leaves out. A message is the slave address, a
// length, and the bytes through a 16-byte FIFO; the controller raises
// its interrupt when the FIFO wants bytes (TXW), has bytes (RXR) or the
// message is done (DONE), each as the control register enables it, and
// reports a NACK (ERR) or a slave that held the clock too long (CLKT).
// A message started while the previous one's last bytes are still in
// the FIFO follows it with a repeated start instead of a stop (the
// manual's §3.3, and Linux's "Add support for Repeated Start
// Condition"). The transfer's logic, message to message, is the
// kernel's (kernel/i2cxfer_arm64.go); these are the controller's steps.
const (
	bscC    = 0x00 // control
	bscS    = 0x04 // status
	bscDLEN = 0x08 // data length
	bscA    = 0x0c // slave address
	bscFIFO = 0x10
	bscDIV  = 0x14 // clock divider (the core clock's)
	bscCLKT = 0x1c // clock-stretch timeout, in SCL cycles

	bscCEnable = 1 << 15 // I2CEN
	bscCIntRX  = 1 << 10 // INTR: interrupt while RXR
	bscCIntTX  = 1 << 9  // INTT: interrupt while TXW
	bscCIntDn  = 1 << 8  // INTD: interrupt on DONE
	bscCStart  = 1 << 7  // ST: start a transfer
	bscCClear  = 1 << 4  // CLEAR: empty the FIFO
	bscCRead   = 1 << 0  // READ: a read transfer

	// Status bits (S), exported for the kernel's interrupt handler.
	BSCClockTimeout = 1 << 9 // CLKT
	BSCErr          = 1 << 8 // ERR: the slave did not acknowledge
	BSCRXR          = 1 << 3 // the FIFO needs reading (¾ full, or the transfer's last bytes)
	BSCTXW          = 1 << 2 // the FIFO needs writing (under ¼ full, bytes still to come)
	BSCRXD          = 1 << 5 // the FIFO holds data
	bscSTXD         = 1 << 4 // the FIFO can take data
	BSCDone         = 1 << 1 // DONE
	bscSActive      = 1 << 0 // TA

	// bscClockStretch is the CLKT value Linux's driver programs
	// (35 ms at 100 kHz: the SMBus timeout).
	bscClockStretch = 35 * 100 // in SCL cycles at 100 kHz, scaled in Init
	// BSCMaxLen is the longest message: DLEN is 16 bits.
	BSCMaxLen = 0xffff
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

// Start begins a message of n bytes to (read: from) the slave at addr
// (7-bit), as i2c-bcm2835's start_transfer: with irq, the controller
// interrupts when its FIFO wants serving, and, for the transfer's last
// message, when it is done. A message started while the previous one
// is still active follows it with a repeated start. A zero-length
// message is an address probe (SMBus's quick command).
//
// DONE is cleared first: a controller that ended the previous message
// with a stop (QEMU's, which models no repeated start) would otherwise
// show this one done before it began.
func (b *BSC) Start(addr uint16, read bool, n int, irq, last bool) {
	cpu.Write32(b.base+bscS, BSCDone)
	cpu.Write32(b.base+bscA, uint32(addr))
	cpu.Write32(b.base+bscDLEN, uint32(n))
	c := uint32(bscCEnable | bscCStart)
	if read {
		c |= bscCRead
	}
	if irq {
		if read {
			c |= bscCIntRX
		} else {
			c |= bscCIntTX
		}
		if last {
			c |= bscCIntDn
		}
	}
	cpu.Write32(b.base+bscC, c)
}

// Status is the status register.
func (b *BSC) Status() uint32 { return cpu.Read32(b.base + bscS) }

// Fill writes buf's bytes into the FIFO while it takes them and
// returns how many it wrote (bcm2835_fill_txfifo).
func (b *BSC) Fill(buf []byte) int {
	k := 0
	for k < len(buf) && cpu.Read32(b.base+bscS)&bscSTXD != 0 {
		cpu.Write32(b.base+bscFIFO, uint32(buf[k]))
		k++
	}
	return k
}

// Drain reads the FIFO's bytes into buf while it has them and returns
// how many it read (bcm2835_drain_rxfifo).
func (b *BSC) Drain(buf []byte) int {
	k := 0
	for k < len(buf) && cpu.Read32(b.base+bscS)&BSCRXD != 0 {
		buf[k] = byte(cpu.Read32(b.base + bscFIFO))
		k++
	}
	return k
}

// Stop ends the transfer, as the interrupt handler's completion does:
// the FIFO cleared, the interrupts off, the status's sticky bits
// cleared.
func (b *BSC) Stop() {
	cpu.Write32(b.base+bscC, bscCClear)
	cpu.Write32(b.base+bscS, BSCClockTimeout|BSCErr|BSCDone)
}
