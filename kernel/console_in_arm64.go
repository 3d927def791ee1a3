package kernel

import (
	"gometal/drivers/gic"
	"gometal/kernel/usermem"
	"gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Console input: a console port's receive interrupt fills a ring and
// notifies the console (vfs.Notify), which wakes a read waiting on it
// (consoleFile.Read answered EAGAIN) and epoll instances watching it.

// consoleEcho (bootarg gometal.echo=1, which gometal run passes when its
// stdin is a terminal) makes the console act like a tty in its default
// mode: typed input is echoed, and Ctrl-C and Ctrl-\ send SIGINT and
// SIGQUIT to the app (termios ISIG) instead of reaching it as bytes.
// Piped input is passed as is.
var consoleEcho bool

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

// consoleRx drains port p into the ring and tells the console's waiters.
func consoleRx(p serialPort) {
	// Acknowledge first, then drain: a byte that lands after the last
	// read raises the interrupt again. (Clearing after draining loses the
	// interrupt for a byte that arrives in between, and the reader sleeps
	// with data in the FIFO.)
	p.ClearIRQ()
	for {
		c, ok := p.Getc()
		if !ok {
			break
		}
		if c == '\r' {
			c = '\n' // ICRNL: a terminal's Enter sends CR
		}
		if consoleEcho && (c == ttyIntr || c == ttyQuit) {
			ttySignal(c)
			continue
		}
		if consoleEcho {
			putc(c)
		}
		if rxLen() < len(rxRing)-1 {
			rxRing[rxTail] = c
			rxTail = (rxTail + 1) % len(rxRing)
		}
	}
	if rxLen() > 0 {
		vfs.Notify(&console.W, unix.EPOLLIN)
	}
}

// ttySignal is what a tty does for VINTR and VQUIT: echo it as ^C or ^\,
// drop the input not yet read (no NOFLSH), and signal the app (si_code
// SI_KERNEL, as the tty layer sends it).
func ttySignal(c byte) {
	sig := sigINT
	if c == ttyQuit {
		sig = sigQUIT
	}
	putc('^')
	putc(c + '@')
	putc('\n')
	rxHead = rxTail
	postProcessSignal(sig, sigInfo{Code: siKERNEL}, nil)
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
		return errno(unix.EFAULT)
	}
	return uint64(m)
}

// initConsoleIRQ turns on the receive interrupt of every console port
// that has one.
func initConsoleIRQ() {
	for i := 0; i < nPorts; i++ {
		if portIRQs[i] != 0 {
			ports[i].EnableRxIRQ()
			gic.Enable(thisCPU().ID, portIRQs[i])
		}
	}
}
