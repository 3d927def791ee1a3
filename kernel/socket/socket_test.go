//go:build !arm64

package socket

import (
	"testing"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Sockets on the host, over real vfs pipes, with Go memory as the app's
// (usermem.HostReset) and sched's thread table for waiters.

var lo = [4]byte{127, 0, 0, 1}

func setup(t *testing.T) uintptr {
	t.Helper()
	buf := usermem.HostReset(64, 4)
	sched.Reset(1)
	vfs.Reset()
	Reset()
	return buf
}

// open gives k a description, as socket(2) and accept(2) do.
func open(t *testing.T, k *Socket) *vfs.File {
	t.Helper()
	fi := vfs.Alloc(k, unix.O_RDWR|unix.O_NONBLOCK)
	if fi < 0 {
		t.Fatal("no free description")
	}
	k.Opened()
	return &vfs.Files[fi]
}

func newOpen(t *testing.T) (*Socket, *vfs.File) {
	t.Helper()
	return newOfFamily(t, unix.AF_INET)
}

// newOfFamily makes a socket of family with a description.
func newOfFamily(t *testing.T, family uint16) (*Socket, *vfs.File) {
	t.Helper()
	k := New(family)
	if k == nil {
		t.Fatal("socket table full")
	}
	return k, open(t, k)
}

func send(t *testing.T, f *vfs.File, buf uintptr, s string) uint64 {
	t.Helper()
	usermem.CopyOut(buf, []byte(s))
	return f.Impl.Write(f, buf, uint64(len(s)), -1)
}

func recv(t *testing.T, f *vfs.File, buf uintptr) (string, uint64) {
	t.Helper()
	r := f.Impl.Read(f, buf, 256, -1)
	if vfs.IsErr(r) {
		return "", r
	}
	b := make([]byte, r)
	usermem.CopyIn(b, buf)
	return string(b), r
}

// listen makes a listener on port.
func listen(t *testing.T, port uint16) (*Socket, *vfs.File) {
	t.Helper()
	l, lf := newOpen(t)
	if e := l.Bind(port, lo); e != 0 {
		t.Fatalf("bind %d: %v", port, e)
	}
	if e := l.Listen(); e != 0 {
		t.Fatalf("listen: %v", e)
	}
	return l, lf
}

// dial makes a socket connected to the listener on port.
func dial(t *testing.T, port uint16) (*Socket, *vfs.File) {
	t.Helper()
	c, cf := newOpen(t)
	if e := c.Connect(port, lo, false); e != 0 {
		t.Fatalf("connect %d: %v", port, e)
	}
	return c, cf
}

// accept takes the first queued connection, as accept(2) does.
func accept(t *testing.T, l *Socket) (*Socket, *vfs.File) {
	t.Helper()
	s := l.Pending()
	if s == nil {
		t.Fatal("nothing queued")
	}
	f := open(t, s)
	l.Dequeue(s)
	return s, f
}

// connect, accept, and bytes both ways; the names match end to end.
func TestLoopbackConnection(t *testing.T) {
	buf := setup(t)
	l, lf := listen(t, 8080)
	if r := l.Readiness(lf); r != 0 {
		t.Errorf("idle listener readiness %#x", r)
	}
	c, cf := newOpen(t)
	if e := c.Connect(8080, lo, false); e != 0 {
		t.Fatalf("connect: %v", e)
	}
	if r := l.Readiness(lf); r&unix.EPOLLIN == 0 {
		t.Errorf("listener with a queued connection not readable: %#x", r)
	}
	s, sf := accept(t, l)
	if l.Pending() != nil {
		t.Error("queue not empty after accept")
	}
	if s.Port != 8080 || s.PeerPort != c.Port || c.PeerPort != 8080 || c.Port < ephemeralBase {
		t.Errorf("ports: server %d peer %d, client %d peer %d", s.Port, s.PeerPort, c.Port, c.PeerPort)
	}
	if r := send(t, cf, buf, "ping"); r != 4 {
		t.Fatalf("client write = %#x", r)
	}
	if r := s.Readiness(sf); r&unix.EPOLLIN == 0 {
		t.Errorf("server end with data not readable: %#x", r)
	}
	if got, _ := recv(t, sf, buf); got != "ping" {
		t.Errorf("server read %q", got)
	}
	if _, r := recv(t, sf, buf); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("read with nothing sent = %#x, want EAGAIN", r)
	}
	send(t, sf, buf, "pong")
	if got, _ := recv(t, cf, buf); got != "pong" {
		t.Errorf("client read %q", got)
	}
}

// The errors connect, bind and listen give, as on Linux.
func TestLoopbackErrors(t *testing.T) {
	setup(t)
	listen(t, 9000)
	k, _ := newOpen(t)
	if e := k.Connect(9001, lo, false); e != unix.ECONNREFUSED {
		t.Errorf("connect to no listener: %v", e)
	}
	if e := k.Connect(9000, [4]byte{10, 0, 0, 1}, false); e != unix.ENETUNREACH {
		t.Errorf("connect off the loopback: %v", e)
	}
	if e := k.Bind(9000, lo); e != unix.EADDRINUSE {
		t.Errorf("bind to a port in use: %v", e)
	}
	if e := k.Bind(9002, [4]byte{192, 168, 0, 1}); e != unix.EADDRNOTAVAIL {
		t.Errorf("bind off the loopback: %v", e)
	}
	if e := k.Connect(9000, lo, false); e != 0 {
		t.Fatalf("connect: %v", e)
	}
	if e := k.Connect(9000, lo, false); e != unix.EISCONN {
		t.Errorf("second connect: %v", e)
	}
	if e := k.Listen(); e != unix.EINVAL {
		t.Errorf("listen on a connected socket: %v", e)
	}
	u, _ := newOpen(t)
	if e := u.Shutdown(unix.SHUT_WR); e != unix.ENOTCONN {
		t.Errorf("shutdown unconnected: %v", e)
	}
}

// shutdown(SHUT_WR): the peer reads what was sent, then EOF, and sees
// RDHUP; the shut side's writes fail with EPIPE.
func TestShutdownWriteGivesPeerEOF(t *testing.T) {
	buf := setup(t)
	l, _ := listen(t, 7000)
	c, cf := dial(t, 7000)
	s, sf := accept(t, l)
	send(t, cf, buf, "last")
	if e := c.Shutdown(unix.SHUT_WR); e != 0 {
		t.Fatalf("shutdown: %v", e)
	}
	if r := send(t, cf, buf, "more"); r != vfs.Err(unix.EPIPE) {
		t.Errorf("write after SHUT_WR = %#x, want EPIPE", r)
	}
	if r := s.Readiness(sf); r&(unix.EPOLLIN|unix.EPOLLRDHUP) != unix.EPOLLIN|unix.EPOLLRDHUP {
		t.Errorf("peer readiness after shutdown %#x, want IN|RDHUP", r)
	}
	if got, _ := recv(t, sf, buf); got != "last" {
		t.Errorf("peer read %q before EOF", got)
	}
	if _, r := recv(t, sf, buf); r != 0 {
		t.Errorf("peer read after the data = %#x, want 0 (EOF)", r)
	}
}

// Closing a listener refuses what is queued: the clients read EOF, and a
// blocked accept is woken to find its descriptor gone.
func TestClosingListenerRefusesQueue(t *testing.T) {
	buf := setup(t)
	l, lf := listen(t, 6000)
	c, cf := dial(t, 6000)
	th := sched.New() // a thread blocked in accept on the listener
	sched.BlockOn(th, &l.W.Q, sched.WaitFile, unix.EPOLLIN, 0, 0)
	vfs.DecRef(lf.Index())
	if l.State != Free {
		t.Error("the listener outlived its last description")
	}
	if th.State == sched.Blocked {
		t.Error("a waiter on the closed listener still blocks")
	}
	if _, r := recv(t, cf, buf); r != 0 {
		t.Errorf("client of a refused connection read %#x, want 0 (EOF)", r)
	}
	if r := c.Readiness(cf); r&unix.EPOLLRDHUP == 0 {
		t.Errorf("client readiness %#x lacks RDHUP", r)
	}
}
