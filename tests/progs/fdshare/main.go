//go:build linux && arm64

// Fdshare checks that descriptors made by dup, dup3 and F_DUPFD share one
// open-file description, as on Linux: its offset, its status flags, an
// eventfd's counter and an epoll registration, which lasts until the last
// descriptor of the description is closed; close-on-exec stays per
// descriptor. As PID 1 on Linux it powers off at the end (init may not
// exit); on gometal that ends the run with status 0 too.
package main

import (
	"fmt"
	"os"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

// check is guest.Check: every check runs, the failures are listed.
var check = guest.Check

func must(what string, err error) { check(what, err == nil, err) }

func main() {
	// The console: one description, read-write, behind 0, 1 and 2.
	for fd := 0; fd < 3; fd++ {
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		must("F_GETFL on the console", err)
		check(fmt.Sprintf("fd %d is O_RDWR", fd), fl&unix.O_ACCMODE == unix.O_RDWR, fl)
	}

	// A file's offset is the description's.
	f, err := unix.Open("/fdshare.txt", unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC, 0o644)
	must("open", err)
	unix.Write(f, []byte("abcdefgh"))
	d, err := unix.Dup(f)
	must("dup", err)
	off, _ := unix.Seek(d, 0, unix.SEEK_CUR)
	check("dup sees the offset of the write", off == 8, off)
	unix.Seek(f, 2, unix.SEEK_SET)
	buf := make([]byte, 3)
	n, _ := unix.Read(d, buf)
	check("a read on the dup starts at the original's seek", n == 3 && string(buf) == "cde", string(buf[:n]))
	off, _ = unix.Seek(f, 0, unix.SEEK_CUR)
	check("the original moved with the dup's read", off == 5, off)

	// Status flags are the description's; close-on-exec is each
	// descriptor's own.
	var p [2]int
	must("pipe2", unix.Pipe2(p[:], 0))
	d3, err := unix.FcntlInt(uintptr(p[0]), unix.F_DUPFD_CLOEXEC, 10)
	must("F_DUPFD_CLOEXEC", err)
	check("F_DUPFD_CLOEXEC gives the lowest free fd >= 10", d3 >= 10, d3)
	_, err = unix.FcntlInt(uintptr(p[0]), unix.F_SETFL, unix.O_NONBLOCK)
	must("F_SETFL", err)
	fl, _ := unix.FcntlInt(uintptr(d3), unix.F_GETFL, 0)
	check("O_NONBLOCK set on one is seen on its dup", fl&unix.O_NONBLOCK != 0, fl)
	_, err = unix.Read(d3, buf)
	check("a read on the dup of an empty non-blocking pipe is EAGAIN", err == unix.EAGAIN, err)
	cd, _ := unix.FcntlInt(uintptr(d3), unix.F_GETFD, 0)
	co, _ := unix.FcntlInt(uintptr(p[0]), unix.F_GETFD, 0)
	check("close-on-exec is per descriptor", cd == unix.FD_CLOEXEC && co == 0, cd, co)
	must("dup3", unix.Dup3(p[0], 20, unix.O_CLOEXEC))
	c20, _ := unix.FcntlInt(20, unix.F_GETFD, 0)
	check("dup3 O_CLOEXEC", c20 == unix.FD_CLOEXEC, c20)

	// An eventfd's counter is the description's.
	e, err := unix.Eventfd(0, unix.EFD_NONBLOCK)
	must("eventfd", err)
	ed, _ := unix.Dup(e)
	unix.Write(ed, []byte{3, 0, 0, 0, 0, 0, 0, 0})
	ebuf := make([]byte, 8)
	n, err = unix.Read(e, ebuf)
	check("a write on the dup is read on the original", err == nil && n == 8 && ebuf[0] == 3, n, err, ebuf)

	// An epoll registration lasts while its description does.
	var q [2]int
	must("pipe2", unix.Pipe2(q[:], unix.O_NONBLOCK))
	ep, err := unix.EpollCreate1(0)
	must("epoll_create1", err)
	must("epoll_ctl ADD", unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, q[0], &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(q[0])}))
	qd, _ := unix.Dup(q[0])
	unix.Close(q[0])
	unix.Write(q[1], []byte("x"))
	evs := make([]unix.EpollEvent, 4)
	n, err = unix.EpollWait(ep, evs, 1000)
	check("the registration outlives closing one of two dups", err == nil && n == 1 && evs[0].Fd == int32(q[0]), n, err)
	err = unix.EpollCtl(ep, unix.EPOLL_CTL_DEL, q[0], nil)
	check("the closed descriptor itself can no longer be named", err == unix.EBADF, err)
	unix.Close(qd)
	n, _ = unix.EpollWait(ep, evs, 0)
	check("closing the last dup ends the registration", n == 0, n)

	if guest.Failed() {
		fmt.Println("fdshare: FAIL")
		os.Exit(1)
	}
	fmt.Println("fdshare ok")
	if os.Getpid() == 1 {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
}
