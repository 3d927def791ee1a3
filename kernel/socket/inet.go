package socket

import (
	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// TCP over the network interface. An AF_INET stream socket bound to the
// wildcard or to the interface's address listens on the loopback (pipes,
// loopback.go) and on the interface (a kernel/inet listener) at once; a
// connection to any address but the loopback's is an inet connection.
// The socket names its connection by index; inet tells it of changes
// through Wake, which notifies the socket's waiters and epoll watchers.

// netOpts are the socket options that reach a TCP connection.
type netOpts struct {
	nodelay, keepalive bool
	idle, intvl        int64 // ns, 0: the stack's default
	cnt                int
	// SO_LINGER's struct linger. On with 0 s, close is abortive
	// (abort.go); on with a timeout, close still returns at once (Linux
	// would wait up to that long for the data to be sent).
	lingerOn   bool
	lingerSecs int32
}

// NetWake is inet's Wake hook: socket owner's connection changed.
func NetWake(owner int32, events uint32) {
	if owner < 0 || int(owner) >= MaxSockets || sockets[owner].State == Free {
		return
	}
	vfs.Notify(&sockets[owner].W, events)
}

// onInterface reports whether ip is the interface's configured address.
func onInterface(ip [4]byte) bool { return inet.If.IP != ([4]byte{}) && ip == inet.If.IP }

// listenNet opens the interface's listener for a socket bound to the
// wildcard or the interface's address, when the interface has one.
func (k *Socket) listenNet() unix.Errno {
	if k.Family != unix.AF_INET || k.net >= 0 || inet.If.IP == ([4]byte{}) || !(k.Addr == [4]byte{} || onInterface(k.Addr)) {
		return 0
	}
	l, e := inet.ListenTCP(k.Port, inet.TCPBacklogMax, k.index())
	if e != 0 {
		return e
	}
	k.net = l
	k.applyOpts()
	if Listened != nil {
		Listened(k.Port)
	}
	return 0
}

// Listened, if set, hears of each port the app listens on over the
// network interface (the kernel logs it; the runner, seeing the line,
// says which host port reaches it).
var Listened func(port uint16)

// connectNet starts a connection to ip:port over the interface; it
// answers EINPROGRESS and Wake reports the outcome (Connected's
// established check below).
func (k *Socket) connectNet(port uint16, ip [4]byte) unix.Errno {
	if k.State == Created {
		k.Port = ephemeralPort(unix.SOCK_STREAM)
	}
	for tries := 0; ; tries++ {
		c, e := inet.ConnectTCP(ip, port, k.Port, k.index())
		if e == unix.EADDRINUSE && k.State == Created && tries < 16 {
			k.Port = ephemeralPort(unix.SOCK_STREAM) // that port is still in TIME-WAIT with this peer
			continue
		}
		if e != 0 {
			return e
		}
		k.net = c
		break
	}
	k.Addr = inet.If.IP
	k.PeerPort, k.PeerAddr = port, ip
	k.State = Connecting
	k.applyOpts()
	return unix.EINPROGRESS
}

// connecting answers connect(2) on a socket whose connection is under
// way: done (0) once established — for the blocking call that waited,
// run again (retried) — EISCONN for a later call, EALREADY before, the
// error if it failed.
func (k *Socket) connecting(retried bool) unix.Errno {
	st := inet.TCPStatus(k.net)
	switch {
	case st.State == inet.TCPSynSent:
		return unix.EALREADY
	case st.Err != 0 || st.State == inet.TCPClosed:
		e := inet.TCPError(k.net)
		if e == 0 {
			e = unix.ECONNREFUSED
		}
		k.dropNet()
		k.State = Created
		return e
	}
	k.State = Connected
	if retried {
		return 0
	}
	return unix.EISCONN
}

// established moves a socket whose connect is under way to Connected
// once the handshake is done (any call may notice first).
func (k *Socket) established() {
	if k.State == Connecting && k.net >= 0 {
		if s := inet.TCPStatus(k.net).State; s != inet.TCPSynSent && s != inet.TCPClosed {
			k.State = Connected
		}
	}
}

// acceptNet takes a connection the interface's listener has ready, as a
// new socket (nil when none waits or the table is full).
func (k *Socket) acceptNet() *Socket {
	if k.net < 0 || inet.TCPPoll(k.net)&unix.EPOLLIN == 0 {
		return nil
	}
	s := New(unix.AF_INET)
	if s == nil {
		return nil
	}
	c := inet.AcceptTCP(k.net, s.index())
	if c < 0 {
		s.State = Free
		return nil
	}
	st := inet.TCPStatus(c)
	s.net, s.State = c, Connected
	s.Port, s.Addr = st.LocalPort, inet.If.IP
	s.PeerPort, s.PeerAddr = st.Port, st.Addr
	s.opts = k.opts // accept(2)'s socket inherits the listener's options
	s.applyOpts()
	return s
}

// dropNet lets go of the socket's connection or listener: abortively
// with SO_LINGER's zero timeout.
func (k *Socket) dropNet() {
	if k.net >= 0 && k.abortive() {
		inet.TCPAbort(k.net)
		k.net = -1
	}
	if k.net >= 0 {
		inet.TCPClose(k.net)
		k.net = -1
	}
	if k.dgram >= 0 {
		k.dropQueuedRights()
		inet.CloseUDP(k.dgram)
		k.dgram = -1
	}
}

// applyOpts gives the connection the socket's options.
func (k *Socket) applyOpts() {
	if k.net >= 0 {
		o := &k.opts
		inet.TCPOptions(k.net, o.nodelay, o.keepalive, o.idle, o.intvl, o.cnt)
	}
}

// SetOpt sets a socket option that TCP acts on (the Linux layer read its
// int argument); others are accepted and have no effect.
func (k *Socket) SetOpt(level, name uint64, v int32) unix.Errno {
	o := &k.opts
	switch {
	case level == unix.IPPROTO_TCP && name == unix.TCP_NODELAY:
		o.nodelay = v != 0
	case level == unix.SOL_SOCKET && name == unix.SO_KEEPALIVE:
		o.keepalive = v != 0
	case level == unix.SOL_SOCKET && name == unix.SO_PASSCRED:
		k.passCred = v != 0 // creds.go
		return 0
	case level == unix.IPPROTO_TCP && (name == unix.TCP_KEEPIDLE || name == unix.TCP_KEEPINTVL || name == unix.TCP_KEEPCNT):
		// tcp(7): 1..32767 (MAX_TCP_KEEPIDLE, _KEEPINTVL), 1..127
		// (MAX_TCP_KEEPCNT), else EINVAL.
		if v < 1 || v > 32767 || name == unix.TCP_KEEPCNT && v > 127 {
			return unix.EINVAL
		}
		switch name {
		case unix.TCP_KEEPIDLE:
			o.idle = int64(v) * 1e9
		case unix.TCP_KEEPINTVL:
			o.intvl = int64(v) * 1e9
		default:
			o.cnt = int(v)
		}
	default:
		return 0
	}
	k.applyOpts()
	return 0
}

// Opt reads back an option SetOpt keeps (ok false for others); a
// keep-alive time never set reads as the stack's default, as on Linux
// (tcp_keepalive_time and friends: 7200 s, 75 s, 9).
func (k *Socket) Opt(level, name uint64) (v int32, ok bool) {
	o := &k.opts
	switch {
	case level == unix.IPPROTO_TCP && name == unix.TCP_NODELAY:
		return boolInt(o.nodelay), true
	case level == unix.SOL_SOCKET && name == unix.SO_KEEPALIVE:
		return boolInt(o.keepalive), true
	case level == unix.SOL_SOCKET && name == unix.SO_PASSCRED:
		return boolInt(k.passCred), true
	case level == unix.IPPROTO_TCP && name == unix.TCP_KEEPIDLE:
		return seconds(o.idle, inet.TCPKeepIdleDefault), true
	case level == unix.IPPROTO_TCP && name == unix.TCP_KEEPINTVL:
		return seconds(o.intvl, inet.TCPKeepIntvlDefault), true
	case level == unix.IPPROTO_TCP && name == unix.TCP_KEEPCNT:
		if o.cnt != 0 {
			return int32(o.cnt), true
		}
		return inet.TCPKeepCntDefault, true
	}
	return 0, false
}

// seconds is a time set in ns, or def when it was not.
func seconds(set, def int64) int32 {
	if set != 0 {
		return int32(set / 1e9)
	}
	return int32(def / 1e9)
}

func boolInt(x bool) int32 {
	if x {
		return 1
	}
	return 0
}

// Error takes the socket's pending error (SO_ERROR).
func (k *Socket) Error() unix.Errno {
	if k.dgram >= 0 {
		return k.dgramError() // SO_ERROR takes it, as on Linux
	}
	if k.net < 0 {
		return 0
	}
	return inet.TCPError(k.net)
}

// readNet copies what the connection received to the app: EAGAIN when
// nothing waits, 0 at the peer's FIN, the error after a reset.
func (k *Socket) readNet(buf uintptr, n uint64) uint64 {
	a, b := inet.TCPRecv(k.net)
	if len(a) == 0 {
		if e := inet.TCPError(k.net); e != 0 {
			return vfs.Err(e)
		}
		if st := inet.TCPStatus(k.net); st.RcvFin || st.State == inet.TCPClosed {
			return 0
		}
		return vfs.Err(unix.EAGAIN)
	}
	done, ok := copyPieces(a, b, buf, n, true)
	if !ok {
		return vfs.Err(unix.EFAULT)
	}
	inet.TCPConsume(k.net, uint32(done))
	return done
}

// writeNet copies what fits of the app's buffer into the connection's
// send ring: EAGAIN when it is full, EPIPE once sending is shut, the
// error after a reset.
func (k *Socket) writeNet(buf uintptr, n uint64) uint64 {
	if e := inet.TCPError(k.net); e != 0 {
		return vfs.Err(e)
	}
	a, b := inet.TCPSendRoom(k.net)
	if len(a) == 0 {
		st := inet.TCPStatus(k.net)
		if st.SendClosed || st.State != inet.TCPEstablished && st.State != inet.TCPCloseWait {
			return vfs.Err(unix.EPIPE)
		}
		return vfs.Err(unix.EAGAIN)
	}
	done, ok := copyPieces(a, b, buf, n, false)
	if !ok {
		return vfs.Err(unix.EFAULT)
	}
	inet.TCPCommit(k.net, uint32(done))
	return done
}

// IsConnected reports whether k is connected (getpeername(2)), noticing
// a handshake that finished.
func (k *Socket) IsConnected() bool {
	k.established()
	return k.State == Connected
}

// copyPieces copies between a ring's two pieces and n bytes of app
// memory at buf: out of the ring (toApp) or into it. It stops at the
// first fault: ok is false only if nothing was copied.
func copyPieces(a, b []byte, buf uintptr, n uint64, toApp bool) (done uint64, ok bool) {
	for _, p := range [2][]byte{a, b} {
		if uint64(len(p)) > n-done {
			p = p[:n-done]
		}
		if len(p) == 0 {
			break
		}
		if toApp && !usermem.CopyOut(buf+uintptr(done), p) || !toApp && !usermem.CopyIn(p, buf+uintptr(done)) {
			return done, done > 0
		}
		done += uint64(len(p))
	}
	return done, true
}
