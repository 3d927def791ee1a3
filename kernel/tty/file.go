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

// consoleFile is the console as an open file: reads take typed input
// from the receive ring, writes go to every console port (Output), and
// the few terminal ioctls Go and its tests make are answered.
type consoleFile struct {
	vfs.Base
	W vfs.Waitable
}

// Console is the one console; every description of it shares it.
var Console consoleFile

// viaTTY marks the descriptions opened through /dev/tty (5:0), indexed
// like vfs.Files. Linux opens /dev/console with console_fops, whose
// reads a background process may make (n_tty's job_control: "don't
// stop on /dev/console"), and /dev/tty with tty_fops, whose reads are
// job-controlled; descriptors 0-2 of PID 1 are /dev/console's.
var viaTTY [vfs.MaxFiles]bool

// OpenedAsTTY marks f, just opened, as opened through /dev/tty.
func OpenedAsTTY(f *vfs.File) { viaTTY[f.Index()] = true }

// Release forgets how the description was opened.
func (c *consoleFile) Release(f *vfs.File) { viaTTY[f.Index()] = false }

// Read takes typed input; through /dev/tty it asks JobControl first,
// even for no bytes (Linux's vfs_read does not skip n_tty_read for 0).
func (c *consoleFile) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if viaTTY[f.Index()] {
		if r := JobControl(); r != 0 {
			return r
		}
	}
	if n == 0 {
		return 0
	}
	if rxLen() == 0 {
		return vfs.Err(unix.EAGAIN)
	}
	return takeRx(buf, n)
}

func (c *consoleFile) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
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
		for _, c := range chunk[:m] {
			Output(c)
		}
		done += m
	}
	return n
}

func (c *consoleFile) Readiness(f *vfs.File) uint32 {
	r := uint32(unix.EPOLLOUT)
	if rxLen() > 0 {
		r |= unix.EPOLLIN
	}
	return r
}

func (c *consoleFile) Waitable() *vfs.Waitable { return &c.W }
func (c *consoleFile) Kind() vfs.Kind          { return vfs.KindConsole }

func (c *consoleFile) Stat(f *vfs.File) unix.Stat_t {
	return unix.Stat_t{Mode: unix.S_IFCHR | 0o620, Rdev: Rdev, Nlink: 1, Blksize: 1024}
}

// Ioctl answers the terminal queries Go and its tests make.
func (c *consoleFile) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	switch req {
	case unix.TCGETS:
		var tio unix.Termios
		tio.Iflag = unix.ICRNL
		tio.Oflag = unix.OPOST | unix.ONLCR
		tio.Cflag = unix.CS8 | unix.CREAD | unix.B115200
		tio.Lflag = unix.ISIG
		if !usermem.CopyOut(arg, usermem.BytesOf(unsafe.Pointer(&tio), unsafe.Sizeof(tio))) {
			return vfs.Err(unix.EFAULT)
		}
		return 0
	case unix.TIOCGWINSZ:
		ws := unix.Winsize{Row: 24, Col: 80}
		if !usermem.CopyOut(arg, usermem.BytesOf(unsafe.Pointer(&ws), unsafe.Sizeof(ws))) {
			return vfs.Err(unix.EFAULT)
		}
		return 0
	case unix.TCSETS, unix.TCSETSW, unix.TCSETSF:
		return 0
	}
	return vfs.Err(unix.ENOTTY)
}
