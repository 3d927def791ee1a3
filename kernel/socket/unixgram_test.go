//go:build !arm64

package socket

import (
	"testing"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

func abstract(name string) *UnixAddr {
	a := &UnixAddr{N: uint8(1 + len(name))}
	copy(a.Path[1:], name)
	return a
}

// AF_UNIX datagrams: to a name, whole, with the sender's name; to the
// connected peer with write; an unnamed sender reads as unnamed; a
// stream socket's name is EPROTOTYPE, nobody's ECONNREFUSED.
func TestUnixgram(t *testing.T) {
	buf := setup(t)
	a, fa := newUDPOf(t, unix.AF_UNIX)
	b, fb := newUDPOf(t, unix.AF_UNIX)
	anon, fanon := newUDPOf(t, unix.AF_UNIX)
	defer func() { a.unref(); b.unref(); anon.unref() }()
	if e := a.BindUnix(abstract("a")); e != 0 {
		t.Fatal(e)
	}
	if e := b.BindUnix(abstract("b")); e != 0 {
		t.Fatal(e)
	}
	usermem.CopyOut(buf, []byte("to b"))
	if r := a.SendToUnix(buf, 4, abstract("b")); r != 4 {
		t.Fatalf("sendto b: %d", int64(r))
	}
	if r := fb.Impl.Read(fb, buf, 100, -1); r != 4 {
		t.Fatalf("b read %d", int64(r))
	}
	if from := b.FromUnix(); from == nil || string(from.Bytes()) != "\x00a" {
		t.Fatalf("b's datagram came from %v, want a", from)
	}
	if e := b.ConnectUnix(abstract("a")); e != 0 {
		t.Fatal(e)
	}
	if r := send(t, fb, buf, "back"); r != 4 {
		t.Fatalf("b's write to its peer: %d", int64(r))
	}
	if r := fa.Impl.Read(fa, buf, 100, -1); r != 4 {
		t.Fatalf("a read %d", int64(r))
	}
	// b is connected and still reached by its name.
	if r := anon.SendToUnix(buf, 1, abstract("b")); r != 1 {
		t.Fatalf("to a connected socket's name: %d", int64(r))
	}
	if r := fb.Impl.Read(fb, buf, 100, -1); r != 1 || b.FromUnix() != nil {
		t.Fatalf("from an unnamed sender: %d, %v", int64(r), b.FromUnix())
	}
	if r := anon.SendToUnix(buf, 1, abstract("nobody")); r != vfs.Err(unix.ECONNREFUSED) {
		t.Fatalf("to nobody: %d, want ECONNREFUSED", int64(r))
	}
	l, _ := newOfFamily(t, unix.AF_UNIX)
	defer l.unref()
	if e := l.BindUnix(abstract("stream")); e != 0 {
		t.Fatal(e)
	}
	l.Listen()
	if r := anon.SendToUnix(buf, 1, abstract("stream")); r != vfs.Err(unix.EPROTOTYPE) {
		t.Fatalf("to a stream socket: %d, want EPROTOTYPE", int64(r))
	}
	_ = fanon
}

// Descriptors with AF_UNIX datagrams (SCM_RIGHTS): taken by a receiver
// that asks (the same description), closed by a read that does not, and
// by the receiver's close while they are still queued. A pipe's write
// end is passed: once the sender's own reference goes too, the pipe
// has no writer exactly when no set holds one.
func TestUnixgramRights(t *testing.T) {
	buf := setup(t)
	a, _ := newUDPOf(t, unix.AF_UNIX)
	b, fb := newUDPOf(t, unix.AF_UNIX)
	defer a.unref()
	if e := b.BindUnix(abstract("b")); e != 0 {
		t.Fatal(e)
	}
	p := vfs.NewPipe()
	w := vfs.Alloc(p.Writer(), unix.O_WRONLY)
	rights := vfs.Rights{N: 1}
	rights.Files[0] = w
	sendWith := func(data string) {
		t.Helper()
		n := copy(UnixRoom(), data)
		if r := a.SendStagedUnix(uint64(n), abstract("b"), &rights); r != uint64(n) {
			t.Fatalf("send %q with a descriptor: %d", data, int64(r))
		}
	}
	sendWith("x")
	sendWith("y")
	sendWith("z")
	vfs.DecRef(w) // the sender's own reference: three sets hold the pipe's writer now

	// Asked for: the set comes with the datagram.
	src, mark, _, _, e := b.PeekDgram()
	if e != 0 || mark == 0 {
		t.Fatalf("peek: mark %d, %v", mark, e)
	}
	b.TakeDgram(src, mark)
	var got vfs.Rights
	b.DgramRights(mark, &got)
	if got.N != 1 || got.Files[0] != w {
		t.Fatalf("took %+v, want the pipe's writer %d", got.Files[:got.N], w)
	}
	got.Close()
	// A read(2) passes the next over: closed.
	if r := fb.Impl.Read(fb, buf, 10, -1); r != 1 {
		t.Fatalf("read: %d", int64(r))
	}
	if _, writers := p.Ends(); writers != 1 {
		t.Fatalf("after a take and a read: %d writers, want the one still queued", writers)
	}
	// The receiver goes with one queued: its set goes too.
	b.unref()
	if _, writers := p.Ends(); writers != 0 {
		t.Fatalf("after the receiver's close: %d writers, want none", writers)
	}
}
