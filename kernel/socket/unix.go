package socket

import (
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// AF_UNIX sockets (unix(7)) within the machine: streams and seqpacket
// sockets here (a seqpacket connection's pipes carry records:
// vfs.Pipe's BeginWrite and BeginRead), datagrams in unixgram.go. A name is a path,
// an abstract name or none. The Linux layer turns a path into the socket
// file's inode number: bind makes the file (an S_IFSOCK inode) and
// connect finds the listener bound to the inode the path names now, so a
// path that was unlinked, or rebound to a new file, never reaches an old
// socket. Connections are a pipe each way, as loopback TCP's are.

// UnixPathMax is the size of sockaddr_un's sun_path.
const UnixPathMax = 108

// UnixAddr is an AF_UNIX socket's name: N bytes of Path, which starts
// with a NUL for an abstract name; Ino is the socket file's inode number
// for a path. N == 0: unnamed.
type UnixAddr struct {
	Ino  uint64
	N    uint8
	Path [UnixPathMax]byte
}

// Bytes is the name as bind(2) gave it (an abstract name with its NUL).
func (a *UnixAddr) Bytes() []byte { return a.Path[:a.N] }

// Abstract reports whether a is an abstract name (no file).
func (a *UnixAddr) Abstract() bool { return a.N > 0 && a.Path[0] == 0 }

// same reports whether a and b name the same socket.
func (a *UnixAddr) same(b *UnixAddr) bool {
	if a.Abstract() || b.Abstract() {
		return string(a.Bytes()) == string(b.Bytes())
	}
	return a.Ino != 0 && a.Ino == b.Ino
}

// bound returns the socket bound to a, or nil.
func bound(a *UnixAddr) *Socket {
	for i := range sockets {
		s := &sockets[i]
		if s.Family == unix.AF_UNIX && (s.State == Bound || s.State == Listening || s.State == Connected && s.dgram >= 0) && s.Name.same(a) {
			return s
		}
	}
	return nil
}

// BindUnix names k. A path's file the Linux layer has made (and so knows
// to be new); an abstract name must be free.
func (k *Socket) BindUnix(a *UnixAddr) unix.Errno {
	if k.State != Created && !(k.dgram >= 0 && k.State == Connected && k.Name.N == 0) {
		return unix.EINVAL
	}
	if a.Abstract() && bound(a) != nil {
		return unix.EADDRINUSE
	}
	k.Name = *a
	if k.State == Created {
		k.State = Bound // a connected datagram socket stays connected
	}
	return 0
}

// autobindDigits: Linux's autobind names a socket with a NUL and five
// hex digits (unix_autobind).
const autobindDigits = 5

// freeAutobindName is an abstract name no socket has, as Linux's
// autobind chooses one.
func freeAutobindName() (UnixAddr, bool) {
	const hex = "0123456789abcdef"
	var a UnixAddr
	a.N = 1 + autobindDigits
	for n := 0; n < 1<<(4*autobindDigits); n++ {
		for d := 0; d < autobindDigits; d++ {
			a.Path[autobindDigits-d] = hex[n>>(4*d)&0xf]
		}
		if !nameTaken(&a) {
			return a, true
		}
	}
	return a, false
}

// nameTaken reports whether any AF_UNIX socket has the name a.
func nameTaken(a *UnixAddr) bool {
	for i := range sockets {
		s := &sockets[i]
		if s.State != Free && s.Family == unix.AF_UNIX && s.Name.same(a) {
			return true
		}
	}
	return false
}

// autobind gives k a free abstract name, as bind with only a family, or
// listen on an unbound socket, does on Linux.
func (k *Socket) autobind() unix.Errno {
	a, ok := freeAutobindName()
	if !ok {
		return unix.EADDRINUSE
	}
	return k.BindUnix(&a)
}

// Autobind is bind(2) with only a family.
func (k *Socket) Autobind() unix.Errno {
	if k.State != Created {
		return unix.EINVAL
	}
	return k.autobind()
}

// ConnectUnix connects k to the listener named a.
func (k *Socket) ConnectUnix(a *UnixAddr) unix.Errno {
	// SO_PASSCRED names an unnamed socket first (unix_stream_connect,
	// unix_dgram_connect), so that its credentials come with a name.
	if k.passCred && k.Name.N == 0 && (k.State == Created || k.dgram >= 0) {
		if e := k.autobind(); e != 0 {
			return e
		}
	}
	if k.dgram >= 0 {
		return k.connectUnixDgram(a)
	}
	switch k.State {
	case Connected:
		return unix.EISCONN
	case Listening:
		return unix.EINVAL
	}
	l := bound(a)
	if l == nil || l.State != Listening && l.Type == k.Type {
		return unix.ECONNREFUSED
	}
	if l.Type != k.Type {
		return unix.EPROTOTYPE // unix_find_bsd: a name of another type
	}
	s, e := k.connectTo(l)
	if e != 0 {
		return e
	}
	k.Peer = l.Name
	s.Name, s.Peer = l.Name, k.Name
	// SO_PEERCRED: the server end's peer is the connecting process, the
	// client's the listener's (init_peercred, copy_peercred).
	s.peerCred, k.peerCred = self(), l.peerCred
	return 0
}

// Pair makes two connected AF_UNIX sockets of type typ (SOCK_STREAM or
// SOCK_SEQPACKET: socketpair(2)), or returns an error with nothing made.
func Pair(typ uint16) (*Socket, *Socket, unix.Errno) {
	a := New(unix.AF_UNIX)
	if a == nil {
		return nil, nil, unix.ENFILE
	}
	b := New(unix.AF_UNIX)
	if b == nil {
		a.State = Free
		return nil, nil, unix.ENFILE
	}
	if e := join(a, b); e != 0 {
		a.State, b.State = Free, Free
		return nil, nil, e
	}
	a.Type, b.Type = typ, typ
	a.peerCred, b.peerCred = self(), self() // the caller is either's peer
	return a, b, 0
}

// Records reports whether k's connection carries records (seqpacket,
// or a datagram socketpair): sendmsg and recvmsg then move one record
// across all their iovecs.
func (k *Socket) Records() bool { return k.dgram < 0 && k.records() }

// RecordPipe returns the pipe k sends (send) or receives records on, as
// Write and Read find it: ENOTCONN unconnected, EPIPE after the send
// side's shutdown, and nil (EOF) after the receive side's.
func (k *Socket) RecordPipe(send bool) (*vfs.Pipe, unix.Errno) {
	switch {
	case k.State != Connected:
		return nil, unix.ENOTCONN
	case send && (k.shutWr || k.tx < 0):
		return nil, unix.EPIPE
	case send:
		return vfs.PipeAt(k.tx), 0
	case k.shutRd || k.rx < 0:
		return nil, 0
	}
	return vfs.PipeAt(k.rx), 0
}
