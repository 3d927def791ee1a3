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
