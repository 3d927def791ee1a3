// Package tty owns the console as a terminal: the line discipline that
// turns received bytes into the app's input (CR to NL, echo, Ctrl-C and
// Ctrl-\ as signals), the input ring, and the console as an open file
// (descriptors 0-2, /dev/console, /dev/tty) with the terminal ioctls Go
// makes. The UARTs are the kernel's: it hands received bytes to Input and
// sets Output and Signal at boot. Builds on the host: go test ./kernel/tty.
package tty

import (
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Echo (bootarg gometal.echo=1, which gometal run passes when its stdin
// is a terminal) makes the console act like a tty in its default mode:
// typed input is echoed, and Ctrl-C and Ctrl-\ send SIGINT and SIGQUIT
// to the app (termios ISIG) instead of reaching it as bytes. Piped input
// is passed as is.
var Echo bool

// Output writes a byte to every console port; Signal sends a signal
// from the terminal (si_code SI_KERNEL, as the tty layer sends it) to
// the foreground process group pgrp, 0 when the console has none (the
// kernel then signals PID 1: kernel/linux's ttySignal). JobControl is
// asked before a read through a description opened as /dev/tty: 0 lets
// the read go on, anything else is its result (EIO, or the read cut
// short by SIGTTIN: n_tty's job_control). The kernel sets them before
// the first byte arrives. Output takes a byte, not a slice: a slice
// passed through a function value escapes, and kernel code must not
// allocate (ARCHITECTURE.md).
var (
	Output     func(c byte)
	Signal     func(pgrp int32, sig int)
	JobControl func() uint64
	// SysRq runs the magic SysRq command c: a BREAK on the serial
	// console, then the command's key (Linux's drivers/tty/sysrq.c,
	// Documentation/admin-guide/sysrq.rst).
	SysRq func(c byte)
)

// sysrqArmed: a BREAK came, so the next byte typed is a SysRq command,
// not input (serial_core's uart_handle_sysrq_char).
var sysrqArmed bool

// Break is what a console port's BREAK does: arms SysRq.
func Break() { sysrqArmed = true }

// The console as a controlling terminal (Linux's tty->ctrl.session,
// tty->ctrl.pgrp and TTY_HUPPED): the session it belongs to and that
// session's foreground process group, 0 when it belongs to none; and
// whether a session leader's exit has hung it up since it was last
// opened (Linux hangs a terminal up once until it is opened again). This
// package knows no processes: these are IDs, and the rules that need
// processes (who may take the console, who is in the background) are
// the Linux layer's (kernel/linux/ctty_arm64.go), under the kernel lock,
// which the receive interrupt that reads Pgrp for Ctrl-C holds too.
var (
	Session, Pgrp int32
	HungUp        bool
)

// The tty's default VINTR and VQUIT characters (termios(3)).
const (
	ttyIntr = 0x03 // Ctrl-C
	ttyQuit = 0x1C // Ctrl-\
)

var (
	rxRing [4096]byte
	rxHead int // next byte to read
	rxTail int // next free slot
)

func rxLen() int { return (rxTail - rxHead + len(rxRing)) % len(rxRing) }

// Reset empties the input ring and forgets the session (host tests; the
// kernel's start empty).
func Reset() {
	rxHead, rxTail = 0, 0
	Session, Pgrp, HungUp = 0, 0, false
	sysrqArmed = false
	viaTTY = [vfs.MaxFiles]bool{}
}

// Input takes bytes a console port received and tells the console's
// waiters (a read that answered EAGAIN, epoll instances) if there is
// input to read. Bytes past a full ring are dropped, as a tty drops them
// past its buffer.
func Input(b []byte) {
	for _, c := range b {
		if sysrqArmed && SysRq != nil {
			sysrqArmed = false
			SysRq(c)
			continue
		}
		if c == '\r' {
			c = '\n' // ICRNL: a terminal's Enter sends CR
		}
		if Echo && (c == ttyIntr || c == ttyQuit) {
			signal(c)
			continue
		}
		if Echo {
			Output(c)
		}
		if rxLen() < len(rxRing)-1 {
			rxRing[rxTail] = c
			rxTail = (rxTail + 1) % len(rxRing)
		}
	}
	if rxLen() > 0 {
		vfs.Notify(&Console.W, unix.EPOLLIN)
	}
}

// signal is what a tty does for VINTR and VQUIT: echo it as ^C or ^\,
// drop the input not yet read (no NOFLSH), and signal the app.
func signal(c byte) {
	sig := int(unix.SIGINT)
	if c == ttyQuit {
		sig = int(unix.SIGQUIT)
	}
	Output('^')
	Output(c + '@')
	Output('\n')
	rxHead = rxTail
	Signal(Pgrp, sig)
}

// takeRx copies up to n buffered bytes to the app.
func takeRx(buf uintptr, n uint64) uint64 {
	var chunk [256]byte
	m := 0
	for uint64(m) < n && m < len(chunk) && rxLen() > 0 {
		chunk[m] = rxRing[rxHead]
		rxHead = (rxHead + 1) % len(rxRing)
		m++
	}
	if !usermem.CopyOut(buf, chunk[:m]) {
		return vfs.Err(unix.EFAULT)
	}
	return uint64(m)
}
