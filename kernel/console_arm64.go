package kernel

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/pl011"
	"github.com/gometal/gometal/drivers/semihost"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/klog"
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

// The bootarg "quiet" keeps the kernel's info lines off the console
// (klog.ConsoleLevel 4, as Linux's "quiet"): they still go to the kernel
// log (dmesg). Panics, fault reports and the app's own output are always
// printed.

// logShown: the kernel-log line being written (klog.Writing) goes to the
// console too.
var logShown bool

// semihosting (bootarg gometal.semihosting=1) says the host answers Arm
// semihosting calls: the run ends with SYS_EXIT, and output before the
// console is known goes to SYS_WRITE0.
var semihosting bool

var semiBuf [2]byte

func putc(c byte) {
	if klog.Writing() {
		klog.Byte(c)
		if !logShown {
			return
		}
	}
	fbconPutc(c)
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

// putHexDigits prints v as exactly n lower-case hex digits (n ≤ 16),
// without 0x: an SD card's RCA, the Pi's board revision and serial.
func putHexDigits(v uint64, n int) {
	var b [16]byte
	for i := n - 1; i >= 0; i-- {
		b[i] = hexDigits[v&0xf]
		v >>= 4
	}
	PutBytes(b[:n])
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

// Info starts a kernel log line at KERN_INFO: a record of the kernel log
// (kernel/klog, what dmesg shows), printed on the console after
// "gometal: " unless the console's level hides it (quiet). The caller
// ends it with InfoEnd. Used as: if Info("...") { PutDec(x); InfoEnd() }
// (it answers true: the record is always kept).
func Info(s string) bool { return Log(klog.LevelInfo, s) }

// Log is Info at another level: klog.LevelErr for what a user must see
// even with quiet (an out-of-memory kill).
func Log(level uint8, s string) bool {
	logShown = level < klog.ConsoleLevel
	if logShown {
		Puts("gometal: ")
	}
	klog.Begin(level)
	Puts(s)
	return true
}

func InfoEnd() {
	putc('\n')
	klog.End()
}

// logTime is klog.Now: microseconds since boot, as printk's timestamps.
func logTime() uint64 { return uint64(clock.Monotonic() / 1000) }

func logLine(s string) {
	if Info(s) {
		InfoEnd()
	}
}

// logWoken is the kernel log's next sequence number when its readers
// were last woken (OS.LogWritten).
var logWoken atomic.Uint64

// logWritten wakes the log's readers, from a timer interrupt on any
// core, if records were added since they were last woken: a line
// written anywhere reaches a blocked `dmesg -w` within a tick (a
// second at most, the boot core's idle tick: sched.WatchdogNanos).
// The compare-and-swap makes one core of those that see it do it.
func logWritten() {
	n, w := klog.Next(), logWoken.Load()
	if n != w && OS.LogWritten != nil && logWoken.CompareAndSwap(w, n) {
		OS.LogWritten()
	}
}
