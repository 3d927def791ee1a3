package kernel

import (
	"unsafe"

	"gometal/kernel/usermem"
	"gometal/kernel/vfs"
	"gometal/sched"

	"golang.org/x/sys/unix"
)

// Loopback stream sockets. There is no network device yet, but programs
// (and the standard library's tests, through net/http/httptest) talk TCP
// to themselves over 127.0.0.1. A connection is two kernel pipes, one per
// direction; listen/accept queue the server ends. AF_INET only (AF_INET6
// answers EAFNOSUPPORT, so Go's net package uses IPv4), plus socketpair
// for AF_UNIX streams.

const (
	maxSockets    = 128
	backlogMax    = 32
	ephemeralBase = 32768
)

type sockState uint8

const (
	sockFree sockState = iota
	sockCreated
	sockBound
	sockListening
	sockConnected
)

// socket is one socket and its Impl: reads and writes go through the
// connection's pipes, which notify the socket (vfs.Pipe's owners) along
// with themselves; a listener is notified by connect.
type socket struct {
	vfs.Base
	W        vfs.Waitable
	state    sockState
	family   uint16
	port     uint16
	addr     [4]byte
	peerPort uint16
	peerAddr [4]byte
	rx, tx   int32 // pipes, -1 when not connected
	backlog  [backlogMax]int32
	nbacklog int
	refs     int // descriptions open on it
	shutRd   bool
	shutWr   bool
}

var sockets [maxSockets]socket

var nextPort uint16 = ephemeralBase

func newSocket(family uint16) int32 {
	for i := range sockets {
		if sockets[i].state == sockFree {
			sockets[i] = socket{state: sockCreated, family: family, rx: -1, tx: -1}
			return int32(i)
		}
	}
	return -1
}

// sockFD installs a descriptor for socket s.
func sockFD(s int32, nonblock, cloexec bool) (uint64, bool) {
	flags := uint32(unix.O_RDWR)
	if nonblock {
		flags |= unix.O_NONBLOCK
	}
	fd := openFD(&sockets[s], flags, cloexec)
	if vfs.IsErr(fd) {
		return fd, false
	}
	sockets[s].refs++
	return fd, true
}

// sockUnref drops a description's reference; the last one closes it.
func sockUnref(s int32) {
	k := &sockets[s]
	k.refs--
	if k.refs > 0 {
		return
	}
	if k.state == sockListening {
		// Refuse the queued connections: their clients see EOF.
		for i := 0; i < k.nbacklog; i++ {
			c := k.backlog[i]
			sockets[c].refs = 1
			sockUnref(c)
		}
		// A blocked accept runs again and finds its descriptor gone.
		vfs.Notify(&k.W, unix.EPOLLIN|unix.EPOLLHUP)
	}
	k.closeEnds()
	k.state = sockFree
}

func (k *socket) closeEnds() {
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

// sockOf returns the socket descriptor fd refers to.
func sockOf(fd uint64) (*vfs.File, *socket, uint64) {
	fl, ok := getFD(fd)
	if !ok {
		return nil, nil, errno(unix.EBADF)
	}
	k, ok := fl.Impl.(*socket)
	if !ok {
		return nil, nil, errno(unix.ENOTSOCK)
	}
	return fl, k, 0
}

func sysSocket(t *sched.Thread, f *sched.Frame) uint64 {
	domain, typ := f.X[0], f.X[1]
	base := typ &^ uint64(unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	if domain != unix.AF_INET {
		return errno(unix.EAFNOSUPPORT)
	}
	if base != unix.SOCK_STREAM {
		return errno(unix.EPROTONOSUPPORT) // no UDP without a network
	}
	if p := f.X[2]; p != 0 && p != unix.IPPROTO_TCP {
		return errno(unix.EPROTONOSUPPORT)
	}
	s := newSocket(unix.AF_INET)
	if s < 0 {
		return errno(unix.ENFILE)
	}
	fd, ok := sockFD(s, typ&unix.SOCK_NONBLOCK != 0, typ&unix.SOCK_CLOEXEC != 0)
	if !ok {
		sockets[s].state = sockFree
	}
	return fd
}

// readSockaddr reads a sockaddr_in: family, port (big-endian), address.
func readSockaddr(addr uintptr, n uint64) (port uint16, ip [4]byte, e unix.Errno) {
	var sa [16]byte
	if n < 8 || n > 128 {
		return 0, ip, unix.EINVAL
	}
	if n > 16 {
		n = 16
	}
	if !usermem.CopyIn(sa[:n], addr) {
		return 0, ip, unix.EFAULT
	}
	if uint16(sa[0])|uint16(sa[1])<<8 != unix.AF_INET {
		return 0, ip, unix.EAFNOSUPPORT
	}
	port = uint16(sa[2])<<8 | uint16(sa[3])
	copy(ip[:], sa[4:8])
	return port, ip, 0
}

// writeSockaddr stores a sockaddr_in and its length (value-result).
func writeSockaddr(addr, lenp uintptr, port uint16, ip [4]byte) uint64 {
	if addr == 0 {
		return 0
	}
	l, ok := usermem.ReadU32(lenp)
	if !ok {
		return errno(unix.EFAULT)
	}
	if int32(l) < 0 {
		return errno(unix.EINVAL)
	}
	var sa [16]byte
	sa[0], sa[1] = unix.AF_INET, 0
	sa[2], sa[3] = byte(port>>8), byte(port)
	copy(sa[4:8], ip[:])
	n := uint32(len(sa))
	if l < n {
		n = l
	}
	if !usermem.CopyOut(addr, sa[:n]) || !usermem.WriteU32(lenp, uint32(len(sa))) {
		return errno(unix.EFAULT)
	}
	return 0
}

func loopback(ip [4]byte) bool { return ip[0] == 127 || ip == [4]byte{} }

func portInUse(port uint16) bool {
	for i := range sockets {
		s := &sockets[i]
		if (s.state == sockBound || s.state == sockListening) && s.port == port {
			return true
		}
	}
	return false
}

func ephemeralPort() uint16 {
	for i := 0; i < 65536-ephemeralBase; i++ {
		p := nextPort
		nextPort++
		if nextPort == 0 {
			nextPort = ephemeralBase
		}
		if !portInUse(p) {
			return p
		}
	}
	return 0
}

func sysBind(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	port, ip, err := readSockaddr(uintptr(f.X[1]), f.X[2])
	if err != 0 {
		return errno(err)
	}
	if k.state != sockCreated {
		return errno(unix.EINVAL)
	}
	if !loopback(ip) {
		return errno(unix.EADDRNOTAVAIL)
	}
	if port == 0 {
		if port = ephemeralPort(); port == 0 {
			return errno(unix.EADDRINUSE)
		}
	} else if portInUse(port) {
		return errno(unix.EADDRINUSE)
	}
	k.port, k.addr, k.state = port, ip, sockBound
	return 0
}

func sysListen(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	switch k.state {
	case sockCreated:
		k.port, k.addr = ephemeralPort(), [4]byte{}
	case sockBound, sockListening:
	default:
		return errno(unix.EINVAL)
	}
	k.state = sockListening
	return 0
}

func sysConnect(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	port, ip, err := readSockaddr(uintptr(f.X[1]), f.X[2])
	if err != 0 {
		return errno(err)
	}
	switch k.state {
	case sockConnected:
		return errno(unix.EISCONN)
	case sockListening:
		return errno(unix.EINVAL)
	}
	if !loopback(ip) {
		return errno(unix.ENETUNREACH)
	}
	var l *socket
	for i := range sockets {
		s := &sockets[i]
		if s.state == sockListening && s.port == port {
			l = s
			break
		}
	}
	if l == nil {
		return errno(unix.ECONNREFUSED)
	}
	if l.nbacklog == backlogMax {
		return errno(unix.EAGAIN)
	}
	srv := newSocket(unix.AF_INET)
	if srv < 0 {
		return errno(unix.ENFILE)
	}
	up, down := vfs.NewPipe(), vfs.NewPipe()
	if up == nil || down == nil {
		for _, p := range [2]*vfs.Pipe{up, down} {
			if p != nil {
				p.Close(false)
				p.Close(true)
			}
		}
		sockets[srv].state = sockFree
		return errno(unix.ENOMEM)
	}
	if k.state == sockCreated {
		k.port = ephemeralPort()
	}
	k.addr = [4]byte{127, 0, 0, 1}
	k.peerPort, k.peerAddr = port, [4]byte{127, 0, 0, 1}
	k.tx, k.rx = up.Index(), down.Index()
	k.state = sockConnected
	s := &sockets[srv]
	s.state = sockConnected
	s.port, s.addr = port, [4]byte{127, 0, 0, 1}
	s.peerPort, s.peerAddr = k.port, k.addr
	s.rx, s.tx = up.Index(), down.Index()
	// Each side hears of its own pipe ends: data to read on rx, room to
	// write on tx, and the peer's close of either.
	up.WriteOwner, up.ReadOwner = &k.W, &s.W
	down.WriteOwner, down.ReadOwner = &s.W, &k.W
	l.backlog[l.nbacklog] = srv
	l.nbacklog++
	vfs.Notify(&l.W, unix.EPOLLIN) // accept and epoll waiters
	return 0
}

func sysAccept4(t *sched.Thread, f *sched.Frame) uint64 {
	fl, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	if k.state != sockListening {
		return errno(unix.EINVAL)
	}
	flags := f.X[3]
	if flags&^uint64(unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC) != 0 {
		return errno(unix.EINVAL)
	}
	if k.nbacklog == 0 {
		// Go's sockets are non-blocking: it waits in epoll instead. A
		// blocking socket waits on the listener until connect queues a
		// connection (or the listener goes), then runs accept again; a
		// signal ends the wait with EINTR (restarted after an
		// SA_RESTART handler).
		return vfs.Wait(t, fl, unix.EPOLLIN)
	}
	c := k.backlog[0]
	fd, ok := sockFD(c, flags&unix.SOCK_NONBLOCK != 0, flags&unix.SOCK_CLOEXEC != 0)
	if !ok {
		return fd
	}
	copy(k.backlog[:], k.backlog[1:k.nbacklog])
	k.nbacklog--
	s := &sockets[c]
	if r := writeSockaddr(uintptr(f.X[1]), uintptr(f.X[2]), s.peerPort, s.peerAddr); r != 0 {
		return r
	}
	return uint64(fd)
}

func sysAccept(t *sched.Thread, f *sched.Frame) uint64 {
	f.X[3] = 0
	return sysAccept4(t, f)
}

func sysGetsockname(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	return writeSockaddr(uintptr(f.X[1]), uintptr(f.X[2]), k.port, k.addr)
}

func sysGetpeername(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	if k.state != sockConnected {
		return errno(unix.ENOTCONN)
	}
	return writeSockaddr(uintptr(f.X[1]), uintptr(f.X[2]), k.peerPort, k.peerAddr)
}

func sysSetsockopt(t *sched.Thread, f *sched.Frame) uint64 {
	if _, _, e := sockOf(f.X[0]); e != 0 {
		return e
	}
	// Options (SO_REUSEADDR, TCP_NODELAY, keep-alive, buffer sizes) have
	// no effect on an in-memory loopback; accept them.
	return 0
}

func sysGetsockopt(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	var v int32
	switch {
	case f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_ERROR:
		v = 0
	case f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_TYPE:
		v = unix.SOCK_STREAM
	case f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_DOMAIN:
		v = int32(k.family)
	case f.X[1] == unix.SOL_SOCKET && (f.X[2] == unix.SO_RCVBUF || f.X[2] == unix.SO_SNDBUF):
		v = vfs.PipeBufSize
	case f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_ACCEPTCONN:
		if k.state == sockListening {
			v = 1
		}
	default:
		v = 0
	}
	if !usermem.WriteU32(uintptr(f.X[3]), uint32(v)) || !usermem.WriteU32(uintptr(f.X[4]), 4) {
		return errno(unix.EFAULT)
	}
	return 0
}

func sysShutdown(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	if k.state != sockConnected {
		return errno(unix.ENOTCONN)
	}
	how := f.X[1]
	if how > unix.SHUT_RDWR {
		return errno(unix.EINVAL)
	}
	if (how == unix.SHUT_RD || how == unix.SHUT_RDWR) && !k.shutRd {
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

// Read and Write move data through the connection's pipes.
func (k *socket) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if k.state != sockConnected {
		return errno(unix.ENOTCONN)
	}
	if k.shutRd || k.rx < 0 {
		return 0
	}
	return vfs.PipeAt(k.rx).ReadAt(buf, n)
}

func (k *socket) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if k.state != sockConnected {
		return errno(unix.ENOTCONN)
	}
	if k.shutWr || k.tx < 0 {
		return errno(unix.EPIPE)
	}
	return vfs.PipeAt(k.tx).WriteAt(buf, n)
}

func (k *socket) Waitable() *vfs.Waitable { return &k.W }
func (k *socket) Kind() vfs.Kind          { return vfs.KindSocket }
func (k *socket) Release(f *vfs.File)     { sockUnref(k.index()) }

func (k *socket) index() int32 {
	return int32((uintptr(unsafe.Pointer(k)) - uintptr(unsafe.Pointer(&sockets[0]))) / unsafe.Sizeof(sockets[0]))
}

func (k *socket) Stat(f *vfs.File) unix.Stat_t {
	return unix.Stat_t{Mode: unix.S_IFSOCK | 0o777, Nlink: 1, Blksize: 4096}
}

func sysSendto(t *sched.Thread, f *sched.Frame) uint64 {
	fl, _, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	// send(2): MSG_NOSIGNAL keeps EPIPE from raising SIGPIPE.
	if f.X[3]&unix.MSG_NOSIGNAL != 0 {
		return vfs.Write(t, fl, uintptr(f.X[1]), f.X[2], -1)
	}
	return writeFile(t, fl, uintptr(f.X[1]), f.X[2], -1)
}

func sysRecvfrom(t *sched.Thread, f *sched.Frame) uint64 {
	fl, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	r := vfs.Read(t, fl, uintptr(f.X[1]), f.X[2], -1)
	if int64(r) >= 0 && t.State == sched.Running && f.X[4] != 0 {
		if w := writeSockaddr(uintptr(f.X[4]), uintptr(f.X[5]), k.peerPort, k.peerAddr); w != 0 {
			return w
		}
	}
	return r
}

// Readiness reports a socket's EPOLL* bits.
func (k *socket) Readiness(f *vfs.File) uint32 {
	switch k.state {
	case sockListening:
		if k.nbacklog > 0 {
			return unix.EPOLLIN
		}
		return 0
	case sockConnected:
		var r uint32
		if k.rx >= 0 {
			// A socket reports the peer's close as readable + RDHUP.
			if e := vfs.PipeAt(k.rx).ReadEvents(); e != 0 {
				r |= unix.EPOLLIN
				if e&unix.EPOLLHUP != 0 {
					r |= unix.EPOLLRDHUP
				}
			}
		}
		if k.tx >= 0 {
			r |= vfs.PipeAt(k.tx).WriteEvents()
		}
		if k.rx < 0 && k.tx < 0 {
			r |= unix.EPOLLHUP
		}
		return r
	}
	return unix.EPOLLOUT // unconnected: Linux reports writable/hup
}
