package tty

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Rdev is the console's device number, 5:1 (Documentation/admin-guide/
// devices.txt), as its stat shows it.
const Rdev = 5<<8 | 1

// termiosSize is the size of the termios TCGETS and TCSETS move: the
// kernel's struct termios, which ends at c_cc (include/uapi/asm-generic/
// termbits.h); the speeds after it are termios2's, and glibc's.
const termiosSize = unsafe.Offsetof(unix.Termios{}.Ispeed)

// A Terminal is an open file too: every description of the console
// shares Console. viaTTY marks the descriptions opened through /dev/tty
// (5:0), indexed like vfs.Files. Linux opens /dev/console with
// console_fops, whose reads a background process may make (n_tty's
// job_control: "don't stop on /dev/console"), and /dev/tty with
// tty_fops, whose reads are job-controlled; descriptors 0-2 of PID 1 are
// /dev/console's.
var viaTTY [vfs.MaxFiles]bool

// OpenedAsTTY marks f, just opened, as opened through /dev/tty.
func OpenedAsTTY(f *vfs.File) { viaTTY[f.Index()] = true }

// Release forgets how the description was opened.
func (t *Terminal) Release(f *vfs.File) {
	viaTTY[f.Index()] = false
	if t.pty != nil {
		t.pty.slaveReleased()
	}
}

// Read is n_tty_read: through /dev/tty it asks JobControl first, even
// for no bytes (Linux's vfs_read does not skip n_tty_read for 0). In
// canonical mode it returns one line, or as much of it as fits, and 0
// for an EOF at the start of a line; otherwise it follows VMIN and VTIME
// (termios(3)'s four cases, as n_tty_read's minimum and timeout).
// EAGAIN makes vfs.Read wait for input; a wait with a deadline, or with
// bytes already given, goes through Wait.
func (t *Terminal) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if t.pty != nil && t.pty.hungUp {
		return 0 // hung_up_tty_read
	}
	if viaTTY[f.Index()] {
		if r := JobControl(false); r != 0 {
			return r
		}
	}
	if n == 0 {
		return 0
	}
	if t.lflag(unix.ICANON) {
		if !t.readable(false) {
			return vfs.Err(unix.EAGAIN)
		}
		return t.readLine(buf, n)
	}
	deadline, done := uint64(0), uint64(0)
	if Resumed != nil {
		deadline, done = Resumed()
	}
	m := t.take(buf+uintptr(done), n-done)
	if vfs.IsErr(m) {
		return m
	}
	done += m
	vmin, vtime := uint64(t.Termios.Cc[unix.VMIN]), uint64(t.Termios.Cc[unix.VTIME])
	switch {
	case done >= n || vmin == 0 && vtime == 0:
		return done // the whole buffer; or polling: what there was
	case vmin == 0:
		// A read timer from the call's start; any byte ends it.
		if done > 0 {
			return done
		}
		if f.Nonblocking() {
			return vfs.Err(unix.EAGAIN)
		}
		now := Now()
		if deadline == 0 {
			deadline = now + vtime*TicksPerDecisecond
		}
		if now >= deadline {
			return 0
		}
		Wait(t, deadline, 0, 0)
		return 0
	case done >= vmin:
		return done
	case done == 0:
		// VMIN bytes, or with VTIME the first byte starts the timer:
		// wait for one.
		return vfs.Err(unix.EAGAIN)
	case f.Nonblocking():
		return done
	case vtime == 0:
		Wait(t, 0, done, done)
		return 0
	}
	// VMIN and VTIME: an inter-byte timer, from the last byte received.
	deadline = t.lastRx + vtime*TicksPerDecisecond
	if Now() >= deadline {
		return done
	}
	Wait(t, deadline, done, done)
	return 0
}

// take copies up to n buffered bytes to the app (non-canonical mode:
// every byte is input).
func (t *Terminal) take(buf uintptr, n uint64) uint64 {
	var chunk [256]byte
	done := uint64(0)
	for done < n && t.count() > 0 {
		m := 0
		for uint64(m) < n-done && m < len(chunk) && t.count() > 0 {
			chunk[m] = t.buf[t.tail%bufSize]
			t.tail++
			m++
		}
		if !usermem.CopyOut(buf+uintptr(done), chunk[:m]) {
			t.tail -= uint32(m) // not taken after all
			if done > 0 {
				return done
			}
			return vfs.Err(unix.EFAULT)
		}
		done += uint64(m)
	}
	t.canonHead = t.tail
	return done
}

// readLine copies the first line, up to n bytes of it, to the app
// (canon_copy_from_read_buf): its ending byte too, but not an EOF's
// NUL, which is consumed once the line's other bytes are, so an EOF at
// the start of a line reads 0.
func (t *Terminal) readLine(buf uintptr, n uint64) uint64 {
	var chunk [256]byte
	done := uint64(0)
	for done < n && t.tail != t.canonHead {
		m := 0
		end := false
		for uint64(m) < n-done && m < len(chunk) && t.tail != t.canonHead {
			i := t.tail
			c := t.buf[i%bufSize]
			if t.isDelim(i) {
				end = true
				if c == 0 && t.Termios.Cc[unix.VEOF] != 0 {
					t.tail++ // EOF: ends the line, is not read
					break
				}
			}
			chunk[m] = c
			t.tail++
			m++
			if end {
				break
			}
		}
		if !usermem.CopyOut(buf+uintptr(done), chunk[:m]) {
			return vfs.Err(unix.EFAULT)
		}
		done += uint64(m)
		if end {
			break
		}
	}
	return done
}

// Write sends the app's bytes to the device through output processing
// (n_tty_write's process_output). With TOSTOP, a background job's
// write through /dev/tty asks JobControl first (n_tty_write; a write
// through /dev/console, redirected_tty_write there, never stops). A pty
// slave's write stops where its master's buffer is full: what it wrote
// so far, or EAGAIN (vfs.Write then waits for the master to read, as
// n_tty_write waits for write room).
func (t *Terminal) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if t.pty != nil && t.pty.hungUp {
		return vfs.Err(unix.EIO) // hung_up_tty_write
	}
	toMaster := t.pty != nil
	if viaTTY[f.Index()] && t.lflag(unix.TOSTOP) {
		if r := JobControl(true); r != 0 {
			return r
		}
	}
	var chunk [256]byte
	done := uint64(0)
	for done < n {
		m := min(n-done, uint64(len(chunk)))
		if !usermem.CopyIn(chunk[:m], buf+uintptr(done)) {
			if done > 0 {
				return done
			}
			return vfs.Err(unix.EFAULT)
		}
		for i, c := range chunk[:m] {
			if toMaster && t.pty.room() < maxExpand {
				t.flushed()
				if k := done + uint64(i); k > 0 {
					return k
				}
				return vfs.Err(unix.EAGAIN)
			}
			t.output(c)
		}
		done += m
		if toMaster {
			t.flushed()
		}
	}
	return n
}

// Readiness is n_tty_poll: readable with a line (canonical) or VMIN
// bytes; writable always on the console (its output never waits), on a
// pty slave while its master's buffer has room.
func (t *Terminal) Readiness(f *vfs.File) uint32 {
	r := uint32(unix.EPOLLOUT | unix.EPOLLWRNORM)
	if t.pty != nil && t.pty.room() < maxExpand {
		r = 0
	}
	if t.readable(true) {
		r |= unix.EPOLLIN | unix.EPOLLRDNORM
	}
	if t.pty != nil && t.pty.hungUp {
		r |= unix.EPOLLIN | unix.EPOLLRDNORM | unix.EPOLLHUP // tty_poll of a hung-up tty
	}
	return r
}

func (t *Terminal) Waitable() *vfs.Waitable { return &t.W }
func (t *Terminal) Kind() vfs.Kind          { return vfs.KindConsole }

func (t *Terminal) Stat(f *vfs.File) unix.Stat_t {
	if t.pty != nil {
		return t.pty.ptsStat()
	}
	return unix.Stat_t{Mode: unix.S_IFCHR | 0o620, Rdev: Rdev, Nlink: 1, Blksize: 1024}
}

// Ioctl answers the terminal requests of tty_ioctl.c and tty_io.c (job
// control is kernel/linux's, before this).
func (t *Terminal) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	switch req {
	case unix.TCGETS:
		return put(arg, unsafe.Pointer(&t.Termios), termiosSize)
	case unix.TCSETS, unix.TCSETSW, unix.TCSETSF:
		// TCSETSW waits for output to drain: it never waits here.
		tio := t.Termios
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&tio), termiosSize), arg) {
			return vfs.Err(unix.EFAULT)
		}
		if req == unix.TCSETSF {
			t.flushInput()
		}
		t.setTermios(&tio)
		return 0
	case unix.TCFLSH:
		switch arg {
		case unix.TCIFLUSH, unix.TCIOFLUSH:
			t.flushInput()
		case unix.TCOFLUSH: // output is never queued
		default:
			return vfs.Err(unix.EINVAL)
		}
		return 0
	case unix.TIOCINQ: // FIONREAD
		n := t.count()
		if t.lflag(unix.ICANON) {
			n = t.canonHead - t.tail
		}
		return putU32(arg, n)
	case unix.TIOCOUTQ:
		return putU32(arg, 0) // written at once
	case unix.TIOCGWINSZ:
		return put(arg, unsafe.Pointer(&t.Winsize), unsafe.Sizeof(t.Winsize))
	case unix.TIOCSWINSZ:
		var ws unix.Winsize
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&ws), unsafe.Sizeof(ws)), arg) {
			return vfs.Err(unix.EFAULT)
		}
		// tty_do_resize: a change tells the foreground group.
		if ws != t.Winsize {
			t.Winsize = ws
			if t.Pgrp != 0 {
				Signal(t.Pgrp, int(unix.SIGWINCH))
			}
		}
		return 0
	}
	return vfs.Err(unix.ENOTTY)
}

// setTermios takes new modes (n_tty_set_termios): turning ICANON off
// makes the line being edited readable; turning it on makes what is
// buffered one line, ended by its last byte (ldata->push).
func (t *Terminal) setTermios(tio *unix.Termios) {
	was := t.lflag(unix.ICANON)
	t.Termios.Iflag, t.Termios.Oflag, t.Termios.Cflag, t.Termios.Lflag = tio.Iflag, tio.Oflag, tio.Cflag, tio.Lflag
	t.Termios.Line, t.Termios.Cc = tio.Line, tio.Cc
	if was == t.lflag(unix.ICANON) {
		return
	}
	t.delim = [bufSize / 8]byte{}
	t.lnext = false
	t.canonHead = t.tail
	if t.lflag(unix.ICANON) && t.count() > 0 {
		t.setDelim(t.head-1, true)
		t.canonHead = t.head
	}
	if t.readable(false) {
		vfs.Notify(&t.W, unix.EPOLLIN)
	}
}

func put(arg uintptr, p unsafe.Pointer, size uintptr) uint64 {
	if !usermem.CopyOut(arg, usermem.BytesOf(p, size)) {
		return vfs.Err(unix.EFAULT)
	}
	return 0
}

func putU32(arg uintptr, v uint32) uint64 {
	if !usermem.WriteU32(arg, v) {
		return vfs.Err(unix.EFAULT)
	}
	return 0
}
