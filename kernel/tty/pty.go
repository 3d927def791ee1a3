package tty

import (
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Pseudo-terminals, as Linux's Unix98 ptys (drivers/tty/pty.c,
// fs/devpts/inode.c, tty_io.c's ptmx_open; pty(7), pts(4)). A pair is a
// master (the description /dev/ptmx opened) and a slave, a Terminal
// with the same line discipline as the console: what the master writes
// is the slave's received input, run through the discipline, and the
// slave's output after OPOST (echo included) is what the master reads.
// Pairs come from a fixed pool (no heap in the kernel); the Linux layer
// opens the ends and keeps /dev/pts (the Added and Removed hooks).

// MaxPtys is the number of pairs open at once; opening /dev/ptmx past
// it is ENOSPC, what Linux answers when devpts' max= is reached
// (devpts_new_index).
const MaxPtys = 64

// Device numbers: /dev/ptmx is 5:2 and slave N is 136:N (UNIX98_PTY_
// SLAVE_MAJOR; Documentation/admin-guide/devices.txt).
const (
	PtmxRdev       = 5<<8 | 2
	PtsMajor       = 136
	ptsDefaultMode = 0o600 // devpts' mode= default (DEVPTS_DEFAULT_MODE)
)

// ptsBaud is a pty's speed: pty.c's init_termios is B38400.
const ptsBaud = unix.B38400

// Pty is one pair; the value is the master's open file (an Impl), and
// Slave the slave's.
type Pty struct {
	vfs.Base
	Slave Terminal
	// used: the pair is allocated; Locked: TIOCSPTLCK's lock, set at
	// open (ptmx_open sets TTY_PTY_LOCK), which makes a slave open EIO.
	used, Locked bool
	// masterOpen: the master's description lives; slaveOpens counts
	// the slave's; otherClosed is Linux's TTY_OTHER_CLOSED on the
	// master: the last slave description went, so the master reads EIO
	// once drained. hungUp: the master went, the slave is hung up.
	masterOpen  bool
	slaveOpens  int32
	otherClosed bool
	hungUp      bool
	// The slave node's owner (the opener's, as devpts_pty_new) and mode.
	Uid, Gid uint32
	// out holds the slave's output until the master reads it.
	out        [bufSize]byte
	head, tail uint32
	W          vfs.Waitable
}

// Ptys is the pool; pair N is /dev/pts/N.
var Ptys [MaxPtys]Pty

// PtsGid and PtsMode are devpts' gid= and mode= options, which a new
// slave node takes (devpts_pty_new); PtsGidSet says gid= was given.
var (
	PtsGid    uint32
	PtsGidSet bool
	PtsMode   uint32 = ptsDefaultMode
)

// Added and Removed tell devpts that pair n appeared or went (its
// /dev/pts/n node); Hangup is the Linux layer's part of the master's
// close for a slave that is a controlling terminal (tty_vhangup's
// signals and session clearing).
var (
	Added   func(n int32)
	Removed func(n int32)
	Hangup  func(t *Terminal)
)

// N is the pair's number.
func (p *Pty) N() int32 { return int32(p.index()) }

func (p *Pty) index() int {
	for i := range Ptys {
		if &Ptys[i] == p {
			return i
		}
	}
	return -1
}

// PtyOf returns the pair a slave terminal belongs to, nil for the console.
func (t *Terminal) PtyOf() *Pty { return t.pty }

// SlaveRdev is slave n's device number.
func SlaveRdev(n int32) uint32 { return PtsMajor<<8 | uint32(n) }

// NewPty takes a free pair for an open of /dev/ptmx by uid/gid (ptmx_open):
// locked, with pts' default modes; nil when all are in use.
func NewPty(uid, gid uint32) *Pty {
	for i := range Ptys {
		p := &Ptys[i]
		if p.used {
			continue
		}
		p.used, p.Locked, p.masterOpen = true, true, true
		p.slaveOpens, p.otherClosed, p.hungUp = 0, false, false
		p.head, p.tail = 0, 0
		p.Uid, p.Gid = uid, gid
		if PtsGidSet {
			p.Gid = PtsGid
		}
		t := &p.Slave
		t.pty = p
		t.Init(nil, true, 0, 0)
		// pty.c's pts init_termios: tty_std_termios without HUPCL, at
		// B38400.
		t.Termios.Cflag = ptsBaud | unix.CS8 | unix.CREAD
		t.Termios.Ispeed, t.Termios.Ospeed = ptsBaud, ptsBaud
		if Added != nil {
			Added(int32(i))
		}
		return p
	}
	return nil
}

// Used says whether pair n is allocated (devpts lists it).
func Used(n int32) bool { return n >= 0 && n < MaxPtys && Ptys[n].used }

// free returns the pair once both ends are gone.
func (p *Pty) free() {
	if p.masterOpen || p.slaveOpens > 0 || !p.used {
		return
	}
	p.used = false
	if Removed != nil {
		Removed(p.N())
	}
}

// OpenSlave checks an open of the slave (pts_unix98_lookup, pty_open):
// EIO while locked or once the master went.
func (p *Pty) OpenSlave() unix.Errno {
	if !p.used || p.Locked || !p.masterOpen {
		return unix.EIO
	}
	p.slaveOpens++
	p.otherClosed = false
	p.Slave.HungUp = false
	return 0
}

// Reopened counts an open of t other than OpenSlave's: /dev/tty naming
// a pty slave (its descriptions are the slave's too).
func (t *Terminal) Reopened() {
	if p := t.pty; p != nil {
		p.slaveOpens++
		p.otherClosed = false
	}
}

// CloseSlave undoes OpenSlave when no description came of it.
func (p *Pty) CloseSlave() { p.slaveReleased() }

// slaveReleased: a slave description went; the last one tells the
// master (pty_close: TTY_OTHER_CLOSED, a wake-up with EPOLLHUP).
func (p *Pty) slaveReleased() {
	p.slaveOpens--
	if p.slaveOpens > 0 {
		return
	}
	p.otherClosed = true
	vfs.Notify(&p.W, unix.EPOLLIN|unix.EPOLLHUP)
	p.free()
}

// maxExpand is the most bytes output processing makes of one written
// byte: a tab under XTABS becomes up to 8 spaces (n_tty's
// do_output_char).
const maxExpand = 8

// room is how many bytes the master's buffer can still take.
func (p *Pty) room() uint32 { return bufSize - (p.head - p.tail) }

// toMaster queues a byte of the slave's output for the master. The
// slave's writes wait for room (Terminal.Write), so only an echo of
// input the slave's reader did not read while the master did not read
// either can find the buffer full: that byte is dropped, as n_tty drops
// echoes it has no room for.
func (p *Pty) toMaster(c byte) {
	if p.head-p.tail == bufSize {
		return
	}
	p.out[p.head%bufSize] = c
	p.head++
}

// emit is the discipline's output to the device: the UART, or a pty's
// master.
func (t *Terminal) emit(c byte) {
	if t.pty != nil {
		t.pty.toMaster(c)
		return
	}
	t.Out(c)
}

// kill is a signal character's signal (n_tty's isig): the console with
// no foreground group signals PID 1 (kernel/linux's ttySignal); a pty
// with none signals nobody, as Linux.
func (t *Terminal) kill(sig int) {
	if t.pty != nil && t.Pgrp == 0 {
		return
	}
	Signal(t.Pgrp, sig)
}

// flushed wakes the master's readers if the slave's output gave it
// bytes.
func (t *Terminal) flushed() {
	if p := t.pty; p != nil && p.head != p.tail {
		vfs.Notify(&p.W, unix.EPOLLIN)
	}
}

// Read is the master's read: the slave's output; EAGAIN (a wait) with
// none, EIO once every slave description is closed (pty.c: a master
// read after the last slave close), as Linux's n_tty_read answers
// with TTY_OTHER_CLOSED.
func (p *Pty) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if n == 0 {
		return 0
	}
	if p.head == p.tail {
		if p.otherClosed {
			return vfs.Err(unix.EIO)
		}
		return vfs.Err(unix.EAGAIN)
	}
	var chunk [256]byte
	done := uint64(0)
	for done < n && p.head != p.tail {
		m := 0
		for uint64(m) < n-done && m < len(chunk) && p.head != p.tail {
			chunk[m] = p.out[p.tail%bufSize]
			p.tail++
			m++
		}
		if !usermem.CopyOut(buf+uintptr(done), chunk[:m]) {
			p.tail -= uint32(m)
			if done > 0 {
				return done
			}
			return vfs.Err(unix.EFAULT)
		}
		done += uint64(m)
	}
	// The slave's writers waiting for room run again (pty_unthrottle's
	// tty_wakeup).
	vfs.Notify(&p.Slave.W, unix.EPOLLOUT)
	return done
}

// Write is the master's write: each byte is the slave's input
// (pty_write hands it to the slave's flip buffer, and n_tty receives
// it), echo and all.
func (p *Pty) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	var chunk [256]byte
	t := &p.Slave
	done := uint64(0)
	for done < n {
		m := min(n-done, uint64(len(chunk)))
		if !usermem.CopyIn(chunk[:m], buf+uintptr(done)) {
			if done > 0 {
				break
			}
			return vfs.Err(unix.EFAULT)
		}
		for _, c := range chunk[:m] {
			t.receive(c)
		}
		done += m
	}
	if Now != nil && done > 0 {
		t.lastRx = Now()
	}
	if t.readable(false) {
		vfs.Notify(&t.W, unix.EPOLLIN)
	}
	t.flushed()
	return done
}

// Readiness: the master reads when the slave wrote, or with EPOLLHUP
// once the slave is closed; it is always writable.
func (p *Pty) Readiness(f *vfs.File) uint32 {
	r := uint32(unix.EPOLLOUT | unix.EPOLLWRNORM)
	if p.head != p.tail {
		r |= unix.EPOLLIN | unix.EPOLLRDNORM
	}
	if p.otherClosed {
		r |= unix.EPOLLIN | unix.EPOLLRDNORM | unix.EPOLLHUP
	}
	return r
}

func (p *Pty) Waitable() *vfs.Waitable { return &p.W }
func (p *Pty) Kind() vfs.Kind          { return vfs.KindConsole }

// Stat: the master is the /dev/ptmx it was opened through.
func (p *Pty) Stat(f *vfs.File) unix.Stat_t {
	return unix.Stat_t{Mode: unix.S_IFCHR | 0o666, Rdev: PtmxRdev, Nlink: 1, Blksize: 1024}
}

// Release is the master's close (pty_close): the slave hangs up
// (tty_vhangup): its session loses it, its reads end, its writes fail.
func (p *Pty) Release(f *vfs.File) {
	p.masterOpen = false
	p.hungUp = true
	t := &p.Slave
	if Hangup != nil && t.Session != 0 {
		Hangup(t)
	}
	t.Session, t.Pgrp = 0, 0
	vfs.Notify(&t.W, unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLHUP)
	p.free()
}

// Ioctl answers the master's requests (pty_unix98_ioctl), and the
// terminal ones as the slave would: a master's termios and window size
// are the slave's, as Linux's tty_mode_ioctl takes the other side's.
func (p *Pty) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	switch req {
	case unix.TIOCGPTN:
		return putU32(arg, uint32(p.N()))
	case unix.TIOCSPTLCK:
		v, ok := usermem.ReadU32(arg)
		if !ok {
			return vfs.Err(unix.EFAULT)
		}
		p.Locked = v != 0
		return 0
	case unix.TIOCGPTLCK:
		v := uint32(0)
		if p.Locked {
			v = 1
		}
		return putU32(arg, v)
	case unix.TIOCINQ: // the master's own queue: what the slave wrote
		return putU32(arg, p.head-p.tail)
	case unix.TIOCOUTQ:
		return putU32(arg, 0)
	case unix.TCGETS, unix.TCSETS, unix.TCSETSW, unix.TCSETSF, unix.TIOCGWINSZ, unix.TIOCSWINSZ, unix.TCFLSH:
		return p.Slave.Ioctl(f, req, arg)
	}
	return vfs.Err(unix.ENOTTY)
}

// ptsStat is a slave's stat: 136:N, devpts' mode, the opener's owner.
func (p *Pty) ptsStat() unix.Stat_t {
	return unix.Stat_t{Mode: unix.S_IFCHR | PtsMode&0o7777, Rdev: uint64(SlaveRdev(p.N())),
		Uid: p.Uid, Gid: p.Gid, Nlink: 1, Blksize: 1024}
}
