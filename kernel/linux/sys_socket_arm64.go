package linux

import (
	"github.com/gometal/gometal/kernel/socket"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The socket system calls: arguments, sockaddrs in app memory and
// descriptors here; the sockets themselves are package socket's.

// sockFD installs a descriptor for socket k.
func sockFD(k *socket.Socket, nonblock, cloexec bool) (uint64, bool) {
	flags := uint32(unix.O_RDWR)
	if nonblock {
		flags |= unix.O_NONBLOCK
	}
	fd := openFD(k, flags, cloexec)
	if vfs.IsErr(fd) {
		return fd, false
	}
	k.Opened()
	return fd, true
}

// sockOf returns the socket descriptor fd refers to.
func sockOf(fd uint64) (*vfs.File, *socket.Socket, uint64) {
	fl, ok := getFD(fd)
	if !ok {
		return nil, nil, errno(unix.EBADF)
	}
	k, ok := fl.Impl.(*socket.Socket)
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
	k := socket.New(unix.AF_INET)
	if k == nil {
		return errno(unix.ENFILE)
	}
	fd, ok := sockFD(k, typ&unix.SOCK_NONBLOCK != 0, typ&unix.SOCK_CLOEXEC != 0)
	if !ok {
		k.Drop()
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

// sockAndAddr reads what bind and connect take: the socket (X0) and a
// sockaddr_in (X1, X2 its length).
func sockAndAddr(f *sched.Frame) (k *socket.Socket, port uint16, ip [4]byte, r uint64) {
	_, k, r = sockOf(f.X[0])
	if r != 0 {
		return nil, 0, ip, r
	}
	port, ip, e := readSockaddr(uintptr(f.X[1]), f.X[2])
	return k, port, ip, errno(e)
}

func sysBind(t *sched.Thread, f *sched.Frame) uint64 {
	k, port, ip, r := sockAndAddr(f)
	if r != 0 {
		return r
	}
	return errno(k.Bind(port, ip))
}

func sysListen(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	return errno(k.Listen())
}

func sysConnect(t *sched.Thread, f *sched.Frame) uint64 {
	k, port, ip, r := sockAndAddr(f)
	if r != 0 {
		return r
	}
	return errno(k.Connect(port, ip))
}

func sysAccept4(t *sched.Thread, f *sched.Frame) uint64 {
	fl, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	if k.State != socket.Listening {
		return errno(unix.EINVAL)
	}
	flags := f.X[3]
	if flags&^uint64(unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC) != 0 {
		return errno(unix.EINVAL)
	}
	c := k.Pending()
	if c == nil {
		// Go's sockets are non-blocking: it waits in epoll instead. A
		// blocking socket waits on the listener until connect queues a
		// connection (or the listener goes), then runs accept again; a
		// signal ends the wait with EINTR (restarted after an
		// SA_RESTART handler).
		return vfs.Wait(t, fl, unix.EPOLLIN)
	}
	fd, ok := sockFD(c, flags&unix.SOCK_NONBLOCK != 0, flags&unix.SOCK_CLOEXEC != 0)
	if !ok {
		return fd
	}
	k.Dequeue()
	if r := writeSockaddr(uintptr(f.X[1]), uintptr(f.X[2]), c.PeerPort, c.PeerAddr); r != 0 {
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
	return writeSockaddr(uintptr(f.X[1]), uintptr(f.X[2]), k.Port, k.Addr)
}

func sysGetpeername(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	if k.State != socket.Connected {
		return errno(unix.ENOTCONN)
	}
	return writeSockaddr(uintptr(f.X[1]), uintptr(f.X[2]), k.PeerPort, k.PeerAddr)
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
		v = int32(k.Family)
	case f.X[1] == unix.SOL_SOCKET && (f.X[2] == unix.SO_RCVBUF || f.X[2] == unix.SO_SNDBUF):
		v = vfs.PipeBufSize
	case f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_ACCEPTCONN:
		if k.State == socket.Listening {
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
	return errno(k.Shutdown(f.X[1]))
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
		if w := writeSockaddr(uintptr(f.X[4]), uintptr(f.X[5]), k.PeerPort, k.PeerAddr); w != 0 {
			return w
		}
	}
	return r
}
