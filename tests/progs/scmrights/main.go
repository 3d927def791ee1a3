//go:build linux && arm64

// Command scmrights passes descriptors over AF_UNIX connections
// (SCM_RIGHTS) and prints what arrived, so that its output can be
// compared line for line with Linux's: which bytes come with which
// descriptors on a stream, that a received descriptor is the same open
// file (a pipe's write end: bytes written through it come out of the
// pipe), that read(2) drops the descriptors it passes over (the pipe
// then sees EOF), MSG_CMSG_CLOEXEC, MSG_CTRUNC when the control buffer
// is too small, seqpacket records, and EBADF for a descriptor not open.
// "scmrights creds" checks credentials instead (creds.go).
package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "creds-child" {
		credsChild(os.Args[2:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "creds" {
		creds()
		return
	}
	stream()
	seqpacket()
	datagram()
	fmt.Println("scmrights: done")
}

// stream: "a"+fd, "b", "c"+fd, "d" sent; what each recvmsg returns.
func stream() {
	s := pair(unix.SOCK_STREAM)
	pr, pw := pipe()
	send(s[0], "a", pw)
	send(s[0], "b", -1)
	send(s[0], "c", pw)
	send(s[0], "d", -1)
	receive("stream", s[1], 3, pr)
	// A plain read passes over a message with a descriptor: it is
	// closed, and with the sender's own copy closed the pipe sees EOF.
	pr2, pw2 := pipe()
	send(s[0], "e", pw2)
	unix.Close(pw2)
	b := make([]byte, 8)
	n, _ := unix.Read(s[1], b)
	say("read(2) of a message with a descriptor: %q; the pipe then reads %s", b[:n], readAll(pr2))

	// MSG_CMSG_CLOEXEC, and a control buffer with no room.
	send(s[0], "f", pw)
	_, fds, _ := recv(s[1], 64, 4, unix.MSG_CMSG_CLOEXEC)
	for _, fd := range fds {
		fl, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		say("MSG_CMSG_CLOEXEC: FD_CLOEXEC %v", fl&unix.FD_CLOEXEC != 0)
		unix.Close(fd)
	}
	send(s[0], "g", pw)
	data, fds, flags := recv(s[1], 64, 0, 0)
	say("no room for control data: %q, %d descriptors%s", data, len(fds), trunc(flags))
	err := unix.Sendmsg(s[0], []byte("h"), unix.UnixRights(999), nil, 0)
	say("sending descriptor 999 (not open): %v", errName(err))
	err = unix.Sendmsg(s[0], []byte("h"), []byte{1, 2, 3}, nil, 0)
	say("a malformed control buffer: %v", errName(err))
}

// seqpacket: a record with two descriptors, then one without.
func seqpacket() {
	s := pair(unix.SOCK_SEQPACKET)
	pr, pw := pipe()
	if err := unix.Sendmsg(s[0], []byte("rec1"), unix.UnixRights(pw, pw), nil, 0); err != nil {
		say("seqpacket send: %v", err)
	}
	send(s[0], "rec2", -1)
	receive("seqpacket", s[1], 2, pr)
}

// datagram: named AF_UNIX datagram sockets (abstract names) and a
// datagram socketpair; descriptors with a datagram, read(2) of one, and
// one still queued when its receiver closes.
func datagram() {
	a, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err != nil {
		say("socket: %v", err)
		os.Exit(1)
	}
	b, _ := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	to := &unix.SockaddrUnix{Name: "@scmrights-b"}
	if err := unix.Bind(b, to); err != nil {
		say("bind: %v", err)
		os.Exit(1)
	}
	pr, pw := pipe()
	sendTo := func(data string, fd int) {
		var oob []byte
		if fd >= 0 {
			oob = unix.UnixRights(fd)
		}
		if err := unix.Sendmsg(a, []byte(data), oob, to, 0); err != nil {
			say("sendmsg %q: %v", data, err)
		}
	}
	sendTo("dg1", pw)
	sendTo("dg2", -1)
	receive("datagram", b, 2, pr)

	pr2, pw2 := pipe()
	sendTo("dg3", pw2)
	unix.Close(pw2)
	buf := make([]byte, 8)
	n, _ := unix.Read(b, buf)
	say("read(2) of a datagram with a descriptor: %q; the pipe then reads %s", buf[:n], readAll(pr2))

	pr3, pw3 := pipe()
	sendTo("dg4", pw3)
	unix.Close(pw3)
	unix.Close(b)
	say("a datagram with a descriptor still queued when its receiver closes: the pipe reads %s", readAll(pr3))

	s := pair(unix.SOCK_DGRAM)
	send(s[0], "pair", pw)
	receive("datagram pair", s[1], 1, pr)
}

// receive does n recvmsg calls on s and says what each brought; each
// descriptor received is tried (through) and closed.
func receive(kind string, s, n, pr int) {
	for i := 0; i < n; i++ {
		data, fds, flags := recv(s, 64, 4, 0)
		say("%s recvmsg %d: %q, %d descriptors%s", kind, i+1, data, len(fds), trunc(flags))
		for _, fd := range fds {
			through(fd, pr)
			unix.Close(fd)
		}
	}
}

// through writes through the received descriptor fd and reads the
// bytes back from the pipe's read end pr.
func through(fd, pr int) {
	unix.Write(fd, []byte("via"))
	b := make([]byte, 8)
	n, _ := unix.Read(pr, b)
	say("  a write through the received descriptor comes out of the pipe: %q", b[:n])
}

func pair(typ int) [2]int {
	s, err := unix.Socketpair(unix.AF_UNIX, typ, 0)
	if err != nil {
		say("socketpair: %v", err)
		os.Exit(1)
	}
	return s
}

func pipe() (r, w int) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		say("pipe: %v", err)
		os.Exit(1)
	}
	return p[0], p[1]
}

// send sends data, with descriptor fd if fd >= 0.
func send(s int, data string, fd int) {
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	if err := unix.Sendmsg(s, []byte(data), oob, nil, 0); err != nil {
		say("sendmsg %q: %v", data, err)
	}
}

// recv receives into n bytes with room for room descriptors.
func recv(s, n, room, flags int) (string, []int, int) {
	b := make([]byte, n)
	oob := make([]byte, 0)
	if room > 0 {
		oob = make([]byte, unix.CmsgSpace(4*room))
	}
	k, oobn, rflags, _, err := unix.Recvmsg(s, b, oob, flags)
	if err != nil {
		say("recvmsg: %v", err)
		return "", nil, 0
	}
	var fds []int
	msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
	for _, m := range msgs {
		f, err := unix.ParseUnixRights(&m)
		if err == nil {
			fds = append(fds, f...)
		}
	}
	return string(b[:k]), fds, rflags
}

func readAll(fd int) string {
	b := make([]byte, 8)
	n, err := unix.Read(fd, b)
	if n == 0 && err == nil {
		return "EOF"
	}
	return fmt.Sprintf("%q %v", b[:max(n, 0)], err)
}

func trunc(flags int) string {
	if flags&unix.MSG_CTRUNC != 0 {
		return " (MSG_CTRUNC)"
	}
	return ""
}

func errName(err error) string {
	if e, ok := err.(unix.Errno); ok {
		return unix.ErrnoName(e)
	}
	return fmt.Sprint(err)
}

func say(format string, args ...any) { fmt.Printf("scmrights: "+format+"\n", args...) }
