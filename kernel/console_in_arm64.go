package kernel

import (
	"github.com/gometal/gometal/drivers/gic"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/tty"
)

// Console input: a console port's receive interrupt drains the port and
// hands the bytes to the terminal (kernel/tty), which buffers them and
// notifies the console's readers and epoll watchers.

// consoleIRQ handles interrupt id if it is a console port's: it reports
// whether it was.
func consoleIRQ(id uint32) bool {
	for i := 0; i < nPorts; i++ {
		if portIRQs[i] != 0 && portIRQs[i] == id {
			consoleRx(ports[i])
			return true
		}
	}
	return false
}

// consoleRx drains port p into the terminal. A drain that ends inside a
// key's escape sequence waits for the rest (tty.KeySeq): QEMU's multiplexed
// stdio (the chardev that gives gometal run its Ctrl-A escapes) feeds
// the UART one byte per main-loop turn, so without the wait a raw-mode
// line editor could be woken with ESC alone and take it for the Esc key
// and "[A" for typing. Linux hides the same gaps by accident: its UART
// interrupt hands bytes to the line discipline later, from a work queue
// (tty_flip_buffer_push).
func consoleRx(p serialPort) {
	// Acknowledge first, then drain: a byte that lands after the last
	// read raises the interrupt again. (Clearing after draining loses the
	// interrupt for a byte that arrives in between, and the reader sleeps
	// with data in the FIFO.)
	p.ClearIRQ()
	var buf [64]byte
	n := 0
	var esc tty.KeySeq
	var deadline uint64
	for {
		c, ok := p.Getc()
		if ok {
			buf[n] = c
			n++
			esc.Next(c)
			deadline = 0
		}
		if !ok && esc.Open() && n < len(buf) {
			// The rest of the sequence is on its way: wait for it,
			// briefly (an Esc key pressed alone waits it out).
			now := timer.Now()
			if deadline == 0 {
				deadline = now + timer.NanosToTicks(escWaitNanos)
			}
			if now < deadline {
				continue
			}
			esc = tty.KeySeq{}
		}
		if n == len(buf) || !ok && n > 0 {
			tty.Input(buf[:n])
			n = 0
		}
		if !ok && p.Break() {
			tty.Break() // the next byte is a SysRq command
			continue
		}
		if !ok {
			return
		}
	}
}

// escWaitNanos bounds consoleRx's wait for the rest of an escape
// sequence: QEMU's next byte comes within tens of microseconds, a few
// milliseconds on a loaded host.
const escWaitNanos = 5_000_000

// The console's boot modes: consoleCooked (bootarg gometal.echo=1,
// which gometal run passes when its stdin is a terminal) gives it
// Linux's default termios, cooked with echo; piped input is passed raw.
// consoleRows and consoleCols (gometal.rows=, gometal.cols=: the host
// terminal's size) are its window size.
var (
	consoleCooked            bool
	consoleRows, consoleCols uint16
)

// nanosPerDecisecond is VTIME's unit (termios(3): tenths of a second).
const nanosPerDecisecond = 100_000_000

// InitConsoleIRQ connects the terminal to the console ports and turns on
// the receive interrupt of every port that has one.
func InitConsoleIRQ() {
	tty.Now = timer.Now
	tty.TicksPerDecisecond = timer.NanosToTicks(nanosPerDecisecond)
	tty.Console.Init(putc, consoleCooked, consoleRows, consoleCols)
	for i := 0; i < nPorts; i++ {
		if portIRQs[i] != 0 {
			ports[i].EnableRxIRQ()
			gic.Enable(ThisCPU().ID, portIRQs[i])
		}
	}
}
