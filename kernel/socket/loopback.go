package socket

import (
	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// The loopback: addresses, ports and connections within the machine.

func loopback(ip [4]byte) bool { return ip[0] == 127 || ip == [4]byte{} }

// portInUse reports whether a socket of type typ (SOCK_STREAM or
// SOCK_DGRAM: TCP's and UDP's port spaces are apart) has port.
func portInUse(port uint16, typ uint16) bool {
	for i := range sockets {
		s := &sockets[i]
		if (s.State == Bound || s.State == Listening || s.State == Connected && s.Type == unix.SOCK_DGRAM) &&
			s.Family == unix.AF_INET && s.Type == typ && s.Port == port {
			return true
		}
	}
	return false
}

func ephemeralPort(typ uint16) uint16 {
	for i := 0; i < 65536-ephemeralBase; i++ {
		p := nextPort
		nextPort++
		if nextPort == 0 {
			nextPort = ephemeralBase
		}
		if !portInUse(p, typ) {
			return p
		}
	}
	return 0
}

// Bind gives k a loopback address; port 0 picks an ephemeral one.
func (k *Socket) Bind(port uint16, ip [4]byte) unix.Errno {
	if k.State != Created {
		return unix.EINVAL
	}
	if !loopback(ip) && !onInterface(ip) {
		return unix.EADDRNOTAVAIL
	}
	if k.dgram >= 0 {
		return k.bindDgram(port, ip)
	}
	return k.bindPort(port, ip)
}

// bindPort binds k to ip:port in its type's port space (0: an
// ephemeral port).
func (k *Socket) bindPort(port uint16, ip [4]byte) unix.Errno {
	if port == 0 {
		if port = ephemeralPort(k.Type); port == 0 {
			return unix.EADDRINUSE
		}
	} else if portInUse(port, k.Type) {
		return unix.EADDRINUSE
	}
	k.Port, k.Addr, k.State = port, ip, Bound
	return 0
}

// Listen makes k accept connections (an unbound socket gets an ephemeral
// port, or an AF_UNIX one an abstract name, as on Linux).
func (k *Socket) Listen() unix.Errno {
	switch {
	case k.dgram >= 0:
		return unix.EOPNOTSUPP // no connections to listen for
	case k.State == Created && k.Family == unix.AF_UNIX:
		if e := k.autobind(); e != 0 {
			return e
		}
	case k.State == Created:
		k.Port, k.Addr = ephemeralPort(unix.SOCK_STREAM), [4]byte{}
	case k.State == Bound || k.State == Listening:
	default:
		return unix.EINVAL
	}
	if e := k.listenNet(); e != 0 {
		return e
	}
	k.State = Listening
	if k.Family == unix.AF_UNIX {
		k.peerCred = self() // unix_listen's init_peercred
	}
	return 0
}

// Connect connects k to the listener on port: on the loopback the
// server end is queued on the listener for Accept and the connection
// works at once; to any other address it is a TCP connection over the
// interface, which answers EINPROGRESS until the handshake is done (a
// blocking connect waits and runs again: retried).
func (k *Socket) Connect(port uint16, ip [4]byte, retried bool) unix.Errno {
	if k.dgram >= 0 {
		return k.connectDgram(port, ip)
	}
	switch k.State {
	case Connecting:
		return k.connecting(retried)
	case Connected:
		return unix.EISCONN
	case Listening:
		return unix.EINVAL
	}
	if !loopback(ip) && !onInterface(ip) {
		if k.Family != unix.AF_INET {
			return unix.EINVAL
		}
		return k.connectNet(port, ip)
	}
	var l *Socket
	for i := range sockets {
		s := &sockets[i]
		if s.State == Listening && s.Family == unix.AF_INET && s.Port == port {
			l = s
			break
		}
	}
	if l == nil {
		return unix.ECONNREFUSED
	}
	unbound := k.State == Created
	s, e := k.connectTo(l)
	if e != 0 {
		return e
	}
	if unbound {
		k.Port = ephemeralPort(unix.SOCK_STREAM)
	}
	k.Addr = [4]byte{127, 0, 0, 1}
	k.PeerPort, k.PeerAddr = port, [4]byte{127, 0, 0, 1}
	s.Port, s.Addr = port, [4]byte{127, 0, 0, 1}
	s.PeerPort, s.PeerAddr = k.Port, k.Addr
	return 0
}

// connectTo connects k to listener l (either family): it makes the
// server end, queues it on l for Accept and wakes l's waiters; the
// connection works at once. The caller fills in the addresses.
func (k *Socket) connectTo(l *Socket) (*Socket, unix.Errno) {
	if l.nbacklog == backlogMax {
		return nil, unix.EAGAIN
	}
	s := New(k.Family)
	if s == nil {
		return nil, unix.ENFILE
	}
	s.Type = k.Type
	if e := join(k, s); e != 0 {
		s.State = Free
		return nil, e
	}
	if l.qTail != 0 {
		sockets[l.qTail-1].qNext = s.index() + 1
	} else {
		l.qHead = s.index() + 1
	}
	l.qTail = s.index() + 1
	l.nbacklog++
	vfs.Notify(&l.W, unix.EPOLLIN) // accept and epoll waiters
	return s, 0
}

// join connects k and s with a pipe each way.
func join(k, s *Socket) unix.Errno {
	up, down := vfs.NewPipe(), vfs.NewPipe()
	if up == nil || down == nil {
		for _, p := range [2]*vfs.Pipe{up, down} {
			if p != nil {
				p.Close(false)
				p.Close(true)
			}
		}
		return unix.ENOMEM
	}
	k.tx, k.rx = up.Index(), down.Index()
	k.State = Connected
	s.State = Connected
	s.rx, s.tx = up.Index(), down.Index()
	// Each side hears of its own pipe ends: data to read on rx, room to
	// write on tx, and the peer's close of either.
	up.WriteOwner, up.ReadOwner = &k.W, &s.W
	down.WriteOwner, down.ReadOwner = &s.W, &k.W
	return 0
}

// Pending returns the first connection queued on listener k, or nil:
// the loopback's first, then one the interface has ready.
func (k *Socket) Pending() *Socket {
	if k.qHead == 0 {
		return k.acceptNet()
	}
	return &sockets[k.qHead-1]
}

// Dequeue takes connection c off k's queue, once Accept has given it a
// description (one from the interface is on no queue of k's).
func (k *Socket) Dequeue(c *Socket) {
	if k.qHead == 0 || k.qHead != c.index()+1 {
		return
	}
	k.qHead, c.qNext = c.qNext, 0
	if k.qHead == 0 {
		k.qTail = 0
	}
	k.nbacklog--
	if k.Family == unix.AF_UNIX {
		c.passCred = k.passCred // unix_sock_inherit_flags
	}
}

// Shutdown ends reception, transmission or both (how: SHUT_*); after
// SHUT_WR the peer reads EOF.
func (k *Socket) Shutdown(how uint64) unix.Errno {
	k.established()
	if k.State != Connected {
		return unix.ENOTCONN
	}
	if how > unix.SHUT_RDWR {
		return unix.EINVAL
	}
	if k.net >= 0 {
		inet.TCPShutdown(k.net, how != unix.SHUT_WR, how != unix.SHUT_RD)
		return 0
	}
	if how == unix.SHUT_RD || how == unix.SHUT_RDWR {
		k.shutRd = true
	}
	if (how == unix.SHUT_WR || how == unix.SHUT_RDWR) && !k.shutWr && k.tx >= 0 {
		k.shutWr = true
		p := vfs.PipeAt(k.tx)
		p.WriteOwner = nil
		k.tx = -1
		p.Close(true) // the peer reads EOF
	}
	vfs.Notify(&k.W, unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLRDHUP)
	return 0
}
