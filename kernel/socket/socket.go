// Package socket owns sockets as file objects: loopback TCP streams and
// AF_UNIX streams and seqpacket connections (unix.go), each connection two vfs pipes (one per
// direction), with listen's queue of server ends; TCP over the network
// interface, each connection one of kernel/inet's (inet.go); UDP, each
// socket one of kernel/inet's endpoints (udp.go), as is an AF_UNIX
// datagram socket's queue (unixgram.go); NETLINK_ROUTE's link
// and address dumps (netlink.go); bind,
// connect, accept and shutdown as operations on a Socket. Descriptors, user-memory sockaddrs and the
// syscall ABI are the Linux layer's (kernel/linux/sys_socket_arm64.go). Builds
// on the host: go test ./kernel/socket.
package socket

import (
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Loopback stream sockets: programs (and the standard library's tests,
// through net/http/httptest) talk TCP to themselves over 127.0.0.1, in
// memory. AF_INET only: the Linux layer answers AF_INET6 with
// EAFNOSUPPORT, so Go's net package uses IPv4.

const (
	// MaxSockets bounds the socket table.
	MaxSockets = 2048
	// backlogMax is the longest listen queue on the loopback (listen(2)'s
	// backlog is taken as this whatever the app asks): Linux's
	// net.core.somaxconn default. The queue is a list through the queued
	// sockets, so its length costs no memory; each queued connection
	// holds two pipes.
	backlogMax = 4096
	// ephemeralBase is the first port of the ephemeral range, as Linux's
	// net.ipv4.ip_local_port_range starts.
	ephemeralBase = 32768
)

// State is where a socket is in its life.
type State uint8

const (
	Free State = iota
	Created
	Bound
	Listening
	Connecting // a TCP handshake over the interface under way (inet.go)
	Connected
)

// Socket is one socket and its Impl: reads and writes go through the
// connection's pipes, which notify the socket (vfs.Pipe's owners) along
// with themselves; a listener is notified by Connect.
type Socket struct {
	vfs.Base
	W        vfs.Waitable
	State    State
	Family   uint16
	Type     uint16 // SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET
	Port     uint16
	Addr     [4]byte
	PeerPort uint16
	PeerAddr [4]byte
	// An AF_UNIX socket's own name and its peer's (unix.go).
	Name, Peer UnixAddr
	rx, tx     int32 // pipes, -1 when not connected
	// A listener's queue of server ends for Accept: a list through
	// qNext, oldest first; indices are socket index + 1, 0 for none.
	qHead, qTail, qNext int32
	nbacklog            int
	refs                int // descriptions open on it
	shutRd              bool
	shutWr              bool
	// net is the kernel/inet connection (or, on a listener, the
	// interface's listener) this socket has, -1 for none (inet.go).
	net  int32
	opts netOpts
	// dgram is a UDP socket's kernel/inet endpoint, -1 for a stream
	// socket (udp.go); from is the sender of the datagram read last.
	dgram    int32
	fromAddr [4]byte
	fromPort uint16
	dgramErr unix.Errno // a port unreachable, for the next call
	// nl is an AF_NETLINK socket's (netlink.go).
	nl netlinkState
	// SO_PASSCRED; the credentials the sends of one sendmsg carry
	// (SCM_CREDENTIALS, zero: none); the datagram's last read took;
	// SO_PEERCRED's (creds.go).
	passCred                     bool
	attached, fromCred, peerCred unix.Ucred
}

var sockets [MaxSockets]Socket

var nextPort uint16 = ephemeralBase

// Reset empties the socket table (the kernel's is empty at boot; host
// tests start each test here).
func Reset() {
	sockets = [MaxSockets]Socket{}
	nextPort = ephemeralBase
}

// New makes a socket of family, or returns nil when the table is full.
// The caller gives it a description (Opened) or frees it (Drop).
func New(family uint16) *Socket {
	for i := range sockets {
		if sockets[i].State == Free {
			sockets[i] = Socket{State: Created, Family: family, Type: unix.SOCK_STREAM, rx: -1, tx: -1, net: -1, dgram: -1, peerCred: vfs.NoCred()}
			return &sockets[i]
		}
	}
	return nil
}

// Opened counts a description made on k.
func (k *Socket) Opened() { k.refs++ }

// Drop frees a socket New (or Pair) made that never got a description.
func (k *Socket) Drop() {
	if k.refs == 0 {
		k.dropNet()
		k.closeEnds()
		k.State = Free
	}
}

// unref drops a description's reference; the last one closes it.
func (k *Socket) unref() {
	k.refs--
	if k.refs > 0 {
		return
	}
	k.resetPeer()
	if k.State == Listening {
		// Refuse the queued connections: their clients see EOF.
		for k.qHead != 0 {
			c := &sockets[k.qHead-1]
			k.qHead, c.qNext = c.qNext, 0
			c.refs = 1
			c.unref()
		}
		k.qTail, k.nbacklog = 0, 0
		// A blocked accept runs again and finds its descriptor gone.
		vfs.Notify(&k.W, unix.EPOLLIN|unix.EPOLLHUP)
	}
	k.dropNet()
	k.closeEnds()
	k.State = Free
}

func (k *Socket) closeEnds() {
	if k.rx >= 0 {
		p := vfs.PipeAt(k.rx)
		p.ReadOwner = nil
		p.Close(false)
		k.rx = -1
	}
	if k.tx >= 0 {
		p := vfs.PipeAt(k.tx)
		p.WriteOwner = nil
		p.Close(true)
		k.tx = -1
	}
}
