package inet

import "golang.org/x/sys/unix"

// The calls the socket layer makes on a connection, by index. Each is
// one of the "user calls" of RFC 9293 §3.10 (OPEN, SEND, RECEIVE,
// CLOSE, ABORT, STATUS) in the shape Linux's sockets give them: nothing
// here blocks; a call that cannot proceed says so (EAGAIN, EINPROGRESS)
// and the owner waits for Wake.

func now() int64 {
	if Now == nil {
		return 0
	}
	return Now()
}

// ListenTCP opens a listener on port for owner (passive OPEN).
func ListenTCP(port uint16, backlog int, owner int32) (int32, unix.Errno) {
	if backlog <= 0 || backlog > TCPBacklogMax {
		backlog = TCPBacklogMax
	}
	c := newConn(false)
	if c == nil {
		return -1, unix.ENOBUFS
	}
	c.state, c.lport, c.owner, c.backlog = TCPListen, port, owner, backlog
	return connIndex(c), 0
}

// ConnectTCP opens a connection from lport to ip:port for owner (active
// OPEN): it sends the SYN and answers at once; Wake tells the owner
// when the connection is established or failed (TCPError).
func ConnectTCP(ip [4]byte, port, lport uint16, owner int32) (int32, unix.Errno) {
	if If.IP == ([4]byte{}) {
		return -1, unix.ENETUNREACH
	}
	if !onLink(ip) && If.Gateway == ([4]byte{}) {
		return -1, unix.ENETUNREACH // no route: isolated networking has no router
	}
	if c := lookup(lport, ip, port); c != nil && c.state != TCPListen {
		return -1, unix.EADDRINUSE
	}
	c := newConn(true)
	if c == nil {
		return -1, unix.ENOBUFS
	}
	t := now()
	c.state, c.lport, c.rport, c.rip, c.owner = TCPSynSent, lport, port, ip, owner
	c.iss = isn(lport, ip, port, t)
	c.sndUna, c.sndNxt, c.sndMax, c.txSeq = c.iss, c.iss+1, c.iss+1, c.iss+1
	c.cwnd, c.ssthresh, c.recover = tcpInitCwnd*c.mss, 0xffffffff, c.iss
	c.lastHeard = t
	c.rttSeq, c.rttAt = c.iss+1, t
	tcpSegment(c, c.iss, tcpSYN, 0)
	armAt(&c.rtxAt, t+c.rto)
	return connIndex(c), 0
}

// Resolved is ARP's news that ip's MAC is known: connections waiting
// for it send now rather than at their next retransmission.
func resolved(ip [4]byte) {
	if mac, ok := ARPLookup(ip); ok {
		udpResolved(ip, mac)
	}
	for i := range conns {
		c := &conns[i]
		if !c.used || c.macOK || c.rip != ip && If.Gateway != ip {
			continue
		}
		if resolve(c) && c.state == TCPSynSent {
			tcpSegment(c, c.iss, tcpSYN, 0)
		}
	}
}

// AcceptTCP takes the oldest established connection off listener l's
// queue and gives it to owner, or returns -1 when none waits.
func AcceptTCP(l int32, owner int32) int32 {
	var best *tcpConn
	for i := range conns {
		c := &conns[i]
		if c.used && c.queued && c.parent == l && (best == nil || seqLT(c.order, best.order)) {
			best = c
		}
	}
	if best == nil {
		return -1
	}
	if p := connAt(l); p != nil {
		p.children--
	}
	best.queued, best.parent, best.owner = false, -1, owner
	keepaliveArm(best, now())
	return connIndex(best)
}

// TCPRecv returns what c has received and the app has not read, as up to
// two pieces of its ring; TCPConsume then takes n bytes of it.
func TCPRecv(i int32) (a, b []byte) {
	c := connAt(i)
	if c == nil || c.rx.n == 0 {
		return nil, nil
	}
	buf := c.rxBuf()
	end := c.rx.head + c.rx.n
	if end <= tcpRxSize {
		return buf[c.rx.head:end], nil
	}
	return buf[c.rx.head:], buf[:end-tcpRxSize]
}

// TCPConsume takes n read bytes out of c's receive ring. The window
// opened is advertised at once when it grew by a segment or half the
// ring (receiver-side silly window avoidance, RFC 1122 §4.2.3.3).
func TCPConsume(i int32, n uint32) {
	c := connAt(i)
	if c == nil || n == 0 {
		return
	}
	n = min32(n, c.rx.n)
	c.rx.head = (c.rx.head + n) % tcpRxSize
	c.rx.n -= n
	switch c.state {
	case TCPEstablished, TCPFinWait1, TCPFinWait2:
		grown := c.rcvNxt + min32(uint32(tcpRxSize)-c.rx.n, c.maxRcvWnd()) - c.rcvAdv
		if int32(grown) >= int32(min32(tcpRxSize/2, tcpMSS)) {
			tcpAckNow(c)
		}
	}
}

// TCPSendRoom returns the free part of c's send ring, as up to two
// pieces; the owner copies into them and calls TCPCommit. Nothing is
// free in a state that cannot send.
func TCPSendRoom(i int32) (a, b []byte) {
	c := connAt(i)
	if c == nil || c.finQueued || c.state != TCPEstablished && c.state != TCPCloseWait {
		return nil, nil
	}
	buf := c.txBuf()
	free := uint32(tcpTxSize) - c.tx.n
	if free == 0 {
		return nil, nil
	}
	start := (c.tx.head + c.tx.n) % tcpTxSize
	if start+free <= tcpTxSize {
		return buf[start : start+free], nil
	}
	return buf[start:], buf[:start+free-tcpTxSize]
}

// TCPCommit sends n bytes the owner put in the room TCPSendRoom gave.
func TCPCommit(i int32, n uint32) {
	c := connAt(i)
	if c == nil || n == 0 {
		return
	}
	c.tx.n += min32(n, uint32(tcpTxSize)-c.tx.n)
	tcpOutput(c, now(), false)
}

// TCPShutdown ends c's sending (a FIN after the data: CLOSE in
// ESTABLISHED or CLOSE-WAIT, RFC 9293 §3.10.4) and/or its receiving.
func TCPShutdown(i int32, rd, wr bool) {
	c := connAt(i)
	if c == nil {
		return
	}
	if rd {
		c.shutRd = true
		c.rx = ring{}
	}
	if wr && !c.finQueued {
		switch c.state {
		case TCPEstablished:
			c.finQueued, c.state = true, TCPFinWait1
		case TCPCloseWait:
			c.finQueued, c.state = true, TCPLastAck
		case TCPSynSent:
			c.fail(0)
			return
		}
		tcpOutput(c, now(), false)
	}
	c.wake()
}

// TCPClose is the owner letting go of c (close(2) of its last
// description). A listener resets its unaccepted connections; a
// connection with unread data is reset (RFC 2525 §2.17, as Linux does);
// else it sends its FIN and finishes closing on its own, an orphan.
func TCPClose(i int32) {
	c := connAt(i)
	if c == nil {
		return
	}
	c.owner = -1
	switch c.state {
	case TCPListen:
		for j := range conns {
			k := &conns[j]
			if k.used && k.parent == i {
				tcpSegment(k, k.sndNxt, tcpRST, 0)
				k.drop()
			}
		}
		c.free()
	case TCPClosed, TCPSynSent:
		c.free()
	case TCPEstablished, TCPCloseWait, TCPFinWait1, TCPFinWait2, TCPClosing, TCPLastAck:
		if c.rx.n > 0 {
			Stats.TCPResetsOut++
			tcpSegment(c, c.sndNxt, tcpRST, 0)
			c.free()
			return
		}
		TCPShutdown(i, false, true)
		if c.state == TCPFinWait2 {
			armAt(&c.waitAt, now()+tcpFinTimeout)
		}
		c.keepAt = 0
	}
}

// TCPAbort is the owner letting go of c with an abortive close
// (SO_LINGER with a zero timeout): a synchronized connection sends a
// RST and is gone at once, its unsent data dropped (RFC 9293 §3.10.4,
// ABORT; Linux's tcp_close with sk_lingertime 0).
func TCPAbort(i int32) {
	c := connAt(i)
	if c == nil {
		return
	}
	switch c.state {
	case TCPEstablished, TCPCloseWait, TCPFinWait1, TCPFinWait2, TCPClosing, TCPLastAck, TCPSynRcvd:
		c.owner = -1
		Stats.TCPResetsOut++
		tcpSegment(c, c.sndNxt, tcpRST, 0)
		c.free()
	default:
		TCPClose(i)
	}
}

// TCPPoll is c's readiness as Linux's tcp_poll reports it: readable with
// data, the peer's FIN or an error; writable with room in the send ring;
// HUP once both ways are shut; a listener readable with a connection to
// accept.
func TCPPoll(i int32) uint32 {
	c := connAt(i)
	if c == nil {
		return unix.EPOLLHUP
	}
	return c.poll()
}

func (c *tcpConn) poll() uint32 {
	var r uint32
	if c.err != 0 {
		r |= unix.EPOLLERR
	}
	switch c.state {
	case TCPListen:
		for i := range conns {
			if k := &conns[i]; k.used && k.queued && k.parent == connIndex(c) {
				return r | unix.EPOLLIN
			}
		}
		return r
	case TCPSynSent, TCPSynRcvd:
		return r
	case TCPClosed:
		return r | unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLHUP | unix.EPOLLOUT
	}
	if c.rx.n > 0 || c.rcvFin || c.shutRd {
		r |= unix.EPOLLIN
	}
	if c.rcvFin || c.shutRd {
		r |= unix.EPOLLRDHUP
	}
	if c.finQueued {
		r |= unix.EPOLLOUT // sending is shut: a write answers at once (EPIPE)
		if c.rcvFin || c.shutRd {
			r |= unix.EPOLLHUP
		}
	} else if c.tx.n < tcpTxSize {
		r |= unix.EPOLLOUT
	}
	return r
}

// TCPError takes c's pending error (SO_ERROR reads it once).
func TCPError(i int32) unix.Errno {
	c := connAt(i)
	if c == nil {
		return 0
	}
	e := c.err
	c.err = 0
	return e
}

// TCPInfo is what the socket layer asks of a connection.
type TCPInfo struct {
	State              TCPState
	LocalPort, Port    uint16
	Addr               [4]byte // the peer's
	Err                unix.Errno
	RcvFin, SendClosed bool
}

// TCPStatus reports c's state (STATUS, RFC 9293 §3.10.6).
func TCPStatus(i int32) TCPInfo {
	c := connAt(i)
	if c == nil {
		return TCPInfo{}
	}
	return TCPInfo{State: c.state, LocalPort: c.lport, Port: c.rport, Addr: c.rip, Err: c.err,
		RcvFin: c.rcvFin, SendClosed: c.finQueued}
}

// TCPOptions sets c's TCP_NODELAY and keep-alive (SO_KEEPALIVE, and
// TCP_KEEPIDLE / TCP_KEEPINTVL in ns, TCP_KEEPCNT; a zero leaves one as
// it is).
func TCPOptions(i int32, nodelay, keepalive bool, idle, intvl int64, cnt int) {
	c := connAt(i)
	if c == nil {
		return
	}
	c.nodelay, c.keepalive = nodelay, keepalive
	if idle > 0 {
		c.keepIdle = idle
	}
	if intvl > 0 {
		c.keepIntvl = intvl
	}
	if cnt > 0 {
		c.keepCnt = cnt
	}
	keepaliveArm(c, now())
	tcpOutput(c, now(), false)
}

// TCPConnStats is one connection's state as GOMETAL_STATS=1 prints it at
// exit: what is still open, and where a stalled one stands.
type TCPConnStats struct {
	State                     TCPState
	LocalPort, Port           uint16
	Owned                     bool   // a socket holds it (else an orphan, or queued for accept)
	Unacked, Unsent, Received uint32 // bytes: sent and not acknowledged, queued, not read
	SndWnd, Cwnd, Retries     uint32
	RTO                       int64
}

// ConnStats describes connection i, false when the slot is free.
func ConnStats(i int) (TCPConnStats, bool) {
	if i < 0 || i >= MaxConns || !conns[i].used {
		return TCPConnStats{}, false
	}
	c := &conns[i]
	var unsent uint32
	if end := c.txSeq + c.tx.n; seqLT(c.sndNxt, end) {
		unsent = end - c.sndNxt
	}
	return TCPConnStats{State: c.state, LocalPort: c.lport, Port: c.rport, Owned: c.owner >= 0,
		Unacked: c.sndMax - c.sndUna, Unsent: unsent, Received: c.rx.n,
		SndWnd: c.sndWnd, Cwnd: c.cwnd, Retries: uint32(c.retries), RTO: c.rto}, true
}
