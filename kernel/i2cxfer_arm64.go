package kernel

import (
	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// An I2C transfer: a list of messages, each started as the one before
// hands its last bytes to the FIFO, so that the controller joins them
// with a repeated start and ends the last with a stop, as Linux's
// i2c-bcm2835 runs i2c_transfer. Its steps are i2c-bcm2835's interrupt
// handler (service): on an error, the end; on DONE, the last bytes read
// and the end; on TXW, the FIFO filled and, the message written, the
// next one started; on RXR, the FIFO drained.
//
// A thread's transfer (I2CStart) is the machine's one transfer in
// flight, i2cXfer: the thread sleeps on i2cDone while the interrupt
// drives it, and its call runs again to take the result (I2CBegin),
// the read bytes left where the messages point. Another thread's call
// meanwhile sleeps on i2cFree, as on Linux's bus lock. The kernel's own
// transfers (the RTC's) are polled (I2CTransfer), after driving a
// thread's transfer in flight to its end the same way. Under the
// kernel lock, as the interrupt handler is.

// I2CMsg is a message: the slave's 7-bit address, the direction, and
// the bytes written or to be read.
type I2CMsg struct {
	Addr uint16
	Read bool
	Buf  []byte
}

// i2cXferState is where a transfer is.
type i2cXferState uint8

const (
	xferIdle i2cXferState = iota
	xferRunning
	xferDone
)

// i2cLenErr marks a transfer whose byte counts and the controller's
// disagreed (Linux's BCM2835_I2C_S_LEN): EIO.
const i2cLenErr = 1 << 31

// i2cOrphan owns a transfer whose thread has exited: its end makes the
// controller free (I2CAbandon).
const i2cOrphan = -1

// i2cXfer is a transfer and its progress.
type i2cXfer struct {
	bus      int
	msgs     []I2CMsg
	cur, pos int  // the message on the bus, and the bytes of it moved
	irq      bool // driven by the interrupt, else polled
	state    i2cXferState
	status   uint32 // the status bits it ended with: BSCErr, BSCClockTimeout, i2cLenErr; 0 done
	timedOut bool
	owner    int32  // the thread's index+1, or i2cOrphan
	deadline uint64 // a counter value: ETIMEDOUT past it
}

var (
	xfer    i2cXfer     // the threads' transfer
	i2cDone sched.Queue // its owner waits for its end
	i2cFree sched.Queue // other threads wait for the controller
)

// I2CStep is what I2CBegin tells a call.
type I2CStep uint8

const (
	I2CFree    I2CStep = iota // no transfer of the caller's: it may start one (I2CStart)
	I2CWaiting                // the caller sleeps; its call returns, and runs again
	I2CDone                   // the caller's transfer ended, with the errno given
)

// I2CBegin is the first step of a call that makes a transfer, in each
// of its runs: the end of t's transfer if this run follows it (its
// errno, and the read bytes in the buffers its messages gave), or
// I2CWaiting while it runs or another thread's does, or I2CFree.
func I2CBegin(t *sched.Thread) (I2CStep, unix.Errno) {
	me := sched.Index(t) + 1
	x := &xfer
	if x.owner == i2cOrphan {
		// An exited thread's transfer: the threads waiting for the
		// controller drive it to its end.
		x.drive()
		if x.owner != 0 {
			x.sleep(t, &i2cFree)
			return I2CWaiting, 0
		}
	}
	if x.owner == me {
		if !t.Retried {
			// A fresh call while t owns a transfer: an earlier call
			// ended without taking it (the restart model allows none,
			// but a stale transfer must not hold the bus): gone.
			x.abort()
		} else {
			x.drive()
			if x.state == xferDone {
				e := x.errno()
				x.release()
				return I2CDone, e
			}
			x.sleep(t, &i2cDone)
			return I2CWaiting, 0
		}
	}
	if x.owner != 0 {
		sched.BlockOn(t, &i2cFree, sched.WaitDevice, unix.EPOLLIN, 0, 0)
		return I2CWaiting, 0
	}
	return I2CFree, 0
}

// I2CStart starts t's transfer of msgs on bus after I2CBegin said
// I2CFree, the written bytes already in their buffers: t sleeps until
// its end (I2CWaiting), and its call's next run takes the result from
// I2CBegin. Without the interrupt the transfer is polled to its end
// here (I2CDone). ENXIO: no such bus.
func I2CStart(t *sched.Thread, bus int, msgs []I2CMsg) (I2CStep, unix.Errno) {
	if e := i2cCheck(bus, msgs); e != 0 {
		return I2CDone, e
	}
	x := &xfer
	x.begin(bus, msgs, i2cIRQ != 0)
	x.owner = sched.Index(t) + 1
	if !x.irq {
		x.poll()
		e := x.errno()
		x.release()
		return I2CDone, e
	}
	x.sleep(t, &i2cDone)
	return I2CWaiting, 0
}

// i2cCheck answers a transfer of msgs on bus that cannot be made:
// ENXIO for a bus the machine lacks, EINVAL for no message, more than
// I2CMaxMsgs, or one longer than the controller's DLEN holds.
func i2cCheck(bus int, msgs []I2CMsg) unix.Errno {
	if bus < 0 || bus >= MaxI2C || !I2CPresent[bus] {
		return unix.ENXIO
	}
	if len(msgs) == 0 || len(msgs) > I2CMaxMsgs {
		return unix.EINVAL
	}
	for k := range msgs {
		if len(msgs[k].Buf) > bcm2711.BSCMaxLen {
			return unix.EINVAL
		}
	}
	return 0
}

// drive moves x, running, on: ended with ETIMEDOUT past its deadline,
// else served (backstop).
func (x *i2cXfer) drive() {
	switch {
	case x.state != xferRunning:
	case cpu.ReadCNTVCT() >= x.deadline:
		x.end(0, true)
	default:
		x.backstop()
	}
}

// i2cBackstopNanos is how long a thread sleeps for its transfer before
// it looks at the controller itself (backstop): about a FIFO's worth of
// bytes at 100 kHz.
const i2cBackstopNanos = 1_000_000

// sleep puts t to sleep on q (i2cDone: x's owner; i2cFree: a thread
// waiting to drive an orphan) until q is notified, x's deadline, or the
// backstop's time, whichever is first; the call runs again then.
func (x *i2cXfer) sleep(t *sched.Thread, q *sched.Queue) {
	until := min(x.deadline, cpu.ReadCNTVCT()+timer.NanosToTicks(i2cBackstopNanos))
	sched.BlockOn(t, q, sched.WaitDevice, unix.EPOLLIN, until, sched.RetryOnTimeout)
}

// i2cSaidBackstop: the kernel has said (once) that the backstop, not
// the interrupt, moved a transfer.
var i2cSaidBackstop bool

// backstop takes the steps x's status asks for that no interrupt came
// for (a controller whose interrupt is not wired to the GIC: QEMU's
// raspi4b wires none of the BSCs'), until one changes nothing, and says
// so once: there, every transfer moves on this timer instead.
func (x *i2cXfer) backstop() {
	moved := false
	for k := 0; k < i2cBackstopSteps && x.state == xferRunning; k++ {
		cur, pos := x.cur, x.pos
		x.service()
		if x.state == xferRunning && x.cur == cur && x.pos == pos {
			break
		}
		moved = true
	}
	if moved && !i2cSaidBackstop {
		i2cSaidBackstop = true
		if Info("i2c: no interrupt came for a transfer's step; the controller is served every ") {
			PutDec(i2cBackstopNanos / 1_000_000)
			Puts(" ms")
			InfoEnd()
		}
	}
}

// i2cBackstopSteps bounds the steps one backstop takes (a message's
// worth on QEMU, whose controller moves each byte at once).
const i2cBackstopSteps = 2 * I2CMaxMsgs

// I2CMaxMsgs is the most messages a transfer has (i2c-dev's
// I2C_RDWR_IOCTL_MAX_MSGS).
const I2CMaxMsgs = 42

// I2CAbandon lets go of t's transfer when t exits: one still running
// frees the controller when it ends (the interrupt's, or a waiting
// thread's step: an orphan), one ended frees it now.
func I2CAbandon(t *sched.Thread) {
	x := &xfer
	if x.owner != sched.Index(t)+1 {
		return
	}
	if x.state == xferRunning {
		// The threads waiting for the controller drive it now, as its
		// owner did (I2CBegin).
		x.owner = i2cOrphan
		i2cFree.Notify(unix.EPOLLIN)
		return
	}
	x.release()
}

// I2CTransfer runs msgs on bus for the kernel (the RTC), polled, after
// a thread's transfer in flight, and answers as Linux's i2c-bcm2835
// does: 0, EREMOTEIO when a slave did not acknowledge, EIO when one
// held the clock too long, ETIMEDOUT when the transfer did not end.
func I2CTransfer(bus int, msgs []I2CMsg) unix.Errno {
	if e := i2cCheck(bus, msgs); e != 0 {
		return e
	}
	if xfer.state == xferRunning {
		xfer.poll() // its owner finds it ended
	}
	var x i2cXfer
	x.begin(bus, msgs, false)
	x.poll()
	return x.errno()
}

// begin starts msgs on bus, the controller's FIFO and sticky status
// (a NACK, a stretch, DONE) cleared first, as they were before the
// first message of the polled driver this replaced: a stale bit from
// the firmware or an aborted transfer must not end this one.
func (x *i2cXfer) begin(bus int, msgs []I2CMsg, irq bool) {
	*x = i2cXfer{bus: bus, msgs: msgs, irq: irq, state: xferRunning,
		deadline: cpu.ReadCNTVCT() + timer.NanosToTicks(i2cTimeoutNanos)}
	i2cBuses[bus].Stop()
	x.startMsg()
}

// startMsg starts message x.cur.
func (x *i2cXfer) startMsg() {
	m := &x.msgs[x.cur]
	x.pos = 0
	i2cBuses[x.bus].Start(m.Addr, m.Read, len(m.Buf), x.irq, x.cur == len(x.msgs)-1)
}

// poll runs x's steps until it ends or its deadline passes.
func (x *i2cXfer) poll() {
	cpu.Progress.Add(1) // waiters on the kernel lock: this is work
	for x.state == xferRunning {
		if cpu.ReadCNTVCT() >= x.deadline {
			x.end(0, true)
			return
		}
		x.service()
	}
}

// service is one step of x, as the controller's status asks
// (i2c-bcm2835's bcm2835_i2c_isr).
func (x *i2cXfer) service() {
	b := &i2cBuses[x.bus]
	s := b.Status()
	m := &x.msgs[x.cur]
	last := x.cur == len(x.msgs)-1
	switch {
	case s&(bcm2711.BSCErr|bcm2711.BSCClockTimeout) != 0:
		x.end(s&(bcm2711.BSCErr|bcm2711.BSCClockTimeout), false)
	case s&bcm2711.BSCDone != 0:
		if m.Read {
			x.pos += b.Drain(m.Buf[x.pos:])
			s = b.Status()
		}
		switch {
		case s&bcm2711.BSCRXD != 0 || x.pos < len(m.Buf):
			x.end(i2cLenErr, false)
		case !last:
			// A message the controller ended before the next was
			// started (an empty one): on to the next.
			x.cur++
			x.startMsg()
		default:
			x.end(0, false)
		}
	case s&bcm2711.BSCTXW != 0:
		if m.Read || x.pos == len(m.Buf) {
			x.end(i2cLenErr, false)
			return
		}
		x.pos += b.Fill(m.Buf[x.pos:])
		if x.pos == len(m.Buf) && !last {
			// Started while the FIFO still holds this message's last
			// bytes: a repeated start, not a stop.
			x.cur++
			x.startMsg()
		}
	case s&bcm2711.BSCRXR != 0:
		if !m.Read || x.pos == len(m.Buf) {
			x.end(i2cLenErr, false)
			return
		}
		x.pos += b.Drain(m.Buf[x.pos:])
	}
}

// end ends x with status (or its deadline passed): the controller
// stopped, and the threads' transfer's owner woken, or, orphaned, the
// controller freed.
func (x *i2cXfer) end(status uint32, timedOut bool) {
	i2cBuses[x.bus].Stop()
	x.state, x.status, x.timedOut = xferDone, status, timedOut
	if x != &xfer {
		return
	}
	if x.owner == i2cOrphan {
		x.release()
		return
	}
	i2cDone.Notify(unix.EPOLLIN)
}

// abort ends x where it is and frees the controller.
func (x *i2cXfer) abort() {
	if x.state == xferRunning {
		i2cBuses[x.bus].Stop()
	}
	x.release()
}

// release frees the controller for the next transfer, and wakes the
// threads waiting for it.
func (x *i2cXfer) release() {
	*x = i2cXfer{}
	i2cFree.Notify(unix.EPOLLIN)
}

// errno is how x ended, as bcm2835_i2c_xfer answers.
func (x *i2cXfer) errno() unix.Errno {
	switch {
	case x.timedOut:
		return unix.ETIMEDOUT
	case x.status&bcm2711.BSCErr != 0:
		return unix.EREMOTEIO
	case x.status != 0:
		return unix.EIO
	}
	return 0
}

// i2cInterrupt is the controllers' interrupt: a step of the threads'
// transfer. One that comes with none running (a polled transfer ended
// it first) has nothing left to do: the end turned the controller's
// interrupts off. Under the kernel lock.
func i2cInterrupt(id uint32) bool {
	if id != i2cIRQ || i2cIRQ == 0 {
		return false
	}
	if xfer.state == xferRunning && xfer.irq {
		xfer.service()
	}
	return true
}

// I2CDump describes the threads' transfer in flight for the state dump:
// its bus, its message and how far into it, the controller's status,
// its owner and how long until its deadline. Nothing without one.
func I2CDump() {
	x := &xfer
	if x.owner == 0 {
		return
	}
	Puts("gometal:   i2c: a transfer on i2c-")
	PutDec(int64(x.bus))
	Puts(", message ")
	PutDec(int64(x.cur + 1))
	Puts(" of ")
	PutDec(int64(len(x.msgs)))
	Puts(", ")
	PutDec(int64(x.pos))
	Puts(" of ")
	PutDec(int64(len(x.msgs[x.cur].Buf)))
	Puts(" bytes, status ")
	PutHex(uint64(i2cBuses[x.bus].Status()))
	switch {
	case x.owner == i2cOrphan:
		Puts(", its thread gone")
	case x.state == xferDone:
		Puts(", ended, for thread ")
		PutDec(int64(sched.Threads[x.owner-1].TID))
		Puts(" to take")
	default:
		Puts(", thread ")
		PutDec(int64(sched.Threads[x.owner-1].TID))
	}
	if now := cpu.ReadCNTVCT(); x.state == xferRunning && now < x.deadline {
		Puts(", ")
		PutDec(timer.TicksToNanos(x.deadline-now) / 1_000_000)
		Puts(" ms to its deadline")
	}
	Puts("\n")
}
