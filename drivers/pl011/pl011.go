// Package pl011 drives the Arm PrimeCell UART (PL011) used as the console
// on QEMU virt and the Raspberry Pi 4. Register offsets are from the
// "PrimeCell UART (PL011) Technical Reference Manual" (Arm DDI 0183), §3.2.
package pl011

import "github.com/gometal/gometal/drivers/cpu"

const (
	regDR   = 0x00 // data register
	regFR   = 0x18 // flag register
	regCR   = 0x30 // control register
	regIMSC = 0x38 // interrupt mask set/clear
	regICR  = 0x44 // interrupt clear

	frTXFF = 1 << 5 // transmit FIFO full
	frRXFE = 1 << 4 // receive FIFO empty

	crUARTEN = 1 << 0
	crTXE    = 1 << 8
	crRXE    = 1 << 9

	imscRXIM = 1 << 4 // receive interrupt
	imscRTIM = 1 << 6 // receive timeout interrupt

	drBE = 1 << 10 // break error: the line was held low (a BREAK), §3.3.1
)

// UART is one PL011 at a kernel virtual address.
type UART struct {
	base uintptr
	brk  bool // a BREAK was received since Break last asked
}

// Init takes over a UART the firmware (or QEMU) has already clocked and
// configured for 115200 8N1; it only makes sure TX and RX are enabled.
func (u *UART) Init(base uintptr) {
	u.base = base
	cpu.Write32(base+regCR, crUARTEN|crTXE|crRXE)
}

// Ready reports whether Init ran.
func (u *UART) Ready() bool { return u.base != 0 }

// Putc writes one byte, waiting while the transmit FIFO is full.
func (u *UART) Putc(c byte) {
	for cpu.Read32(u.base+regFR)&frTXFF != 0 {
	}
	cpu.Write32(u.base+regDR, uint32(c))
}

// Getc returns the next received byte, or false if none is waiting. A
// BREAK (a zero character with DR's break-error bit) is no byte: Break
// reports it.
func (u *UART) Getc() (byte, bool) {
	for cpu.Read32(u.base+regFR)&frRXFE == 0 {
		d := cpu.Read32(u.base + regDR)
		if d&drBE != 0 {
			u.brk = true
			return 0, false // ends this drain: the caller looks at Break
		}
		return byte(d), true
	}
	return 0, false
}

// Break reports, once, whether a BREAK came with the bytes Getc read (a
// serial console's SysRq: Linux's uart_handle_break).
func (u *UART) Break() bool {
	b := u.brk
	u.brk = false
	return b
}

// EnableRxIRQ asks the UART to raise its interrupt when data arrives.
func (u *UART) EnableRxIRQ() {
	cpu.Write32(u.base+regIMSC, imscRXIM|imscRTIM)
}

// ClearIRQ acknowledges the receive interrupts.
func (u *UART) ClearIRQ() {
	cpu.Write32(u.base+regICR, imscRXIM|imscRTIM)
}
