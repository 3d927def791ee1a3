// Package tty owns the console as a terminal: Linux's n_tty line
// discipline (drivers/tty/n_tty.c) over a termios the app sets with
// TCSETS (canonical lines with erase, kill, word-erase and literal-next,
// echo, Ctrl-C/Ctrl-\/Ctrl-Z as signals, CR/NL mapping, output
// post-processing, VMIN/VTIME reads), and the console as an open file
// (descriptors 0-2, /dev/console, /dev/tty) with the terminal ioctls of
// tty_ioctl.c. The UARTs are the kernel's: it hands received bytes to
// Input and sets the terminal's Out and the package's hooks at boot.
// Builds on the host: go test ./kernel/tty.
package tty

import (
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// bufSize is a terminal's input buffer, a power of two as Linux's
// N_TTY_BUF_SIZE (4096).
const bufSize = 4096

// Terminal is one terminal: its modes (termios, window size), its line
// discipline's state and input buffer, and the function its output goes
// to. The console is the only one today (Console); a pseudo-terminal
// would be another, with its own Out. Fixed arrays only: kernel code
// must not allocate (ARCHITECTURE.md).
type Terminal struct {
	vfs.Base
	Termios unix.Termios
	Winsize unix.Winsize
	// Out writes one byte to the device (the console's UARTs). It takes
	// a byte, not a slice: a slice passed through a function value
	// escapes.
	Out func(c byte)

	// The controlling-terminal state (Linux's tty->ctrl.session,
	// tty->ctrl.pgrp and TTY_HUPPED): the session the terminal belongs
	// to and that session's foreground process group, 0 when it belongs
	// to none; and whether a session leader's exit has hung it up since
	// it was last opened. This package knows no processes: these are
	// IDs, and the rules that need processes are the Linux layer's
	// (kernel/linux/ctty_arm64.go), under the kernel lock, which the
	// receive interrupt that reads Pgrp for Ctrl-C holds too.
	Session, Pgrp int32
	HungUp        bool

	// The input buffer, as n_tty's read_buf: bytes from tail to head
	// are input; in canonical mode only those before canonHead (whole
	// lines) are readable, the rest is the line being edited. delim
	// marks the bytes that end a line (n_tty's read_flags); an EOF
	// character is kept as a NUL so marked (__DISABLED_CHAR).
	buf                   [bufSize]byte
	delim                 [bufSize / 8]byte
	head, tail, canonHead uint32
	lnext                 bool   // the next byte is literal (VLNEXT)
	column                uint32 // the output column, for tabs and erase (n_tty's ldata->column)
	canonColumn           uint32 // the column the line being edited starts at (canon_column)
	lastRx                uint64 // counter value of the last byte received, for VTIME

	W vfs.Waitable

	// pty is the pair a pseudo-terminal's slave belongs to (pty.go);
	// nil for the console.
	pty *Pty
}

// Console is the console terminal; the Pi's mini UART and PL011 both
// feed it.
var Console Terminal

// Signal sends a signal from the terminal (si_code SI_KERNEL, as the
// tty layer sends it) to the foreground process group pgrp, 0 when the
// terminal has none (the kernel then signals PID 1: kernel/linux's
// ttySignal). JobControl is asked before a read through a description
// opened as /dev/tty, and before a write through one when TOSTOP is
// set (write true): 0 lets the call go on, anything else is its result
// (EIO, or the call cut short by SIGTTIN or SIGTTOU: n_tty's
// job_control, and n_tty_write's tty_check_change).
// SysRq runs the magic SysRq command c: a BREAK on the serial console,
// then the command's key (Linux's drivers/tty/sysrq.c).
//
// Now is the counter (timer ticks); TicksPerDecisecond is VTIME's unit
// in them. Wait blocks the calling thread on the terminal's queue until
// deadline (a counter value, 0: none) with done bytes already given to
// it: a wake-up runs the read again, and the deadline ends it with
// timeoutResult (as n_tty_read's wait_woken with a timeout). Resumed
// is the deadline and bytes of the run that waited, when this run of the
// read is a re-run after the wait (else 0, 0). The kernel sets them all before the first byte
// arrives.
var (
	Signal             func(pgrp int32, sig int)
	JobControl         func(write bool) uint64
	SysRq              func(c byte)
	Now                func() uint64
	TicksPerDecisecond uint64
	Wait               func(t *Terminal, deadline, done, timeoutResult uint64)
	Resumed            func() (deadline, done uint64)
)

// sysrqArmed: a BREAK came, so the next byte typed is a SysRq command,
// not input (serial_core's uart_handle_sysrq_char).
var sysrqArmed bool

// Break is what a console port's BREAK does: arms SysRq.
func Break() { sysrqArmed = true }

// The speed the console's termios reports: the UARTs run at 115200
// baud, as Linux's console=ttyAMA0,115200 sets it.
const consoleBaud = unix.B115200

// Init gives t Linux's default modes (tty_std_termios: cooked, with
// echo) when cooked, else the modes piped input needs (raw, no echo, no
// signals, a read returning what has come: VMIN 1, VTIME 0, and no
// output processing so the host gets the app's bytes as written; only
// ICRNL stays, as before). rows and cols are the window size, 0 for
// Linux's default of none.
func (t *Terminal) Init(out func(c byte), cooked bool, rows, cols uint16) {
	t.Out = out
	t.Termios = stdTermios()
	if !cooked {
		t.Termios.Oflag = 0
		t.Termios.Lflag = 0
		t.Termios.Iflag = unix.ICRNL
	}
	t.Winsize = unix.Winsize{Row: rows, Col: cols}
	t.flushInput()
	t.column, t.canonColumn = 0, 0
	t.Session, t.Pgrp, t.HungUp = 0, 0, false
}

// stdTermios is Linux's tty_std_termios (drivers/tty/tty_io.c) with
// INIT_C_CC (include/linux/tty.h), at the console's speed.
func stdTermios() unix.Termios {
	var tio unix.Termios
	tio.Iflag = unix.ICRNL | unix.IXON
	tio.Oflag = unix.OPOST | unix.ONLCR
	tio.Cflag = consoleBaud | unix.CS8 | unix.CREAD | unix.HUPCL
	tio.Lflag = unix.ISIG | unix.ICANON | unix.ECHO | unix.ECHOE | unix.ECHOK | unix.ECHOCTL | unix.ECHOKE | unix.IEXTEN
	tio.Cc[unix.VINTR] = ctrl('C')
	tio.Cc[unix.VQUIT] = ctrl('\\')
	tio.Cc[unix.VERASE] = del
	tio.Cc[unix.VKILL] = ctrl('U')
	tio.Cc[unix.VEOF] = ctrl('D')
	tio.Cc[unix.VMIN] = 1
	tio.Cc[unix.VSTART] = ctrl('Q')
	tio.Cc[unix.VSTOP] = ctrl('S')
	tio.Cc[unix.VSUSP] = ctrl('Z')
	tio.Cc[unix.VREPRINT] = ctrl('R')
	tio.Cc[unix.VDISCARD] = ctrl('O')
	tio.Cc[unix.VWERASE] = ctrl('W')
	tio.Cc[unix.VLNEXT] = ctrl('V')
	tio.Ispeed, tio.Ospeed = consoleBaud, consoleBaud
	return tio
}

// del is ASCII DEL, the erase key's byte and INIT_C_CC's VERASE.
const del = 0x7f

// ctrl is the byte Ctrl with key k types.
func ctrl(k byte) byte { return k & 0x1f }

// Reset gives the console the piped defaults and forgets everything
// (host tests; the kernel's starts so).
func Reset() {
	Console.Init(Console.Out, false, 0, 0)
	sysrqArmed = false
	viaTTY = [vfs.MaxFiles]bool{}
}

// Input takes bytes a console port received: the console's line
// discipline. It runs in the receive interrupt, under the kernel lock.
func Input(b []byte) {
	for _, c := range b {
		if sysrqArmed && SysRq != nil {
			sysrqArmed = false
			SysRq(c)
			continue
		}
		Console.receive(c)
	}
	if Now != nil && len(b) > 0 {
		Console.lastRx = Now()
	}
	if Console.readable(false) {
		vfs.Notify(&Console.W, unix.EPOLLIN)
	}
}
