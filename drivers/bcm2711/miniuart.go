package bcm2711

import "github.com/gometal/gometal/drivers/cpu"

// Mini UART registers, as offsets from the brcm,bcm2835-aux-uart node's
// reg (AUX base + 0x40; BCM2711 ARM Peripherals §2.2.2).
const (
	muIO   = 0x00 // AUX_MU_IO_REG: data
	muIER  = 0x04 // AUX_MU_IER_REG: interrupt enables
	muIIR  = 0x08 // AUX_MU_IIR_REG: interrupt identify; writes clear FIFOs
	muLSR  = 0x14 // AUX_MU_LSR_REG: line status
	muCNTL = 0x20 // AUX_MU_CNTL_REG: receiver/transmitter enable

	lsrDataReady = 1 << 0 // at least one byte in the receive FIFO
	lsrTxEmpty   = 1 << 5 // the transmit FIFO can take a byte

	cntlRxEnable = 1 << 0
	cntlTxEnable = 1 << 1

	// iirNoIRQ is set when no interrupt is pending; bits 2:1 then say
	// which one is: 01 transmit FIFO empty, 10 byte received.
	iirNoIRQ  = 1 << 0
	iirIDMask = 3 << 1
	iirIDTx   = 1 << 1

	// Written to IIR: clear the receive (bit 1) and transmit (bit 2) FIFOs.
	iirClearFIFOs = 3 << 1

	// The receive-interrupt enable bit: the manual's table gives bit 1,
	// the hardware (and Linux's 8250 driver, which treats the block as a
	// 16550: IER bit 0 = received data available) uses bit 0, and QEMU's
	// model follows the manual. EnableRxIRQ finds out which it is.
	ierBit0 = 1 << 0
	ierBit1 = 1 << 1
)

// MiniUART is the AUX mini UART (UART1) at a kernel virtual address.
type MiniUART struct {
	base uintptr
}

// Init takes over the mini UART as the firmware left it: with
// enable_uart=1 the Pi firmware has routed GPIO 14/15 to it, fixed the core
// clock it divides and set 115200 8N1 (Linux's earlycon relies on the
// same). Only the receiver and transmitter are switched on here.
func (u *MiniUART) Init(base uintptr) {
	u.base = base
	cpu.Write32(base+muIER, 0)
	// Drop what arrived before the kernel owned the line, so that the
	// probe in EnableRxIRQ sees an empty receiver.
	cpu.Write32(base+muIIR, iirClearFIFOs)
	cpu.Write32(base+muCNTL, cntlRxEnable|cntlTxEnable)
}

// Ready reports whether Init ran.
func (u *MiniUART) Ready() bool { return u.base != 0 }

// Putc writes one byte, waiting while the transmit FIFO is full.
func (u *MiniUART) Putc(c byte) {
	for cpu.Read32(u.base+muLSR)&lsrTxEmpty == 0 {
	}
	cpu.Write32(u.base+muIO, uint32(c))
}

// Getc returns the next received byte, or false if none is waiting.
func (u *MiniUART) Getc() (byte, bool) {
	if cpu.Read32(u.base+muLSR)&lsrDataReady == 0 {
		return 0, false
	}
	return byte(cpu.Read32(u.base + muIO)), true
}

// Break: the mini UART reports no BREAK (BCM2711 peripherals, §2.2.2:
// its LSR has no break bit), so the Pi's console has no serial SysRq.
func (u *MiniUART) Break() bool { return false }

// EnableRxIRQ raises the UART's interrupt while received bytes wait.
// Which IER bit that is differs between the silicon and QEMU (see
// ierBit0), so it tries bit 0 first: if that made the UART report a
// pending "transmit FIFO empty" interrupt, bit 0 is the transmit enable
// here, and bit 1 is the one wanted. (The transmit FIFO is always empty
// at this point, so a transmit enable shows at once; a receive enable
// with nothing received shows nothing.)
func (u *MiniUART) EnableRxIRQ() {
	cpu.Write32(u.base+muIER, ierBit0)
	if iir := cpu.Read32(u.base + muIIR); iir&iirNoIRQ == 0 && iir&iirIDMask == iirIDTx {
		cpu.Write32(u.base+muIER, ierBit1)
	}
}

// ClearIRQ does nothing: the receive interrupt is level-triggered and
// drops by itself once Getc has emptied the FIFO. It exists so the
// console treats both UART kinds alike.
func (u *MiniUART) ClearIRQ() {}
