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

// consoleRx drains port p into the terminal.
func consoleRx(p serialPort) {
	// Acknowledge first, then drain: a byte that lands after the last
	// read raises the interrupt again. (Clearing after draining loses the
	// interrupt for a byte that arrives in between, and the reader sleeps
	// with data in the FIFO.)
	p.ClearIRQ()
	var buf [64]byte
	n := 0
	for {
		c, ok := p.Getc()
		if ok {
			buf[n] = c
			n++
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
