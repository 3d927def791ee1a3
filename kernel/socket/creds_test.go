//go:build !arm64

package socket

import (
	"testing"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// asSender makes c the calling process's credentials (Sender).
func asSender(t *testing.T, c unix.Ucred) {
	t.Helper()
	Sender = func(bool) unix.Ucred { return c }
	t.Cleanup(func() { Sender = nil })
}

func passcred(t *testing.T, k *Socket) {
	t.Helper()
	if e := k.SetOpt(unix.SOL_SOCKET, unix.SO_PASSCRED, 1); e != 0 {
		t.Fatal(e)
	}
	if v, ok := k.Opt(unix.SOL_SOCKET, unix.SO_PASSCRED); !ok || v != 1 {
		t.Fatalf("SO_PASSCRED reads back %d %v", v, ok)
	}
}

// readMsg is one recvmsg of n bytes: the data and its credentials.
func readMsg(t *testing.T, k *Socket, buf uintptr, n uint64) (string, unix.Ucred) {
	t.Helper()
	c := unix.Ucred{Pid: -1}
	r := k.ReadMsg(buf, min(n, k.MsgLen()), nil, &c)
	if vfs.IsErr(r) {
		t.Fatalf("read: %#x", r)
	}
	b := make([]byte, r)
	usermem.CopyIn(b, buf)
	return string(b), c
}

var (
	credA = unix.Ucred{Pid: 10}
	credB = unix.Ucred{Pid: 20, Uid: 1000, Gid: 1000}
)

// A stream whose reader has SO_PASSCRED: each write carries its
// sender's credentials, or those attached (SendWith); a read glues one
// sender's bytes and stops where they change. Without SO_PASSCRED,
// bytes of different credentials are read together.
func TestStreamCreds(t *testing.T) {
	buf := setup(t)
	a, b, _ := Pair(unix.SOCK_STREAM)
	fa, fb := open(t, a), open(t, b)
	send(t, fa, buf, "before") // nobody asks: none
	passcred(t, b)
	asSender(t, credA)
	send(t, fa, buf, "a1")
	send(t, fa, buf, "a2")
	asSender(t, credB)
	send(t, fa, buf, "b")
	a.SendWith(credA)
	send(t, fa, buf, "x")
	a.SendWith(vfs.NoCred())
	for _, w := range []struct {
		data string
		cred unix.Ucred
	}{{"before", vfs.NoCred()}, {"a1a2", credA}, {"b", credB}, {"x", credA}} {
		if got, c := readMsg(t, b, buf, 64); got != w.data || c != w.cred {
			t.Errorf("read %q %+v, want %q %+v", got, c, w.data, w.cred)
		}
	}
	c := unix.Ucred{Pid: -1}
	if r := b.ReadMsg(buf, 64, nil, &c); r != vfs.Err(unix.EAGAIN) || c.Pid != -1 {
		t.Errorf("a read with nothing sent: %#x, credentials %+v", r, c)
	}
	// Without SO_PASSCRED: glued, and what is sent carries none unless
	// attached.
	b.SetOpt(unix.SOL_SOCKET, unix.SO_PASSCRED, 0)
	send(t, fa, buf, "n")
	a.SendWith(credB)
	send(t, fa, buf, "m")
	a.SendWith(vfs.NoCred())
	if got, _ := recv(t, fb, buf); got != "nm" {
		t.Errorf("read without SO_PASSCRED %q, want \"nm\"", got)
	}
	if p := vfs.PipeAt(b.rx); p.Len() != 0 || p.CredAt(p.In) != vfs.NoCred() {
		t.Errorf("left %d bytes, marks at the end %+v", p.Len(), p.CredAt(p.In))
	}
}

// An accepted socket takes its listener's SO_PASSCRED; what is sent to
// a connection not yet accepted carries the sender's credentials; a
// socket with SO_PASSCRED is named at connect.
func TestAcceptCreds(t *testing.T) {
	buf := setup(t)
	asSender(t, credA)
	l, _ := newUnix(t)
	l.BindUnix(abstract("l"))
	l.Listen()
	passcred(t, l)
	c, cf := newUnix(t)
	passcred(t, c)
	if e := c.ConnectUnix(abstract("l")); e != 0 {
		t.Fatal(e)
	}
	if c.Name.N != 1+autobindDigits || !c.Name.Abstract() {
		t.Errorf("connect with SO_PASSCRED left the name %q", c.Name.Bytes())
	}
	c.SetOpt(unix.SOL_SOCKET, unix.SO_PASSCRED, 0)
	send(t, cf, buf, "early") // the server end has no description yet
	s, _ := accept(t, l)
	if !s.PassCred() || string(s.Peer.Bytes()) != string(c.Name.Bytes()) {
		t.Errorf("accepted: SO_PASSCRED %v, peer %q", s.PassCred(), s.Peer.Bytes())
	}
	if got, cr := readMsg(t, s, buf, 64); got != "early" || cr != credA {
		t.Errorf("read %q %+v", got, cr)
	}
	// SO_PEERCRED: the server end's is the connecting process, the
	// client's the listener's; none on a socket never connected.
	n, _ := newUnix(t)
	if s.PeerCred() != credA || c.PeerCred() != l.PeerCred() || l.PeerCred() != credA || n.PeerCred() != vfs.NoCred() {
		t.Errorf("SO_PEERCRED: server %+v client %+v listener %+v new %+v", s.PeerCred(), c.PeerCred(), l.PeerCred(), n.PeerCred())
	}
}

// Datagrams carry their credentials in their records; an unnamed sender
// with SO_PASSCRED is named first.
func TestUnixgramCreds(t *testing.T) {
	buf := setup(t)
	a, _ := newUDPOf(t, unix.AF_UNIX)
	b, fb := newUDPOf(t, unix.AF_UNIX)
	defer func() { a.unref(); b.unref() }()
	b.BindUnix(abstract("b"))
	asSender(t, credB)
	usermem.CopyOut(buf, []byte("d1"))
	a.SendToUnix(buf, 2, abstract("b")) // nobody asks: none
	passcred(t, b)
	a.SendToUnix(buf, 2, abstract("b"))
	a.SendWith(credA)
	a.SendToUnix(buf, 2, abstract("b"))
	a.SendWith(vfs.NoCred())
	if a.Name.N != 0 {
		t.Errorf("an unnamed sender without SO_PASSCRED was named %q", a.Name.Bytes())
	}
	for i, want := range []unix.Ucred{vfs.NoCred(), credB, credA} {
		if c, ok := b.NextCred(); !ok || c != want {
			t.Errorf("datagram %d: next %+v %v", i, c, ok)
		}
		src, sport, _, _, e := b.PeekDgram()
		if e != 0 {
			t.Fatal(e)
		}
		b.TakeDgram(src, sport)
		if c := b.DgramCred(); c != want {
			t.Errorf("datagram %d: taken %+v", i, c)
		}
	}
	if _, ok := b.NextCred(); ok {
		t.Error("credentials with no datagram queued")
	}
	passcred(t, a)
	a.SendToUnix(buf, 2, abstract("b"))
	if r := fb.Impl.Read(fb, buf, 8, -1); r != 2 {
		t.Fatalf("read %d", int64(r))
	}
	if from := b.FromUnix(); !a.Name.Abstract() || from == nil || string(from.Bytes()) != string(a.Name.Bytes()) {
		t.Errorf("a sender with SO_PASSCRED named %q, the datagram from %v", a.Name.Bytes(), from)
	}
}
