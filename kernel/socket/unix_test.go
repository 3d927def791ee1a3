//go:build !arm64

package socket

import (
	"testing"

	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

func unixAddr(name string, ino uint64) *UnixAddr {
	a := &UnixAddr{Ino: ino}
	a.N = uint8(copy(a.Path[:], name))
	return a
}

func newUnix(t *testing.T) (*Socket, *vfs.File) {
	t.Helper()
	return newOfFamily(t, unix.AF_UNIX)
}

// A path-bound listener is found by its file's inode, not by the path:
// after the file is gone (a new inode at the path), connect is refused.
func TestUnixPathConnection(t *testing.T) {
	buf := setup(t)
	l, _ := newUnix(t)
	if e := l.BindUnix(unixAddr("/tmp/s", 42)); e != 0 {
		t.Fatalf("bind: %v", e)
	}
	c, cf := newUnix(t)
	if e := c.ConnectUnix(unixAddr("/tmp/s", 42)); e != unix.ECONNREFUSED {
		t.Errorf("connect to a bound socket that does not listen: %v, want ECONNREFUSED", e)
	}
	if e := l.Listen(); e != 0 {
		t.Fatalf("listen: %v", e)
	}
	if e := c.ConnectUnix(unixAddr("/tmp/s", 43)); e != unix.ECONNREFUSED {
		t.Errorf("connect to another inode at the same path: %v, want ECONNREFUSED", e)
	}
	if e := c.ConnectUnix(unixAddr("/tmp/s", 42)); e != 0 {
		t.Fatalf("connect: %v", e)
	}
	s, sf := accept(t, l)
	if string(s.Name.Bytes()) != "/tmp/s" || s.Peer.N != 0 || string(c.Peer.Bytes()) != "/tmp/s" || c.Name.N != 0 {
		t.Errorf("names: server %q peer %q, client %q peer %q", s.Name.Bytes(), s.Peer.Bytes(), c.Name.Bytes(), c.Peer.Bytes())
	}
	send(t, cf, buf, "over unix")
	if got, _ := recv(t, sf, buf); got != "over unix" {
		t.Errorf("server read %q", got)
	}
	if e := c.ConnectUnix(unixAddr("/tmp/s", 42)); e != unix.EISCONN {
		t.Errorf("second connect: %v, want EISCONN", e)
	}
}

// Abstract names: one socket per name; listen on an unbound socket and
// bind with only a family choose a free name (a NUL and five hex digits).
func TestUnixAbstractAndAutobind(t *testing.T) {
	setup(t)
	a, _ := newUnix(t)
	if e := a.BindUnix(unixAddr("\x00name", 0)); e != 0 {
		t.Fatalf("bind: %v", e)
	}
	b, _ := newUnix(t)
	if e := b.BindUnix(unixAddr("\x00name", 0)); e != unix.EADDRINUSE {
		t.Errorf("second bind of an abstract name: %v, want EADDRINUSE", e)
	}
	if e := a.BindUnix(unixAddr("\x00other", 0)); e != unix.EINVAL {
		t.Errorf("rebinding a bound socket: %v, want EINVAL", e)
	}
	if e := b.Listen(); e != 0 {
		t.Fatalf("listen unbound: %v", e)
	}
	if got := string(b.Name.Bytes()); got != "\x0000000" {
		t.Errorf("autobound name %q", got)
	}
	c, _ := newUnix(t)
	if e := c.Autobind(); e != 0 || string(c.Name.Bytes()) != "\x0000001" {
		t.Errorf("second autobind: %v %q", e, c.Name.Bytes())
	}
	d, _ := newUnix(t)
	if e := d.ConnectUnix(unixAddr("\x0000000", 0)); e != 0 {
		t.Errorf("connect to the autobound listener: %v", e)
	}
}

// socketpair: two connected sockets; closing one gives the other EOF.
func TestUnixPair(t *testing.T) {
	buf := setup(t)
	a, b, e := Pair(unix.SOCK_STREAM)
	if e != 0 {
		t.Fatal(e)
	}
	af, bf := open(t, a), open(t, b)
	send(t, af, buf, "a→b")
	send(t, bf, buf, "b→a")
	if got, _ := recv(t, bf, buf); got != "a→b" {
		t.Errorf("b read %q", got)
	}
	if got, _ := recv(t, af, buf); got != "b→a" {
		t.Errorf("a read %q", got)
	}
	vfs.DecRef(af.Index())
	if _, r := recv(t, bf, buf); r != 0 {
		t.Errorf("read after the peer closed = %#x, want 0 (EOF)", r)
	}
	if r := b.Readiness(bf); r&unix.EPOLLRDHUP == 0 {
		t.Errorf("readiness after the peer closed %#x lacks RDHUP", r)
	}
}

// A TCP connect never reaches an AF_UNIX listener (both have port 0).
func TestFamiliesApart(t *testing.T) {
	setup(t)
	u, _ := newUnix(t)
	u.Listen()
	k, _ := newOpen(t)
	if e := k.Connect(0, lo, false); e != unix.ECONNREFUSED {
		t.Errorf("TCP connect to port 0 with only a unix listener: %v", e)
	}
}

// Seqpacket: a connection keeps each send's boundaries (a short read
// gets the front of one record and loses the rest), the accepted end is
// seqpacket too, and a stream socket cannot connect to a seqpacket
// listener (EPROTOTYPE, as unix_find_bsd answers).
func TestUnixSeqpacket(t *testing.T) {
	buf := setup(t)
	l, _ := newUnix(t)
	l.Type = unix.SOCK_SEQPACKET
	if e := l.BindUnix(unixAddr("\x00sp", 0)); e != 0 {
		t.Fatal(e)
	}
	l.Listen()
	s, _ := newUnix(t)
	if e := s.ConnectUnix(unixAddr("\x00sp", 0)); e != unix.EPROTOTYPE {
		t.Errorf("stream connect to a seqpacket listener: %v", e)
	}
	c, cf := newUnix(t)
	c.Type = unix.SOCK_SEQPACKET
	if e := c.ConnectUnix(unixAddr("\x00sp", 0)); e != 0 {
		t.Fatal(e)
	}
	srv := l.Pending()
	if srv == nil || srv.Type != unix.SOCK_SEQPACKET {
		t.Fatalf("accepted end: %+v", srv)
	}
	l.Dequeue(srv)
	sf := open(t, srv)
	for _, m := range []string{"one", "", "three"} {
		if r := send(t, cf, buf, m); r != uint64(len(m)) {
			t.Fatalf("send %q: %#x", m, r)
		}
	}
	if r := sf.Impl.Read(sf, buf, 2, -1); r != 2 {
		t.Errorf("2-byte read of %q: %#x", "one", r)
	}
	for _, want := range []string{"", "three"} {
		if got, _ := recv(t, sf, buf); got != want {
			t.Errorf("read %q, want %q", got, want)
		}
	}
	if _, r := recv(t, sf, buf); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("read of an empty connection: %#x", r)
	}
}
