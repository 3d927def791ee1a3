package kernel

import (
	"gometal/drivers/gic"
	"gometal/sched"

	"golang.org/x/sys/unix"
)

// Console input: the PL011 receive interrupt fills a ring; a read on
// stdin takes from it or blocks the thread (not the core) until a byte
// arrives.

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

// consoleRx drains port p into the ring and completes a blocked read.
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
	for i := range sched.Active() {
		w := &sched.Threads[i]
		if rxLen() == 0 {
			break
		}
		if w.State == sched.Blocked && w.Wait == sched.WaitRead {
			sched.Wake(w, takeRx(w.WaitArg[0], uint64(w.WaitArg[1])))
		}
	}
	epollNotify()
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
	postProcessSignal(sig, sched.SigInfo{Code: siKERNEL}, nil)
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
	if !copyOut(buf, chunk[:m]) {
		return errno(unix.EFAULT)
	}
	return uint64(m)
}

func consoleRead(t *sched.Thread, fl *file, buf uintptr, n uint64) uint64 {
	if n == 0 {
		return 0
	}
	if rxLen() > 0 {
		return takeRx(buf, n)
	}
	if fl.flags&unix.O_NONBLOCK != 0 {
		return errno(unix.EAGAIN)
	}
	sched.Block(t, sched.WaitRead, 0, 0)
	t.WaitArg[0] = buf
	t.WaitArg[1] = uintptr(n)
	return 0
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
