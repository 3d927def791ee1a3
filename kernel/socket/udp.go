package socket

import (
	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// UDP: an AF_INET datagram socket is one of kernel/inet's endpoints
// (udp_socket.go there), which queues whole datagrams for it and sends
// them over the interface or, to the loopback and the interface's own
// address, straight to another endpoint. Ports are UDP's own space: a
// UDP socket and a TCP one can both have port 53 (portInUse's type).
// connect sets the default peer (and binds an ephemeral port, as
// Linux's autobind does); send needs one or an address.

// OpenDgram makes k a UDP socket, with its endpoint in the stack.
func (k *Socket) OpenDgram() unix.Errno {
	i, e := inet.OpenUDP(k.index())
	if e != 0 {
		return e
	}
	k.Type, k.dgram = unix.SOCK_DGRAM, i
	return 0
}

// dgramReadiness is a UDP socket's: its queue's, and an error pending.
func (k *Socket) dgramReadiness() uint32 {
	r := inet.UDPPoll(k.dgram)
	if k.dgramErr != 0 {
		r |= unix.EPOLLIN | unix.EPOLLERR
	}
	return r
}

// IsDgram reports a datagram socket.
func (k *Socket) IsDgram() bool { return k.dgram >= 0 }

// bindDgram binds k to ip:port in UDP's port space (0: an ephemeral
// port) and its endpoint with it.
func (k *Socket) bindDgram(port uint16, ip [4]byte) unix.Errno {
	if e := k.bindPort(port, ip); e != 0 {
		return e
	}
	inet.BindUDP(k.dgram, k.Addr, k.Port)
	return 0
}

// connectDgram sets k's default peer, binding it first if it is not.
// A socket bound to the wildcard takes the source address the peer is
// reached from (Linux's __ip4_datagram_connect sets inet_saddr and
// inet_rcv_saddr from the route), which getsockname then shows.
func (k *Socket) connectDgram(port uint16, ip [4]byte) unix.Errno {
	if k.State == Created {
		if e := k.bindDgram(0, [4]byte{}); e != 0 {
			return e
		}
	}
	if k.Addr == ([4]byte{}) {
		if loopback(ip) {
			k.Addr = lo4
		} else {
			k.Addr = inet.If.IP
		}
		inet.BindUDP(k.dgram, k.Addr, k.Port)
	}
	k.PeerPort, k.PeerAddr, k.State = port, ip, Connected
	return 0
}

// lo4 is the loopback's address, the source of what goes to 127/8.
var lo4 = [4]byte{127, 0, 0, 1}

// readDgram takes the oldest datagram: as much as fits buf, the rest of
// it discarded (udp(7)), its sender kept for recvfrom (From). EAGAIN
// when none is queued.
func (k *Socket) readDgram(buf uintptr, n uint64) uint64 {
	if e := k.dgramError(); e != 0 {
		return vfs.Err(e)
	}
	src, sport, a, b, ok := inet.UDPRecv(k.dgram)
	if !ok {
		return vfs.Err(unix.EAGAIN)
	}
	done, ok := copyPieces(a, b, buf, n, true)
	if !ok && n > 0 && len(a)+len(b) > 0 {
		return vfs.Err(unix.EFAULT) // the datagram stays queued
	}
	inet.UDPConsume(k.dgram)
	k.fromAddr, k.fromPort = src, sport
	k.DgramRights(sport, nil)
	return done
}

// PeekDgram returns the oldest datagram queued for k, its sender and
// its data as up to two pieces, for recvmsg to scatter; TakeDgram then
// drops it. A pending error comes first. EAGAIN when none is queued.
func (k *Socket) PeekDgram() (src [4]byte, sport uint16, a, b []byte, e unix.Errno) {
	if e := k.dgramError(); e != 0 {
		return src, 0, nil, nil, e
	}
	src, sport, a, b, ok := inet.UDPRecv(k.dgram)
	if !ok {
		return src, 0, nil, nil, unix.EAGAIN
	}
	return src, sport, a, b, 0
}

// TakeDgram drops the datagram PeekDgram returned, whose sender (src,
// sport) From and FromUnix, and credentials DgramCred, then report.
func (k *Socket) TakeDgram(src [4]byte, sport uint16) {
	k.PeekedDgram(src, sport)
	inet.UDPConsume(k.dgram)
}

// PeekedDgram notes the sender of the datagram a MSG_PEEK copied, which
// From, FromUnix and DgramCred then report; the datagram stays queued.
func (k *Socket) PeekedDgram(src [4]byte, sport uint16) {
	k.fromAddr, k.fromPort = src, sport
	k.fromCred = auxCred(inet.UDPAux(k.dgram))
}

// DgramPeer is the address write sends to (connect's), ok false when none.
func (k *Socket) DgramPeer() (ip [4]byte, port uint16, ok bool) {
	return k.PeerAddr, k.PeerPort, k.State == Connected
}

// From is the sender of the datagram k's last read took.
func (k *Socket) From() (ip [4]byte, port uint16) { return k.fromAddr, k.fromPort }

// SendTo sends n bytes at buf to ip:port as one datagram (sendto(2)
// with an address), binding an ephemeral port first if k has none.
func (k *Socket) SendTo(buf uintptr, n uint64, port uint16, ip [4]byte) uint64 {
	room, e := k.DgramRoom(port, ip)
	if e != 0 {
		return vfs.Err(e)
	}
	if n > uint64(len(room)) {
		return vfs.Err(unix.EMSGSIZE)
	}
	if done, ok := copyPieces(room[:n], nil, buf, n, false); !ok || done != n {
		return vfs.Err(unix.EFAULT)
	}
	return k.DgramSend(n, port, ip)
}

// DgramRoom is where a datagram to ip:port is put before DgramSend (a
// sendmsg gathers its pieces there), binding an ephemeral port first if
// k has none.
func (k *Socket) DgramRoom(port uint16, ip [4]byte) ([]byte, unix.Errno) {
	if k.dgram < 0 {
		return nil, unix.EISCONN // a stream socket takes no address
	}
	if k.State == Created {
		if e := k.bindDgram(0, [4]byte{}); e != 0 {
			return nil, e
		}
	}
	if port == 0 {
		return nil, unix.EINVAL
	}
	return inet.UDPSendBuf(destination(ip)), 0
}

// destination is where a datagram to ip goes: INADDR_ANY as a
// destination is this host (ip_route_output_key).
func destination(ip [4]byte) [4]byte {
	if ip == ([4]byte{}) {
		return lo4
	}
	return ip
}

// DgramSend sends the n bytes DgramRoom holds to ip:port.
func (k *Socket) DgramSend(n uint64, port uint16, ip [4]byte) uint64 {
	ip = destination(ip)
	switch e := inet.UDPSend(k.dgram, ip, port, int(n)); {
	case e == unix.ECONNREFUSED:
		// The port unreachable a local send met: a connected socket
		// reports it on its next call (udp(7), Linux's sk_err), which
		// is how Go's resolver learns at once that no DNS server
		// listens on 127.0.0.1:53.
		if k.State == Connected && ip == k.PeerAddr && port == k.PeerPort {
			k.dgramErr = e
			vfs.Notify(&k.W, unix.EPOLLIN|unix.EPOLLERR)
		}
	case e != 0:
		return vfs.Err(e)
	}
	return n
}

// dgramError takes k's pending error.
func (k *Socket) dgramError() unix.Errno {
	e := k.dgramErr
	k.dgramErr = 0
	return e
}

// writeDgram is write(2) and send(2): to the connected peer.
func (k *Socket) writeDgram(buf uintptr, n uint64) uint64 {
	if e := k.dgramError(); e != 0 {
		return vfs.Err(e)
	}
	if k.State != Connected {
		return vfs.Err(unix.EDESTADDRREQ)
	}
	if k.Family == unix.AF_UNIX {
		return k.SendToUnix(buf, n, &k.Peer)
	}
	return k.SendTo(buf, n, k.PeerPort, k.PeerAddr)
}
