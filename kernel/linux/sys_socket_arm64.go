package linux

import (
	"encoding/binary"

	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/socket"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The socket system calls: arguments, sockaddrs in app memory and
// descriptors here; the sockets themselves are package socket's.

// sockFD installs a descriptor for socket k; typ carries the
// SOCK_NONBLOCK and SOCK_CLOEXEC flags socket, socketpair and accept4 take.
func sockFD(k *socket.Socket, typ uint64) (uint64, bool) {
	flags := uint32(unix.O_RDWR)
	if typ&unix.SOCK_NONBLOCK != 0 {
		flags |= unix.O_NONBLOCK
	}
	fd := openFD(k, flags, typ&unix.SOCK_CLOEXEC != 0)
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

// sockTypeFlags are the flags socket(2) and socketpair(2) take in type,
// and accept4(2) in flags.
const sockTypeFlags = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC

// checkSocket answers what socket(2) and socketpair(2) cannot make:
// AF_INET stream (TCP) and datagram (UDP) sockets, on the loopback and
// over the network interface; AF_UNIX stream, datagram and seqpacket
// sockets; NETLINK_ROUTE.
func checkSocket(domain, typ, proto uint64) unix.Errno {
	switch domain {
	case unix.AF_INET:
		if typ&^uint64(sockTypeFlags) == unix.SOCK_DGRAM {
			if proto != 0 && proto != unix.IPPROTO_UDP {
				return unix.EPROTONOSUPPORT
			}
			return 0
		}
		if proto != 0 && proto != unix.IPPROTO_TCP {
			return unix.EPROTONOSUPPORT
		}
	case unix.AF_UNIX:
		if proto != 0 && proto != unix.AF_UNIX { // unix_create: PF_UNIX or 0
			return unix.EPROTONOSUPPORT
		}
		if t := typ &^ uint64(sockTypeFlags); t == unix.SOCK_DGRAM || t == unix.SOCK_SEQPACKET {
			return 0
		}
	case unix.AF_NETLINK:
		// NETLINK_ROUTE's link and address dumps only (socket/netlink.go);
		// netlink_create takes SOCK_RAW or SOCK_DGRAM.
		if t := typ &^ uint64(sockTypeFlags); t != unix.SOCK_RAW && t != unix.SOCK_DGRAM {
			return unix.ESOCKTNOSUPPORT
		}
		if proto != unix.NETLINK_ROUTE {
			return unix.EPROTONOSUPPORT
		}
		return 0
	default:
		return unix.EAFNOSUPPORT
	}
	if typ&^uint64(sockTypeFlags) != unix.SOCK_STREAM {
		if domain == unix.AF_UNIX {
			return unix.ESOCKTNOSUPPORT // SOCK_RAW, SOCK_RDM: unix_create
		}
		return unix.EPROTONOSUPPORT // no raw IP sockets
	}
	return 0
}

func sysSocket(t *sched.Thread, f *sched.Frame) uint64 {
	domain, typ := f.X[0], f.X[1]
	if e := checkSocket(domain, typ, f.X[2]); e != 0 {
		return errno(e)
	}
	k := socket.New(uint16(domain))
	if k == nil {
		return errno(unix.ENFILE)
	}
	if domain == unix.AF_NETLINK || typ&^uint64(sockTypeFlags) == unix.SOCK_SEQPACKET {
		k.Type = uint16(typ &^ uint64(sockTypeFlags))
	} else if typ&^uint64(sockTypeFlags) == unix.SOCK_DGRAM {
		if e := k.OpenDgram(); e != 0 {
			k.Drop()
			return errno(e)
		}
	}
	fd, ok := sockFD(k, typ)
	if !ok {
		k.Drop()
	}
	return fd
}

// sysSocketpair makes two connected AF_UNIX stream sockets and stores
// their descriptors in sv[2].
func sysSocketpair(t *sched.Thread, f *sched.Frame) uint64 {
	domain, typ, sv := f.X[0], f.X[1], uintptr(f.X[3])
	if domain == unix.AF_INET {
		return errno(unix.EOPNOTSUPP) // inet_create: no socketpair for TCP
	}
	if e := checkSocket(domain, typ, f.X[2]); e != 0 {
		return errno(e)
	}
	a, b, e := socket.Pair(uint16(typ &^ uint64(sockTypeFlags)))
	if e != 0 {
		return errno(e)
	}
	fa, ok := sockFD(a, typ)
	if !ok {
		a.Drop()
		b.Drop() // the pipes go with the sockets' last references
		return fa
	}
	fb, ok := sockFD(b, typ)
	if !ok {
		closeFD(int(fa))
		b.Drop()
		return fb
	}
	if !usermem.WriteU32(sv, uint32(fa)) || !usermem.WriteU32(sv+4, uint32(fb)) {
		closeFD(int(fa))
		closeFD(int(fb))
		return errno(unix.EFAULT)
	}
	return 0
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

// sockaddrMax is the largest sockaddr written back: sockaddr_un.
const sockaddrMax = 2 + socket.UnixPathMax

// sockName builds k's own name (or its peer's) as a sockaddr of its
// family: sockaddr_in, or sockaddr_un with what unix(7) says getsockname
// returns (a path with its NUL; an abstract name as bound; only the
// family for an unnamed socket).
func sockName(k *socket.Socket, peer bool) (sa [sockaddrMax]byte, n int) {
	sa[0], sa[1] = byte(k.Family), byte(k.Family>>8)
	if k.IsNetlink() {
		// struct sockaddr_nl: family, pad, nl_pid, nl_groups; the peer
		// is the kernel, pid 0.
		if !peer {
			binary.LittleEndian.PutUint32(sa[4:], k.NetlinkPid())
		}
		return sa, unix.SizeofSockaddrNetlink
	}
	if k.Family == unix.AF_UNIX {
		if peer {
			return unixName(&k.Peer)
		}
		return unixName(&k.Name)
	}
	port, ip := k.Port, k.Addr
	if peer {
		port, ip = k.PeerPort, k.PeerAddr
	}
	return inName(port, ip)
}

// inName builds a sockaddr_in.
func inName(port uint16, ip [4]byte) (sa [sockaddrMax]byte, n int) {
	sa[0], sa[1] = byte(unix.AF_INET), byte(unix.AF_INET>>8)
	sa[2], sa[3] = byte(port>>8), byte(port)
	copy(sa[4:8], ip[:])
	return sa, 16 // sizeof(struct sockaddr_in)
}

// writeSockaddr stores k's name (or its peer's) at addr and its length
// at lenp (value-result: at most *lenp bytes are written, the full
// length is returned). A nil addr asks for nothing.
func writeSockaddr(addr, lenp uintptr, k *socket.Socket, peer bool) uint64 {
	sa, n := sockName(k, peer)
	return putSockaddr(addr, lenp, sa[:n])
}

// writeSockaddrIn stores the sockaddr_in of ip:port as writeSockaddr
// does.
func writeSockaddrIn(addr, lenp uintptr, port uint16, ip [4]byte) uint64 {
	sa, n := inName(port, ip)
	return putSockaddr(addr, lenp, sa[:n])
}

func putSockaddr(addr, lenp uintptr, sa []byte) uint64 {
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
	n := len(sa)
	w := uint32(n)
	if l < w {
		w = l
	}
	if !usermem.CopyOut(addr, sa[:w]) || !usermem.WriteU32(lenp, uint32(n)) {
		return errno(unix.EFAULT)
	}
	return 0
}

// readNetlinkSockaddr reads a sockaddr_nl for bind: its family must be
// AF_NETLINK and it must be whole (netlink_bind: EINVAL); the pid is
// the port id asked for (0: choose), and multicast groups, which no
// event here would reach, are taken and ignored.
func readNetlinkSockaddr(addr uintptr, n uint64) (pid uint32, e unix.Errno) {
	var sa [unix.SizeofSockaddrNetlink]byte
	if n < uint64(len(sa)) {
		return 0, unix.EINVAL
	}
	if !usermem.CopyIn(sa[:], addr) {
		return 0, unix.EFAULT
	}
	if binary.LittleEndian.Uint16(sa[0:]) != unix.AF_NETLINK {
		return 0, unix.EINVAL
	}
	return binary.LittleEndian.Uint32(sa[4:]), 0
}

// readUnixSockaddr reads a sockaddr_un as unix_validate_addr and
// unix_mkname_bsd do: 2 < n <= 110 and the family AF_UNIX, else EINVAL;
// a path ends at its first NUL, an abstract name (a NUL first) takes all
// n-2 bytes. n == 2 (only the family) gives an unnamed address, which
// bind takes as "choose a name".
func readUnixSockaddr(addr uintptr, n uint64) (a socket.UnixAddr, e unix.Errno) {
	var sa [sockaddrMax]byte
	if n < 2 || n > sockaddrMax {
		return a, unix.EINVAL
	}
	if !usermem.CopyIn(sa[:n], addr) {
		return a, unix.EFAULT
	}
	if uint16(sa[0])|uint16(sa[1])<<8 != unix.AF_UNIX {
		return a, unix.EINVAL
	}
	name := sa[2:n]
	if len(name) > 0 && name[0] != 0 {
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
	}
	a.N = uint8(copy(a.Path[:], name))
	return a, 0
}

// bindUnix binds k to a: a path gets a socket file, made as mknod would
// make it (an existing name is EADDRINUSE, as unix_bind_bsd answers).
func bindUnix(k *socket.Socket, a *socket.UnixAddr) unix.Errno {
	switch {
	case k.State != socket.Created:
		return unix.EINVAL
	case a.N == 0:
		return k.Autobind()
	case a.Abstract():
		return k.BindUnix(a)
	}
	var w fs.Walk
	w.Root = rootPath()
	if e := fs.Resolve(&w, cwdPath(), a.Bytes(), fs.ForCreate); e != 0 {
		return e
	}
	i, e := fs.Create(&w, unix.S_IFSOCK|0o777&^fsCtx().Umask)
	if e == unix.EEXIST {
		return unix.EADDRINUSE
	}
	if e != 0 {
		return e
	}
	a.Ino = fs.Inodes[i].Ino
	return k.BindUnix(a)
}

// connectUnix connects k to the socket a names: a path must name a
// socket file (ENOENT if nothing, ECONNREFUSED if not a socket or none
// listens on it).
func connectUnix(k *socket.Socket, a *socket.UnixAddr) unix.Errno {
	if e := resolveUnix(a); e != 0 {
		return e
	}
	return k.ConnectUnix(a)
}

// resolveUnix finds the socket file a path names (its inode number in
// a.Ino); an abstract name needs none.
func resolveUnix(a *socket.UnixAddr) unix.Errno {
	if a.N == 0 {
		return unix.EINVAL
	}
	if !a.Abstract() {
		var w fs.Walk
		w.Root = rootPath()
		i, e := fs.Lookup(&w, cwdPath(), a.Bytes(), fs.Follow)
		if e != 0 {
			return e
		}
		if fs.Inodes[i].Mode&unix.S_IFMT != unix.S_IFSOCK {
			return unix.ECONNREFUSED
		}
		a.Ino = fs.Inodes[i].Ino
	}
	return 0
}

// writeUnixName stores a as a sockaddr_un at addr, its length at lenp;
// nil (an unnamed sender) stores a length of 0 and nothing else, as
// unix_copy_addr does.
func writeUnixName(addr, lenp uintptr, a *socket.UnixAddr) uint64 {
	if a == nil {
		if addr != 0 && !usermem.WriteU32(lenp, 0) {
			return errno(unix.EFAULT)
		}
		return 0
	}
	sa, n := unixName(a)
	return putSockaddr(addr, lenp, sa[:n])
}

// unixName builds a sockaddr_un as unix(7) says getsockname returns it:
// a path with its NUL, an abstract name as bound, only the family for
// an unnamed socket.
func unixName(a *socket.UnixAddr) (sa [sockaddrMax]byte, n int) {
	sa[0], sa[1] = byte(unix.AF_UNIX), byte(unix.AF_UNIX>>8)
	n = 2 + copy(sa[2:], a.Bytes())
	if a.N > 0 && !a.Abstract() && n < len(sa) {
		n++ // sa is zeroed: the path's NUL
	}
	return sa, n
}

// bindOrConnect reads what bind and connect take, the socket (X0) and a
// sockaddr of its family (X1, X2 its length), and binds or connects. A
// TCP connect over the network answers EINPROGRESS on a non-blocking
// socket (Go's way: it waits in epoll for EPOLLOUT, then reads
// SO_ERROR); a blocking one waits for the handshake and runs again.
func bindOrConnect(t *sched.Thread, f *sched.Frame, connect bool) uint64 {
	fl, k, r := sockOf(f.X[0])
	if r != 0 {
		return r
	}
	if k.IsNetlink() {
		pid, e := readNetlinkSockaddr(uintptr(f.X[1]), f.X[2])
		switch {
		case e != 0:
			return errno(e)
		case connect:
			return 0 // the peer is the kernel, pid 0, whatever is named
		}
		return errno(k.BindNetlink(pid))
	}
	if k.Family == unix.AF_UNIX {
		a, e := readUnixSockaddr(uintptr(f.X[1]), f.X[2])
		switch {
		case e != 0:
			return errno(e)
		case connect:
			return errno(connectUnix(k, &a))
		}
		return errno(bindUnix(k, &a))
	}
	port, ip, e := readSockaddr(uintptr(f.X[1]), f.X[2])
	switch {
	case e != 0:
		return errno(e)
	case connect:
		e := k.Connect(port, ip, t.Retried)
		if (e == unix.EINPROGRESS || e == unix.EALREADY && t.Retried) && !fl.Nonblocking() {
			return vfs.Wait(t, fl, unix.EPOLLOUT)
		}
		return errno(e)
	}
	return errno(k.Bind(port, ip))
}

func sysBind(t *sched.Thread, f *sched.Frame) uint64 { return bindOrConnect(t, f, false) }

func sysConnect(t *sched.Thread, f *sched.Frame) uint64 { return bindOrConnect(t, f, true) }

func sysListen(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	return errno(k.Listen())
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
	if flags&^uint64(sockTypeFlags) != 0 {
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
	fd, ok := sockFD(c, flags)
	if !ok {
		c.Drop() // one from the interface is made for this accept
		return fd
	}
	k.Dequeue(c)
	if r := writeSockaddr(uintptr(f.X[1]), uintptr(f.X[2]), c, true); r != 0 {
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
	return writeSockaddr(uintptr(f.X[1]), uintptr(f.X[2]), k, false)
}

func sysGetpeername(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	if !k.IsConnected() {
		return errno(unix.ENOTCONN)
	}
	return writeSockaddr(uintptr(f.X[1]), uintptr(f.X[2]), k, true)
}

// sysSetsockopt sets what TCP over the network acts on (TCP_NODELAY,
// SO_KEEPALIVE, TCP_KEEPIDLE/INTVL/CNT) and SO_PASSCRED; the rest (SO_REUSEADDR, buffer
// sizes) are accepted and have no effect.
func sysSetsockopt(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	if f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_LINGER {
		return setLinger(k, uintptr(f.X[3]), f.X[4])
	}
	var v int32
	if f.X[4] >= 4 {
		u, ok := usermem.ReadU32(uintptr(f.X[3]))
		if !ok {
			return errno(unix.EFAULT)
		}
		v = int32(u)
	} else if f.X[1] == unix.IPPROTO_TCP || f.X[1] == unix.SOL_SOCKET && (f.X[2] == unix.SO_KEEPALIVE || f.X[2] == unix.SO_PASSCRED) {
		return errno(unix.EINVAL) // an int option needs an int
	}
	return errno(k.SetOpt(f.X[1], f.X[2], v))
}

func sysGetsockopt(t *sched.Thread, f *sched.Frame) uint64 {
	_, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	if f.X[1] == unix.SOL_SOCKET && (f.X[2] == unix.SO_LINGER || f.X[2] == unix.SO_PEERCRED) {
		return getStructOpt(k, f.X[2], uintptr(f.X[3]), uintptr(f.X[4]))
	}
	var v int32
	if o, ok := k.Opt(f.X[1], f.X[2]); ok {
		v = o
	}
	switch {
	case f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_ERROR:
		v = int32(k.Error())
	case f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_TYPE:
		v = int32(k.Type)
	case f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_DOMAIN:
		v = int32(k.Family)
	case f.X[1] == unix.SOL_SOCKET && (f.X[2] == unix.SO_RCVBUF || f.X[2] == unix.SO_SNDBUF):
		v = vfs.PipeBufSize
	case f.X[1] == unix.SOL_SOCKET && f.X[2] == unix.SO_ACCEPTCONN:
		if k.State == socket.Listening {
			v = 1
		}
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

// sysSendto is send(2), and sendto(2) with an address (X4, X5) for a
// datagram socket; a stream socket ignores one, as Linux's TCP does.
func sysSendto(t *sched.Thread, f *sched.Frame) uint64 {
	fl, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	if k.IsNetlink() {
		return k.NetlinkSend(uintptr(f.X[1]), f.X[2]) // to the kernel, whatever is named
	}
	if k.IsDgram() && f.X[4] != 0 && k.Family == unix.AF_UNIX {
		a, e := readUnixSockaddr(uintptr(f.X[4]), f.X[5])
		if e == 0 {
			e = resolveUnix(&a)
		}
		if e != 0 {
			return errno(e)
		}
		return k.SendToUnix(uintptr(f.X[1]), f.X[2], &a)
	}
	if k.IsDgram() && f.X[4] != 0 {
		port, ip, e := readSockaddr(uintptr(f.X[4]), f.X[5])
		if e != 0 {
			return errno(e)
		}
		return k.SendTo(uintptr(f.X[1]), f.X[2], port, ip)
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
	r := recvInto(t, fl, k, uintptr(f.X[1]), f.X[2], f.X[3])
	if int64(r) >= 0 && t.State == sched.Running && f.X[4] != 0 {
		if k.IsNetlink() {
			if w := writeSockaddr(uintptr(f.X[4]), uintptr(f.X[5]), k, true); w != 0 {
				return w
			}
		} else if k.IsDgram() && k.Family == unix.AF_UNIX {
			if w := writeUnixName(uintptr(f.X[4]), uintptr(f.X[5]), k.FromUnix()); w != 0 {
				return w
			}
		} else if k.IsDgram() {
			// The datagram's sender, not the connected peer.
			ip, port := k.From()
			if w := writeSockaddrIn(uintptr(f.X[4]), uintptr(f.X[5]), port, ip); w != 0 {
				return w
			}
		} else if k.Family == unix.AF_UNIX && k.Peer.N == 0 {
			// unix_copy_addr: an unnamed sender has no address.
			if !usermem.WriteU32(uintptr(f.X[5]), 0) {
				return errno(unix.EFAULT)
			}
		} else if w := writeSockaddr(uintptr(f.X[4]), uintptr(f.X[5]), k, true); w != 0 {
			return w
		}
	}
	return r
}

// recvInto is recv's read of n bytes into buf with flags: MSG_PEEK
// copies without taking (socket.PeekAt); MSG_DONTWAIT answers EAGAIN
// where a blocking socket would wait.
func recvInto(t *sched.Thread, fl *vfs.File, k *socket.Socket, buf uintptr, n, flags uint64) uint64 {
	var r uint64
	if flags&unix.MSG_PEEK != 0 {
		r = k.PeekAt(0, buf, n)
	} else {
		r = fl.Impl.Read(fl, buf, n, -1)
	}
	if r == errno(unix.EAGAIN) && flags&unix.MSG_DONTWAIT == 0 {
		return vfs.Wait(t, fl, unix.EPOLLIN)
	}
	return r
}

// logListen is the kernel log's line for a port the app listens on over
// the interface; qemu's runner matches it (listenLineRE) to add the host
// address a -p forward gives it.
func logListen(port uint16) {
	if kernel.Info("net: listening on port ") {
		kernel.PutDec(int64(port))
		kernel.InfoEnd()
	}
}

// initNetSockets connects TCP over the network to the sockets: the
// stack's Wake reaches a socket's waiters, and its initial sequence
// numbers are keyed with the kernel's entropy (RFC 6528).
func initNetSockets() {
	inet.Wake = socket.NetWake
	socket.Listened = logListen
	socket.ProcessID = appPID
	socket.Sender = senderCred
	var key [8]byte
	fillRandom(key[:])
	inet.ISNSecret = binary.LittleEndian.Uint64(key[:])
}
