//go:build !arm64

package socket

import (
	"testing"
	"unsafe"

	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// udpBufs plays the kernel's mapped pages for UDP endpoints.
var udpBufs [inet.MaxConns + inet.MaxUDP]*[inet.TCPBufBytes]byte

func newUDP(t *testing.T) (*Socket, *vfs.File) {
	t.Helper()
	return newUDPOf(t, unix.AF_INET)
}

// newUDPOf makes a datagram socket of family.
func newUDPOf(t *testing.T, family uint16) (*Socket, *vfs.File) {
	t.Helper()
	inet.MapBuffers = func(slot int32) uintptr {
		if udpBufs[slot] == nil {
			udpBufs[slot] = new([inet.TCPBufBytes]byte)
		}
		return uintptr(unsafe.Pointer(udpBufs[slot]))
	}
	inet.UnmapBuffers = func(int32) {}
	k, f := newOfFamily(t, family)
	if e := k.OpenDgram(); e != 0 {
		t.Fatal(e)
	}
	return k, f
}

// Two UDP sockets on the loopback: the sender gets an ephemeral port
// when it first sends, the receiver reads the datagram whole and learns
// the sender's port; a read shorter than the datagram takes the front
// and the rest is gone (udp(7)); write needs a peer (connect), after
// which it goes there; readiness follows the queue.
func TestUDPLoopbackSockets(t *testing.T) {
	buf := setup(t)
	a, fa := newUDP(t)
	b, fb := newUDP(t)
	defer func() { a.unref(); b.unref() }()
	if e := a.Bind(5000, lo); e != 0 {
		t.Fatal(e)
	}
	if r := fa.Impl.Read(fa, buf, 100, -1); r != vfs.Err(unix.EAGAIN) {
		t.Fatalf("read with nothing queued: %d, want EAGAIN", int64(r))
	}
	if ev := a.Readiness(fa); ev != unix.EPOLLOUT {
		t.Fatalf("readiness with nothing queued: %#x", ev)
	}
	if r := send(t, fb, buf, "x"); r != vfs.Err(unix.EDESTADDRREQ) {
		t.Fatalf("write with no peer: %d, want EDESTADDRREQ", int64(r))
	}
	usermem.CopyOut(buf, []byte("hello, datagram"))
	if r := b.SendTo(buf, 15, 5000, lo); r != 15 {
		t.Fatalf("sendto: %d", int64(r))
	}
	if b.State != Bound || b.Port < ephemeralBase {
		t.Fatalf("the sender was not bound to an ephemeral port: %v %d", b.State, b.Port)
	}
	if ev := a.Readiness(fa); ev&unix.EPOLLIN == 0 {
		t.Fatalf("readiness with a datagram queued: %#x", ev)
	}
	if r := fa.Impl.Read(fa, buf, 5, -1); r != 5 {
		t.Fatalf("short read: %d", int64(r))
	}
	got := make([]byte, 5)
	usermem.CopyIn(got, buf)
	if ip, port := a.From(); string(got) != "hello" || ip != lo || port != b.Port {
		t.Fatalf("read %q from %v:%d, want hello from %v:%d", got, ip, port, lo, b.Port)
	}
	if r := fa.Impl.Read(fa, buf, 100, -1); r != vfs.Err(unix.EAGAIN) {
		t.Fatalf("the short read's rest was kept: %d", int64(r))
	}
	if e := a.Connect(b.Port, lo, false); e != 0 {
		t.Fatal(e)
	}
	if r := send(t, fa, buf, "back"); r != 4 {
		t.Fatalf("write to the connected peer: %d", int64(r))
	}
	if r := fb.Impl.Read(fb, buf, 100, -1); r != 4 {
		t.Fatalf("the peer read %d", int64(r))
	}
}

// UDP's ports are not TCP's: both may have port 53; two UDP sockets may
// not (EADDRINUSE); listen and accept make no sense for datagrams.
func TestUDPPortSpace(t *testing.T) {
	setup(t)
	tcp, _ := newOpen(t)
	u1, _ := newUDP(t)
	u2, _ := newUDP(t)
	defer func() { tcp.unref(); u1.unref(); u2.unref() }()
	if e := tcp.Bind(53, lo); e != 0 {
		t.Fatal(e)
	}
	if e := u1.Bind(53, lo); e != 0 {
		t.Fatalf("UDP bind to a port TCP has: %v", e)
	}
	if e := u2.Bind(53, lo); e != unix.EADDRINUSE {
		t.Fatalf("a second UDP bind to 53: %v, want EADDRINUSE", e)
	}
	if e := u2.Listen(); e != unix.EOPNOTSUPP {
		t.Fatalf("listen on UDP: %v, want EOPNOTSUPP", e)
	}
}

// A connected UDP socket that sends to a local port nobody has learns it
// on its next call, once (ECONNREFUSED, as Linux's ICMP port
// unreachable makes it); epoll sees EPOLLERR meanwhile. An unconnected
// sender learns nothing.
func TestUDPConnectionRefused(t *testing.T) {
	buf := setup(t)
	a, fa := newUDP(t)
	defer a.unref()
	if e := a.Connect(53, lo, false); e != 0 {
		t.Fatal(e)
	}
	if r := send(t, fa, buf, "query"); r != 5 {
		t.Fatalf("the send itself: %d", int64(r))
	}
	if ev := a.Readiness(fa); ev&unix.EPOLLERR == 0 {
		t.Fatalf("readiness after a refused send: %#x", ev)
	}
	if r := fa.Impl.Read(fa, buf, 100, -1); r != vfs.Err(unix.ECONNREFUSED) {
		t.Fatalf("read after a refused send: %d, want ECONNREFUSED", int64(r))
	}
	if r := fa.Impl.Read(fa, buf, 100, -1); r != vfs.Err(unix.EAGAIN) {
		t.Fatalf("the error was reported twice: %d", int64(r))
	}
	usermem.CopyOut(buf, []byte("x"))
	if r := a.SendTo(buf, 1, 54, lo); r != 1 || a.Error() != 0 {
		t.Fatalf("sendto another port: %d, error %v; want sent, no error", int64(r), a.Error())
	}
}
