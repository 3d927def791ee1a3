package kernel

import (
	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/pl011"
	"github.com/gometal/gometal/drivers/semihost"
)

// The console: every serial port the DTB describes that the kernel can
// drive, each written in turn and each read by its receive interrupt.
// QEMU virt has one PL011. The Raspberry Pi 4 has two: the PL011 (UART0),
// which is QEMU raspi4b's first serial port, and the mini UART (UART1),
// which a real board's header pins 8 and 10 carry with enable_uart=1; a
// person may be watching either.
//
// Until the DTB names a port, output goes through semihosting when the
// host turned it on (bootarg gometal.semihosting=1, which only the CLI's
// QEMU runs pass): on a board, semihosting's HLT traps.

// serialPort is what the console needs of a UART driver.
type serialPort interface {
	Putc(c byte)
	Getc() (byte, bool)
	Break() bool // a BREAK arrived (SysRq's first half)
	EnableRxIRQ()
	ClearIRQ()
}

var (
	uart     pl011.UART
	miniUART bcm2711.MiniUART

	// ports are the console's UARTs, in DTB order; portIRQs[i] is the
	// INTID of ports[i]'s receive interrupt, 0 if it has none.
	ports    [2]serialPort
	portIRQs [2]uint32
	nPorts   int
)

// addPort makes p part of the console; irq is its receive interrupt's
// INTID, 0 for none.
func addPort(p serialPort, irq uint32) {
	if nPorts < len(ports) {
		ports[nPorts] = p
		portIRQs[nPorts] = irq
		nPorts++
	}
}

// quiet (bootarg "quiet") silences the kernel's info log; panics, fault
// reports and the app's own output are always printed.
var quiet bool

// semihosting (bootarg gometal.semihosting=1) says the host answers Arm
// semihosting calls: the run ends with SYS_EXIT, and output before the
// console is known goes to SYS_WRITE0.
var semihosting bool

var semiBuf [2]byte

func putc(c byte) {
	if nPorts == 0 {
		if semihosting {
			semiBuf[0] = c
			semiBuf[1] = 0
			semihost.Write0(&semiBuf[0])
		}
		return
	}
	for i := 0; i < nPorts; i++ {
		ports[i].Putc(c)
	}
}

func PutBytes(b []byte) {
	for _, c := range b {
		putc(c)
	}
}

func Puts(s string) {
	for i := 0; i < len(s); i++ {
		putc(s[i])
	}
}

const hexDigits = "0123456789abcdef"

func PutHex(v uint64) {
	Puts("0x")
	started := false
	for shift := 60; shift >= 0; shift -= 4 {
		d := (v >> uint(shift)) & 0xF
		if d != 0 || started || shift == 0 {
			putc(hexDigits[d])
			started = true
		}
	}
}

func PutDec(v int64) {
	if v < 0 {
		putc('-')
		v = -v
	}
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	PutBytes(buf[i:])
}

// Info starts a kernel log line (suppressed by quiet); the caller ends it
// with infoEnd. Used as: if Info("...") { putDec(x); infoEnd() }.
func Info(s string) bool {
	if quiet {
		return false
	}
	Puts("gometal: ")
	Puts(s)
	return true
}

func InfoEnd() { putc('\n') }

func logLine(s string) {
	if Info(s) {
		InfoEnd()
	}
}
