package kernel

import (
	"gometal/drivers/pl011"
	"gometal/drivers/semihost"
)

// The console: the board's PL011. Until the DTB names it, output goes
// through semihosting so that early boot failures are still visible.

var uart pl011.UART

// quiet (bootarg "quiet") silences the kernel's info log; panics, fault
// reports and the app's own output are always printed.
var quiet bool

var semiBuf [2]byte

func putc(c byte) {
	if uart.Ready() {
		uart.Putc(c)
		return
	}
	semiBuf[0] = c
	semiBuf[1] = 0
	semihost.Write0(&semiBuf[0])
}

func putBytes(b []byte) {
	for _, c := range b {
		putc(c)
	}
}

func puts(s string) {
	for i := 0; i < len(s); i++ {
		putc(s[i])
	}
}

const hexDigits = "0123456789abcdef"

func putHex(v uint64) {
	puts("0x")
	started := false
	for shift := 60; shift >= 0; shift -= 4 {
		d := (v >> uint(shift)) & 0xF
		if d != 0 || started || shift == 0 {
			putc(hexDigits[d])
			started = true
		}
	}
}

func putDec(v int64) {
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
	putBytes(buf[i:])
}

// info starts a kernel log line (suppressed by quiet); the caller ends it
// with infoEnd. Used as: if info("...") { putDec(x); infoEnd() }.
func info(s string) bool {
	if quiet {
		return false
	}
	puts("gometal: ")
	puts(s)
	return true
}

func infoEnd() { putc('\n') }

func logLine(s string) {
	if info(s) {
		infoEnd()
	}
}
