//go:build linux && arm64

// Command recvflags reads sockets with recv(2)'s flags, MSG_PEEK (copy
// the next bytes and leave them) and MSG_DONTWAIT (EAGAIN rather than
// wait), over TCP on the loopback, UDP, and AF_UNIX streams, datagrams
// and seqpacket, and readv and writev on seqpacket (one record across
// the iovecs), and prints what each call returned, so that its output
// can be compared line for line with Linux's.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

func main() {
	guest.LoopbackUp()
	tcp()
	udp()
	unixStream(unix.SOCK_STREAM, "unix stream")
	unixStream(unix.SOCK_SEQPACKET, "seqpacket")
	unixgram()
	vectors()
	fmt.Println("recvflags: done")
	if os.Getpid() == 1 {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
}

func tcp() {
	l := must(unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0))
	lo := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	check(unix.Bind(l, lo))
	check(unix.Listen(l, 1))
	sa, _ := unix.Getsockname(l)
	c := must(unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0))
	check(unix.Connect(c, sa))
	s, _, err := unix.Accept(l)
	check(err)
	conn("tcp", c, s)
	unix.Close(l)
}

func unixStream(typ int, kind string) {
	p, err := unix.Socketpair(unix.AF_UNIX, typ, 0)
	check(err)
	conn(kind, p[0], p[1])
}

// conn: c's peer s sends; c peeks, reads, peeks across two iovecs,
// then sees the end with MSG_PEEK too.
func conn(kind string, c, s int) {
	_, _, err := unix.Recvfrom(c, make([]byte, 8), unix.MSG_DONTWAIT)
	say("%s: MSG_DONTWAIT with nothing to read: %s", kind, guest.Result(err))
	unix.Write(s, []byte("hello world"))
	recv(kind, c, 5, unix.MSG_PEEK)
	recv(kind, c, 100, unix.MSG_PEEK)
	recv(kind, c, 6, 0)
	if kind == "seqpacket" {
		unix.Write(s, []byte("world")) // the record's rest went with the read
	}
	a, b := make([]byte, 2), make([]byte, 10)
	n, _, _, _, err := unix.RecvmsgBuffers(c, [][]byte{a, b}, nil, unix.MSG_PEEK)
	say("%s: recvmsg MSG_PEEK over 2+10 bytes: %d %s %q %q", kind, n, guest.Result(err), a, b[:max(n-2, 0)])
	recv(kind, c, 100, unix.MSG_DONTWAIT)
	unix.Write(s, []byte("last"))
	unix.Close(s)
	time.Sleep(10 * time.Millisecond)
	recv(kind, c, 100, unix.MSG_PEEK)
	recv(kind, c, 100, 0)
	recv(kind, c, 100, unix.MSG_PEEK)
	unix.Close(c)
}

func udp() {
	r := must(unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0))
	check(unix.Bind(r, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	to, _ := unix.Getsockname(r)
	w := must(unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0))
	check(unix.Bind(w, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: 0}))
	_, _, err := unix.Recvfrom(r, make([]byte, 8), unix.MSG_DONTWAIT)
	say("udp: MSG_DONTWAIT with nothing queued: %s", guest.Result(err))
	wa, _ := unix.Getsockname(w)
	check(unix.Sendto(w, []byte("first datagram"), 0, to))
	check(unix.Sendto(w, []byte("second"), 0, to))
	for _, f := range []int{unix.MSG_PEEK, unix.MSG_PEEK, 0, 0} {
		b := make([]byte, 5)
		n, from, err := unix.Recvfrom(r, b, f)
		fa, _ := from.(*unix.SockaddrInet4)
		say("udp: recvfrom %s: %d %s %q, from the sender %v", flagName(f), n, guest.Result(err), b[:max(n, 0)], fa != nil && fa.Port == wa.(*unix.SockaddrInet4).Port)
	}
	unix.Close(r)
	unix.Close(w)
}

func unixgram() {
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	check(err)
	unix.Write(p[0], []byte("one datagram"))
	recv("unix datagram pair", p[1], 3, unix.MSG_PEEK)
	recv("unix datagram pair", p[1], 100, 0)
	r := must(unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0))
	check(unix.Bind(r, &unix.SockaddrUnix{Name: "@recvflags"}))
	w := must(unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0))
	check(unix.Bind(w, &unix.SockaddrUnix{Name: "@recvflags-w"}))
	check(unix.Sendto(w, []byte("named"), 0, &unix.SockaddrUnix{Name: "@recvflags"}))
	b := make([]byte, 16)
	n, from, err := unix.Recvfrom(r, b, unix.MSG_PEEK)
	say("unix datagram: peek %d %s %q from %v", n, guest.Result(err), b[:max(n, 0)], name(from))
	n, from, err = unix.Recvfrom(r, b, 0)
	say("unix datagram: read %d %s %q from %v", n, guest.Result(err), b[:max(n, 0)], name(from))
	_, _, err = unix.Recvfrom(r, b, unix.MSG_DONTWAIT)
	say("unix datagram: MSG_DONTWAIT with nothing queued: %s", guest.Result(err))
}

// vectors: writev of three iovecs is one record; readv scatters one
// record over its iovecs and drops what does not fit.
func vectors() {
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET, 0)
	check(err)
	n, err := unix.Writev(p[0], [][]byte{[]byte("abc"), []byte("def"), []byte("ghi")})
	say("seqpacket: writev of 3+3+3 bytes: %d %s", n, guest.Result(err))
	unix.Write(p[0], []byte("second record"))
	a, b := make([]byte, 4), make([]byte, 10)
	n, err = unix.Readv(p[1], [][]byte{a, b})
	say("seqpacket: readv over 4+10 bytes: %d %s %q %q", n, guest.Result(err), a, b[:max(n-4, 0)])
	a, b = make([]byte, 2), make([]byte, 3)
	n, err = unix.Readv(p[1], [][]byte{a, b})
	say("seqpacket: readv over 2+3 bytes of a 13-byte record: %d %s %q %q", n, guest.Result(err), a, b)
	_, _, err = unix.Recvfrom(p[1], make([]byte, 1), unix.MSG_DONTWAIT)
	say("seqpacket: the record's rest went with it: %s", guest.Result(err))
}

func recv(kind string, fd, n, flags int) {
	b := make([]byte, n)
	got, _, err := unix.Recvfrom(fd, b, flags)
	say("%s: recv %d %s: %d %s %q", kind, n, flagName(flags), got, guest.Result(err), b[:max(got, 0)])
}

func flagName(f int) string {
	switch f {
	case 0:
		return "(no flags)"
	case unix.MSG_PEEK:
		return "MSG_PEEK"
	case unix.MSG_DONTWAIT:
		return "MSG_DONTWAIT"
	}
	return fmt.Sprint(f)
}

func name(sa unix.Sockaddr) string {
	if u, ok := sa.(*unix.SockaddrUnix); ok {
		return fmt.Sprintf("%q", u.Name)
	}
	return fmt.Sprint(sa)
}

func say(format string, a ...any) { fmt.Printf("recvflags: "+format+"\n", a...) }

func must(fd int, err error) int {
	check(err)
	return fd
}

func check(err error) {
	if err != nil {
		guest.Fail(err.Error())
	}
}
