//go:build linux && arm64

package main

// The creds part (scmrights creds): credentials over AF_UNIX sockets
// (SCM_CREDENTIALS and SO_PASSCRED, unix(7) and socket(7)) between this
// process and children it starts by running /init again (os/exec), one
// as root and one as uid and gid 1000: what a receiver with SO_PASSCRED
// is given with each message, the sender's own credentials Linux
// attaches when either end asks for them, which pids, uids and gids a
// sender may name, where a stream read stops, truncated control data,
// MSG_CMSG_CLOEXEC, and SO_PEERCRED. Each check prints "scmrights: ok
// NAME" or "scmrights: FAIL NAME: why"; pids differ from one kernel to
// another, so a check compares them with this process's and its
// children's.

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The ids a child runs as, and an id nobody has (Linux's overflow id,
// which it reports for one it cannot map or that was never set).
const (
	childID    = 1000
	overflowID = 65534
	// noID is (uid_t)-1, which no credentials may carry.
	noID = ^uint32(0)
)

var (
	self = int32(os.Getpid())
	// names maps the pids a check may meet to what it calls them.
	names = map[int32]string{}
)

func creds() {
	names[self] = "self"
	passcredOption()
	streamCreds()
	explicitCreds()
	streamEdges()
	truncation()
	acceptAndAutobind()
	datagrams()
	records()
	unprivileged()
	peercred()
	say("creds done")
	if os.Getpid() == 1 {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
}

// credsChild is /init creds-child MODE ARGS, a sender on descriptor 3.
func credsChild(args []string) {
	switch args[0] {
	case "write": // write(2) args[1]
		if _, err := unix.Write(3, []byte(args[1])); err != nil {
			say("FAIL child write: %v", err)
		}
	case "hold": // wait for descriptor 3 (a pipe) to close
		b := make([]byte, 1)
		unix.Read(3, b)
	case "sendto": // a datagram args[2] to the abstract name args[1]
		s := socket(unix.AF_UNIX, unix.SOCK_DGRAM)
		if err := unix.Sendto(s, []byte(args[2]), 0, &unix.SockaddrUnix{Name: args[1]}); err != nil {
			say("FAIL child sendto: %v", err)
		}
	case "unpriv": // what a process that is not root may send
		parent, _ := strconv.Atoi(args[1])
		me := int32(os.Getpid())
		try := func(name string, c unix.Ucred, want error) {
			err := sendCred(3, "u", &c, nil)
			check(name, err == want, "%v, want %v", errName(err), errName(want))
		}
		try("unpriv-own-creds", unix.Ucred{Pid: me, Uid: childID, Gid: childID}, nil)
		try("unpriv-other-pid", unix.Ucred{Pid: int32(parent), Uid: childID, Gid: childID}, unix.EPERM)
		try("unpriv-absent-pid", unix.Ucred{Pid: 99999, Uid: childID, Gid: childID}, unix.EPERM)
		try("unpriv-uid-0", unix.Ucred{Pid: me, Uid: 0, Gid: childID}, unix.EPERM)
		try("unpriv-gid-0", unix.Ucred{Pid: me, Uid: childID, Gid: 0}, unix.EPERM)
		try("unpriv-uid-invalid", unix.Ucred{Pid: me, Uid: noID, Gid: childID}, unix.EINVAL)
	case "connect": // connect to the abstract name args[1], see whose it is
		s := socket(unix.AF_UNIX, unix.SOCK_STREAM)
		if err := unix.Connect(s, &unix.SockaddrUnix{Name: args[1]}); err != nil {
			say("FAIL child connect: %v", err)
		}
		parent, _ := strconv.Atoi(args[2])
		c, err := unix.GetsockoptUcred(s, unix.SOL_SOCKET, unix.SO_PEERCRED)
		check("peercred-client-is-listener", err == nil && (*cred)(c).isCred(int32(parent), 0, 0), "%v %v", err, (*cred)(c))
	case "effective": // real and effective ids apart
		syscall.Setresgid(0, 2000, 0)
		syscall.Setresuid(0, childID, 0)
		me := int32(os.Getpid())
		s := cpair(unix.SOCK_STREAM)
		c, err := unix.GetsockoptUcred(s[0], unix.SOL_SOCKET, unix.SO_PEERCRED)
		check("peercred-effective-ids", err == nil && (*cred)(c).isCred(me, childID, 2000), "%v %v", err, (*cred)(c))
		passcred(s[0])
		unix.Write(s[1], []byte("ids"))
		m := recvmsg(s[0], 64, 64, 0)
		check("passcred-real-ids", m.is("ids", me, 0, 0), "%v", m)
	}
}

// passcredOption: SO_PASSCRED is off by default, set and read back on
// any socket, and needs an int.
func passcredOption() {
	s := socket(unix.AF_UNIX, unix.SOCK_STREAM)
	v, err := unix.GetsockoptInt(s, unix.SOL_SOCKET, unix.SO_PASSCRED)
	check("passcred-default-off", v == 0 && err == nil, "%d %v", v, err)
	unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_PASSCRED, 2)
	v, err = unix.GetsockoptInt(s, unix.SOL_SOCKET, unix.SO_PASSCRED)
	check("passcred-set", v == 1 && err == nil, "%d %v", v, err)
	var short [2]byte
	_, _, e := unix.Syscall6(unix.SYS_SETSOCKOPT, uintptr(s), unix.SOL_SOCKET, unix.SO_PASSCRED, uintptr(unsafe.Pointer(&short[0])), 2, 0)
	check("passcred-short-optlen", e == unix.EINVAL, "%v", errName(e))
	unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_PASSCRED, 0)
	v, _ = unix.GetsockoptInt(s, unix.SOL_SOCKET, unix.SO_PASSCRED)
	check("passcred-clear", v == 0, "%d", v)
	unix.Close(s)
	in := socket(unix.AF_INET, unix.SOCK_STREAM)
	err = unix.SetsockoptInt(in, unix.SOL_SOCKET, unix.SO_PASSCRED, 1)
	v, _ = unix.GetsockoptInt(in, unix.SOL_SOCKET, unix.SO_PASSCRED)
	check("passcred-inet", err == nil && v == 1, "%v %d", err, v)
	unix.Close(in)
}

// streamCreds: with SO_PASSCRED on the receiver every write carries its
// sender's credentials; a read glues bytes of one sender and stops
// where the sender changes, and a sender that has exited and been
// reaped still reads as its pid.
func streamCreds() {
	s := cpair(unix.SOCK_STREAM)
	passcred(s[0])
	unix.Write(s[1], []byte("p1"))
	unix.Write(s[1], []byte("p2"))
	m := recvmsg(s[0], 64, 64, 0)
	check("stream-own-creds-glued", m.is("p1p2", self, 0, 0), "%v", m)

	unix.Write(s[1], []byte("x"))
	c := runChild(childID, s[1], "write", "yy")
	unix.Write(s[1], []byte("z"))
	m1, m2, m3 := recvmsg(s[0], 64, 64, 0), recvmsg(s[0], 64, 64, 0), recvmsg(s[0], 64, 64, 0)
	check("stream-stops-at-sender", m1.is("x", self, 0, 0) && m2.is("yy", c, childID, childID) && m3.is("z", self, 0, 0),
		"%v; %v; %v", m1, m2, m3)

	// A plain read(2) stops there too.
	unix.Write(s[1], []byte("r1"))
	sendCred(s[1], "r2", &unix.Ucred{Pid: self, Uid: 7, Gid: 7}, nil)
	b := make([]byte, 64)
	n, _ := unix.Read(s[0], b)
	n2, _ := unix.Read(s[0], b[n:])
	check("stream-read-stops", n == 2 && n2 == 2 && string(b[:4]) == "r1r2", "%d %d %q", n, n2, b[:max(n+n2, 0)])

	// MSG_PEEK gives the credentials and stops at the same place.
	unix.Write(s[1], []byte("k1"))
	sendCred(s[1], "k2", &unix.Ucred{Pid: self, Uid: 7, Gid: 7}, nil)
	p1 := recvmsg(s[0], 64, 64, unix.MSG_PEEK)
	r1 := recvmsg(s[0], 64, 64, 0)
	p2 := recvmsg(s[0], 64, 64, unix.MSG_PEEK)
	r2 := recvmsg(s[0], 64, 64, 0)
	check("stream-peek-creds", p1.is("k1", self, 0, 0) && r1.is("k1", self, 0, 0) && p2.is("k2", self, 7, 7) && r2.is("k2", self, 7, 7),
		"%v; %v; %v; %v", p1, r1, p2, r2)

	// Several iovecs are filled from one sender only.
	unix.Write(s[1], []byte("v1"))
	sendCred(s[1], "v2", &unix.Ucred{Pid: self, Uid: 8, Gid: 8}, nil)
	bufs := [][]byte{make([]byte, 1), make([]byte, 8)}
	oob := make([]byte, 64)
	n, oobn, _, _, err := unix.RecvmsgBuffers(s[0], bufs, oob, 0)
	got := string(bufs[0][:min(n, 1)]) + string(bufs[1][:max(n-1, 0)])
	check("stream-iovecs-stop", err == nil && got == "v1" && credOf(oob[:oobn]).isCred(self, 0, 0), "%q %v %v", got, err, credOf(oob[:oobn]))
	recvmsg(s[0], 64, 64, 0)
	closeAll(s[:])
}

// explicitCreds: root may name any pid that exists (a thread's, a
// zombie's) and any uid and gid but -1; what it names is delivered.
func explicitCreds() {
	s := cpair(unix.SOCK_STREAM)
	passcred(s[0])
	pr, pw := cpipe()
	hold := startChild(0, pr, "hold")
	unix.Close(pr)
	h := int32(hold.Process.Pid)
	names[h] = "held child"
	err := sendCred(s[1], "e", &unix.Ucred{Pid: h, Uid: 4242, Gid: 4343}, nil)
	m := recvmsg(s[0], 64, 64, 0)
	check("explicit-other-pid", err == nil && m.is("e", h, 4242, 4343), "%v %v", errName(err), m)

	tid := otherThread()
	names[tid] = "a thread"
	err = sendCred(s[1], "t", &unix.Ucred{Pid: tid, Uid: 0, Gid: 0}, nil)
	m = recvmsg(s[0], 64, 64, 0)
	check("explicit-thread-id", err == nil && m.is("t", tid, 0, 0), "%v %v", errName(err), m)

	// The held child exits: a zombie's pid may still be named; once
	// reaped, not.
	unix.Close(pw)
	var info [128]byte
	_, _, e := unix.Syscall6(unix.SYS_WAITID, unix.P_PID, uintptr(h), uintptr(unsafe.Pointer(&info[0])), unix.WEXITED|unix.WNOWAIT, 0, 0)
	if e != 0 {
		say("FAIL waitid: %v", e)
	}
	err = sendCred(s[1], "z", &unix.Ucred{Pid: h, Uid: 0, Gid: 0}, nil)
	m = recvmsg(s[0], 64, 64, 0)
	check("explicit-zombie-pid", err == nil && m.is("z", h, 0, 0), "%v %v", errName(err), m)
	hold.Wait()
	err = sendCred(s[1], "g", &unix.Ucred{Pid: h, Uid: 0, Gid: 0}, nil)
	check("explicit-reaped-pid", err == unix.ESRCH, "%v", errName(err))

	for _, c := range []struct {
		name string
		cred unix.Ucred
		want error
	}{
		{"explicit-pid-0", unix.Ucred{Pid: 0}, unix.ESRCH},
		{"explicit-pid-negative", unix.Ucred{Pid: -5}, unix.ESRCH},
		{"explicit-uid-invalid", unix.Ucred{Pid: self, Uid: noID}, unix.EINVAL},
		{"explicit-gid-invalid", unix.Ucred{Pid: self, Gid: noID}, unix.EINVAL},
	} {
		err := sendCred(s[1], "n", &c.cred, nil)
		check(c.name, err == c.want, "%v, want %v", errName(err), errName(c.want))
	}
	// A control message of the wrong length, one of another level (not
	// looked at) and one of an unknown SOL_SOCKET type.
	oob := unix.UnixCredentials(&unix.Ucred{Pid: self})
	(*unix.Cmsghdr)(unsafe.Pointer(&oob[0])).Len = uint64(unix.CmsgLen(8))
	err = unix.Sendmsg(s[1], []byte("l"), oob, nil, 0)
	check("explicit-bad-length", err == unix.EINVAL, "%v", errName(err))
	other := cmsg(unix.SOL_IP, 1, 4)
	err = unix.Sendmsg(s[1], []byte("o"), other, nil, 0)
	m = recvmsg(s[0], 64, 64, 0)
	check("cmsg-other-level-ignored", err == nil && m.is("o", self, 0, 0), "%v %v", errName(err), m)
	err = unix.Sendmsg(s[1], []byte("u"), cmsg(unix.SOL_SOCKET, 99, 4), nil, 0)
	check("cmsg-unknown-type", err == unix.EINVAL, "%v", errName(err))
	// Explicit credentials are checked, and attached, with nobody asking.
	q := cpair(unix.SOCK_STREAM)
	err = sendCred(q[1], "m1", &unix.Ucred{Pid: self, Uid: 0, Gid: 0}, nil)
	sendCred(q[1], "m2", &unix.Ucred{Pid: self, Uid: 5, Gid: 5}, nil)
	m = recvmsg(q[0], 64, 64, 0)
	check("no-passcred-glues", err == nil && m.data == "m1m2" && m.cred == nil && m.oobn == 0 && m.flags == 0, "%v", m)
	sendCred(q[1], "m3", &unix.Ucred{Pid: self, Uid: 5, Gid: 5}, nil)
	passcred(q[0])
	m = recvmsg(q[0], 64, 64, 0)
	check("explicit-without-passcred", m.is("m3", self, 5, 5), "%v", m)
	err = sendCred(q[1], "i", &unix.Ucred{Pid: self, Uid: noID}, nil)
	check("explicit-checked-without-passcred", err == unix.EINVAL, "%v", errName(err))
	closeAll(q[:])
	closeAll(s[:])
}

// streamEdges: what was sent with nobody asking carries no credentials;
// a sender's own SO_PASSCRED attaches them; the end of the stream.
func streamEdges() {
	s := cpair(unix.SOCK_STREAM)
	unix.Write(s[1], []byte("early"))
	passcred(s[0])
	unix.Write(s[1], []byte("late"))
	m1, m2 := recvmsg(s[0], 64, 64, 0), recvmsg(s[0], 64, 64, 0)
	check("stream-none-before-passcred", m1.is("early", 0, overflowID, overflowID) && m2.is("late", self, 0, 0), "%v; %v", m1, m2)
	closeAll(s[:])

	s = cpair(unix.SOCK_STREAM)
	passcred(s[1])
	unix.Write(s[1], []byte("w"))
	passcred(s[0])
	m := recvmsg(s[0], 64, 64, 0)
	check("stream-sender-passcred", m.is("w", self, 0, 0), "%v", m)
	unix.Close(s[1])
	m = recvmsg(s[0], 64, 64, 0)
	check("stream-eof-creds", m.is("", 0, 0, 0), "%v", m)
	unix.Close(s[0])
}

// truncation: the credentials cut to the room given, MSG_CTRUNC; with
// descriptors, credentials first; MSG_CMSG_CLOEXEC in msg_flags.
func truncation() {
	s := cpair(unix.SOCK_STREAM)
	passcred(s[0])
	unix.Write(s[1], []byte("t1"))
	m := recvmsg(s[0], 64, unix.CmsgLen(12), 0)
	check("creds-exact-room", m.is("t1", self, 0, 0) && m.oobn == unix.CmsgLen(12) && m.flags == 0, "%v", m)
	unix.Write(s[1], []byte("t2"))
	m = recvmsg(s[0], 64, 20, 0)
	check("creds-cut", m.data == "t2" && m.oobn == 20 && m.hdrLen == 20 && m.flags == unix.MSG_CTRUNC, "%v", m)
	unix.Write(s[1], []byte("t3"))
	m = recvmsg(s[0], 64, 8, 0)
	check("creds-no-room", m.data == "t3" && m.oobn == 0 && m.flags == unix.MSG_CTRUNC, "%v", m)
	unix.Write(s[1], []byte("t4"))
	m = recvmsg(s[0], 64, 0, 0)
	check("creds-no-control", m.data == "t4" && m.oobn == 0 && m.flags == unix.MSG_CTRUNC, "%v", m)

	pr, pw := cpipe()
	oob := append(unix.UnixCredentials(&unix.Ucred{Pid: self, Uid: 3, Gid: 3}), unix.UnixRights(pw)...)
	err := unix.Sendmsg(s[1], []byte("cr"), oob, nil, 0)
	m = recvmsg(s[0], 64, 64, unix.MSG_CMSG_CLOEXEC)
	cloexec := len(m.fds) == 1 && fdCloexec(m.fds[0])
	check("creds-then-rights", err == nil && m.is("cr", self, 3, 3) && m.first == unix.SCM_CREDENTIALS && cloexec &&
		m.flags == unix.MSG_CMSG_CLOEXEC && m.oobn == unix.CmsgSpace(12)+unix.CmsgSpace(4), "%v %v", errName(err), m)
	closeAll(m.fds)
	unix.Sendmsg(s[1], []byte("cr"), oob, nil, 0)
	m = recvmsg(s[0], 64, unix.CmsgSpace(12), 0)
	check("creds-room-no-rights", m.is("cr", self, 3, 3) && len(m.fds) == 0 && m.flags == unix.MSG_CTRUNC, "%v", m)
	closeAll([]int{pr, pw})
	closeAll(s[:])

	q := cpair(unix.SOCK_STREAM)
	unix.Write(q[1], []byte("f"))
	m = recvmsg(q[0], 64, 64, unix.MSG_CMSG_CLOEXEC)
	check("flags-cmsg-cloexec", m.data == "f" && m.flags == unix.MSG_CMSG_CLOEXEC && m.oobn == 0, "%v", m)
	closeAll(q[:])
}

// acceptAndAutobind: an accepted socket takes SO_PASSCRED from its
// listener; what a client sends before its connection is accepted
// carries its credentials; SO_PASSCRED names an unnamed socket at
// connect and at a datagram's send (an abstract autobind name).
func acceptAndAutobind() {
	l := listener("@scmcreds-l1")
	passcred(l)
	c := socket(unix.AF_UNIX, unix.SOCK_STREAM)
	unix.Connect(c, &unix.SockaddrUnix{Name: "@scmcreds-l1"})
	a, _, err := unix.Accept(l)
	v, _ := unix.GetsockoptInt(a, unix.SOL_SOCKET, unix.SO_PASSCRED)
	check("accept-inherits-passcred", err == nil && v == 1, "%v %d", err, v)
	closeAll([]int{a, c, l})

	l = listener("@scmcreds-l2")
	c = socket(unix.AF_UNIX, unix.SOCK_STREAM)
	unix.Connect(c, &unix.SockaddrUnix{Name: "@scmcreds-l2"})
	unix.Write(c, []byte("before"))
	a, _, _ = unix.Accept(l)
	unix.Write(c, []byte("after"))
	passcred(a)
	m1, m2 := recvmsg(a, 64, 64, 0), recvmsg(a, 64, 64, 0)
	check("creds-before-accept", m1.is("before", self, 0, 0) && m2.is("after", 0, overflowID, overflowID), "%v; %v", m1, m2)

	c2 := socket(unix.AF_UNIX, unix.SOCK_STREAM)
	passcred(c2)
	unix.Connect(c2, &unix.SockaddrUnix{Name: "@scmcreds-l2"})
	sa, _ := unix.Getsockname(c2)
	check("autobind-connect", autobound(sa), "%v", sa)
	a2, _, _ := unix.Accept(l)
	pa, _ := unix.Getpeername(a2)
	check("autobind-connect-peer", autobound(pa), "%v", pa)
	closeAll([]int{a, a2, c, c2, l})
}

// datagrams: named AF_UNIX datagram sockets, credentials per datagram.
func datagrams() {
	r := socket(unix.AF_UNIX, unix.SOCK_DGRAM)
	unix.Bind(r, &unix.SockaddrUnix{Name: "@scmcreds-r"})
	passcred(r)
	c := runChild(childID, -1, "sendto", "@scmcreds-r", "d1")
	p := recvmsg(r, 64, 64, unix.MSG_PEEK)
	m := recvmsg(r, 64, 64, 0)
	check("dgram-child-creds", p.is("d1", c, childID, childID) && m.is("d1", c, childID, childID), "%v; %v", p, m)

	u := socket(unix.AF_UNIX, unix.SOCK_DGRAM)
	to := &unix.SockaddrUnix{Name: "@scmcreds-r"}
	err := sendCred(u, "d2", &unix.Ucred{Pid: self, Uid: 9, Gid: 9}, to)
	unix.Sendto(u, []byte("d3"), 0, to)
	m2, m3 := recvmsg(r, 64, 64, 0), recvmsg(r, 64, 64, 0)
	check("dgram-explicit-then-own", err == nil && m2.is("d2", self, 9, 9) && m3.is("d3", self, 0, 0), "%v %v; %v", errName(err), m2, m3)
	check("dgram-unnamed-sender", m3.from == nil, "%v", m3.from)

	passcred(u)
	unix.Sendto(u, []byte("d4"), 0, to)
	m = recvmsg(r, 64, 64, 0)
	check("autobind-dgram-send", m.is("d4", self, 0, 0) && autobound(m.from), "%v from %v", m, m.from)
	sa, _ := unix.Getsockname(u)
	check("autobind-dgram-name", autobound(sa), "%v", sa)
	closeAll([]int{r, u})

	r = socket(unix.AF_UNIX, unix.SOCK_DGRAM)
	unix.Bind(r, &unix.SockaddrUnix{Name: "@scmcreds-r2"})
	u = socket(unix.AF_UNIX, unix.SOCK_DGRAM)
	unix.Sendto(u, []byte("d5"), 0, &unix.SockaddrUnix{Name: "@scmcreds-r2"})
	passcred(r)
	m = recvmsg(r, 64, 64, 0)
	check("dgram-none-before-passcred", m.is("d5", 0, overflowID, overflowID), "%v", m)
	closeAll([]int{r, u})
}

// records: seqpacket and datagram socketpairs, credentials per record;
// seqpacket's end of file has none.
func records() {
	for _, k := range []struct {
		typ  int
		name string
	}{{unix.SOCK_SEQPACKET, "seqpacket"}, {unix.SOCK_DGRAM, "dgram-pair"}} {
		s := pair(k.typ)
		passcred(s[0])
		c := runChild(childID, s[1], "write", "rec1")
		err := sendCred(s[1], "rec2", &unix.Ucred{Pid: self, Uid: 6, Gid: 6}, nil)
		unix.Write(s[1], []byte("rec3"))
		m1, m2, m3 := recvmsg(s[0], 64, 64, 0), recvmsg(s[0], 64, 64, 0), recvmsg(s[0], 64, 64, 0)
		check(k.name+"-record-creds", err == nil && m1.is("rec1", c, childID, childID) && m2.is("rec2", self, 6, 6) && m3.is("rec3", self, 0, 0),
			"%v %v; %v; %v", errName(err), m1, m2, m3)
		// The Go test's message: no data, credentials only.
		if k.typ == unix.SOCK_DGRAM {
			oob := unix.UnixCredentials(&unix.Ucred{Pid: self})
			_, err := unix.SendmsgN(s[1], nil, oob, nil, 0)
			b, o := make([]byte, 8), make([]byte, 64)
			n, oobn, flags, _, err2 := unix.Recvmsg(s[0], b[:0], o, 0)
			check("dgram-pair-empty-with-creds", err == nil && err2 == nil && n == 0 && oobn == len(oob) && flags == 0 && string(o[:oobn]) == string(oob),
				"%v %v %d %d %#x", err, err2, n, oobn, flags)
		} else {
			unix.Close(s[1])
			m := recvmsg(s[0], 64, 64, 0)
			check("seqpacket-eof-no-creds", m.data == "" && m.err == nil && m.oobn == 0 && m.flags == 0, "%v", m)
		}
		closeAll(s[:])
	}
}

// unprivileged: a child as uid 1000 may send only its own pid and ids.
func unprivileged() {
	s := cpair(unix.SOCK_STREAM)
	passcred(s[0])
	c := runChild(childID, s[1], "unpriv", strconv.Itoa(int(self)))
	m := recvmsg(s[0], 64, 64, 0)
	check("unpriv-received", m.is("u", c, childID, childID), "%v", m)
	closeAll(s[:])
}

// peercred: SO_PEERCRED names the peer's process and its effective ids
// as they were when the connection was made (socketpair, listen and
// connect record them); a socket with no peer has pid 0 and ids -1.
func peercred() {
	get := func(s int) (*cred, error) {
		c, err := unix.GetsockoptUcred(s, unix.SOL_SOCKET, unix.SO_PEERCRED)
		return (*cred)(c), err
	}
	s := cpair(unix.SOCK_STREAM)
	a, err := get(s[0])
	b, _ := get(s[1])
	check("peercred-pair", err == nil && a.isCred(self, 0, 0) && b.isCred(self, 0, 0), "%v %v %v", err, a, b)
	closeAll(s[:])
	u := socket(unix.AF_UNIX, unix.SOCK_STREAM)
	c, err := get(u)
	check("peercred-unconnected", err == nil && c.isCred(0, noID, noID), "%v %v", err, c)
	in := socket(unix.AF_INET, unix.SOCK_STREAM)
	c, err = get(in)
	check("peercred-inet", err == nil && c.isCred(0, noID, noID), "%v %v", err, c)
	closeAll([]int{u, in})

	l := listener("@scmcreds-pc")
	c, err = get(l)
	check("peercred-listener", err == nil && c.isCred(self, 0, 0), "%v %v", err, c)
	ch := runChild(childID, -1, "connect", "@scmcreds-pc", strconv.Itoa(int(self)))
	a2, _, err := unix.Accept(l)
	c, err2 := get(a2)
	check("peercred-accepted-is-client", err == nil && err2 == nil && c.isCred(ch, childID, childID), "%v %v %v", err, err2, c)
	closeAll([]int{a2, l})
	runChild(0, -1, "effective")
}

// msg is what one recvmsg brought.
type msg struct {
	data   string
	cred   *unix.Ucred
	first  int32 // the first control message's type
	hdrLen uint64
	fds    []int
	oobn   int
	flags  int
	from   unix.Sockaddr
	err    error
}

func (m msg) String() string {
	if m.err != nil {
		return errName(m.err)
	}
	return fmt.Sprintf("%q creds %v oobn %d flags %#x fds %d", m.data, (*cred)(m.cred).String(), m.oobn, m.flags, len(m.fds))
}

// is reports whether m brought data with credentials pid, uid, gid.
func (m msg) is(data string, pid int32, uid, gid uint32) bool {
	return m.err == nil && m.data == data && (*cred)(m.cred).isCred(pid, uid, gid)
}

type cred unix.Ucred

func (c *cred) isCred(pid int32, uid, gid uint32) bool {
	return c != nil && c.Pid == pid && c.Uid == uid && c.Gid == gid
}

func (c *cred) String() string {
	if c == nil {
		return "none"
	}
	who := names[c.Pid]
	if who == "" {
		who = strconv.Itoa(int(c.Pid))
	}
	return fmt.Sprintf("{%s %d %d}", who, c.Uid, c.Gid)
}

// credOf is the credentials in control data.
func credOf(oob []byte) *cred {
	cms, _ := unix.ParseSocketControlMessage(oob)
	for _, c := range cms {
		if c.Header.Level == unix.SOL_SOCKET && c.Header.Type == unix.SCM_CREDENTIALS {
			if u, err := unix.ParseUnixCredentials(&c); err == nil {
				return (*cred)(u)
			}
		}
	}
	return nil
}

func recvmsg(s, n, oobLen, flags int) msg {
	b := make([]byte, n)
	oob := make([]byte, oobLen)
	k, oobn, rflags, from, err := unix.Recvmsg(s, b, oob, flags)
	if err != nil {
		return msg{err: err}
	}
	m := msg{data: string(b[:k]), oobn: oobn, flags: rflags, from: from}
	if oobn >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		m.first, m.hdrLen = h.Type, h.Len
	}
	cms, _ := unix.ParseSocketControlMessage(oob[:oobn])
	for _, c := range cms {
		switch {
		case c.Header.Type == unix.SCM_CREDENTIALS:
			if u, err := unix.ParseUnixCredentials(&c); err == nil {
				m.cred = u
			}
		case c.Header.Type == unix.SCM_RIGHTS:
			fds, _ := unix.ParseUnixRights(&c)
			m.fds = append(m.fds, fds...)
		}
	}
	return m
}

func sendCred(s int, data string, c *unix.Ucred, to unix.Sockaddr) error {
	return unix.Sendmsg(s, []byte(data), unix.UnixCredentials(c), to, 0)
}

// cmsg is a control message of level and type with n zero bytes.
func cmsg(level, typ int32, n int) []byte {
	b := make([]byte, unix.CmsgSpace(n))
	h := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
	h.Level, h.Type = level, typ
	h.SetLen(unix.CmsgLen(n))
	return b
}

// autobound reports an abstract name of five hex digits (unix_autobind).
func autobound(sa unix.Sockaddr) bool {
	u, ok := sa.(*unix.SockaddrUnix)
	if !ok || len(u.Name) != 6 || u.Name[0] != '@' {
		return false
	}
	_, err := strconv.ParseUint(u.Name[1:], 16, 32)
	return err == nil
}

func passcred(s int) {
	if err := unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		say("FAIL SO_PASSCRED: %v", err)
	}
}

func socket(family, typ int) int {
	s, err := unix.Socket(family, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		say("FAIL socket: %v", err)
		os.Exit(1)
	}
	return s
}

// cpair and cpipe are pair and pipe with close-on-exec descriptors, so
// that only what a child is given reaches it.
func cpair(typ int) [2]int { return pair(typ | unix.SOCK_CLOEXEC) }

func cpipe() (r, w int) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		say("FAIL pipe: %v", err)
		os.Exit(1)
	}
	return p[0], p[1]
}

func listener(name string) int {
	l := socket(unix.AF_UNIX, unix.SOCK_STREAM)
	if err := unix.Bind(l, &unix.SockaddrUnix{Name: name}); err != nil {
		say("FAIL bind: %v", err)
	}
	unix.Listen(l, 4)
	return l
}

// startChild runs /init creds-child args as uid and gid id with fd
// (unless -1) as its descriptor 3.
func startChild(id uint32, fd int, args ...string) *exec.Cmd {
	cmd := exec.Command("/init", append([]string{"creds-child"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if fd >= 0 {
		d, _ := unix.Dup(fd)
		f := os.NewFile(uintptr(d), "sender")
		defer f.Close()
		cmd.ExtraFiles = []*os.File{f}
	}
	if id != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: id, Gid: id}}
	}
	if err := cmd.Start(); err != nil {
		say("FAIL child: %v", err)
		os.Exit(1)
	}
	return cmd
}

// runChild runs a child to its end and returns its pid.
func runChild(id uint32, fd int, args ...string) int32 {
	cmd := startChild(id, fd, args...)
	if err := cmd.Wait(); err != nil {
		say("FAIL child %v: %v", args, err)
	}
	pid := int32(cmd.Process.Pid)
	names[pid] = "child"
	return pid
}

// otherThread returns the id of a thread of this process other than its
// first, which stays alive.
func otherThread() int32 {
	ids := make(chan int32)
	for i := 0; i < 8; i++ {
		go func() {
			runtime.LockOSThread()
			ids <- int32(unix.Gettid())
			select {} // keep the thread
		}()
		if tid := <-ids; tid != self {
			return tid
		}
	}
	say("FAIL no thread but the first")
	return self
}

func fdCloexec(fd int) bool {
	fl, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return fl&unix.FD_CLOEXEC != 0
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

func check(name string, ok bool, format string, args ...any) {
	if ok {
		say("ok %s", name)
		return
	}
	say("FAIL %s: %s", name, fmt.Sprintf(format, args...))
}
