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
)

// UART is one PL011 at a kernel virtual address.
type UART struct {
	base uintptr
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

// Getc returns the next received byte, or false if none is waiting.
func (u *UART) Getc() (byte, bool) {
	if cpu.Read32(u.base+regFR)&frRXFE != 0 {
		return 0, false
	}
	return byte(cpu.Read32(u.base + regDR)), true
}

// EnableRxIRQ asks the UART to raise its interrupt when data arrives.
func (u *UART) EnableRxIRQ() {
	cpu.Write32(u.base+regIMSC, imscRXIM|imscRTIM)
}

// ClearIRQ acknowledges the receive interrupts.
func (u *UART) ClearIRQ() {
	cpu.Write32(u.base+regICR, imscRXIM|imscRTIM)
}
