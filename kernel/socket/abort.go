package socket

import (
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Abortive closes on the loopback and AF_UNIX: the peer's read answers
// ECONNRESET instead of EOF, once, after what was already sent. Linux
// does this when a socket is closed with SO_LINGER set to 0 s (TCP sends
// a RST: tcp_close, RFC 9293 §3.10.4 ABORT), and when one is closed with
// data still unread in its receive queue (TCP: RFC 2525 §2.17 and
// tcp_close; AF_UNIX: unix_release_sock). Over the network interface the
// RST is kernel/inet's (TCPAbort, TCPClose).

// abortive reports whether closing k resets its connection.
func (k *Socket) abortive() bool {
	if k.opts.lingerOn && k.opts.lingerSecs == 0 {
		return true
	}
	return k.rx >= 0 && !k.records() && vfs.PipeAt(k.rx).Len() > 0
}

// resetPeer marks k's connection reset for the peer, if closing k is
// abortive; called before k's pipe ends close.
func (k *Socket) resetPeer() {
	if k.State != Connected || k.net >= 0 || k.tx < 0 || !k.abortive() {
		return
	}
	vfs.PipeAt(k.tx).Reset = true
}

// readEnd is a read of k's connection that found no data and no writer:
// EOF, or ECONNRESET once after an abortive close.
func (k *Socket) readEnd() uint64 {
	p := vfs.PipeAt(k.rx)
	if _, writers := p.Ends(); p.Reset && writers == 0 && p.Len() == 0 {
		p.Reset = false
		return vfs.Err(unix.ECONNRESET)
	}
	return 0
}

// SetLinger sets SO_LINGER (struct linger's l_onoff and l_linger).
func (k *Socket) SetLinger(on bool, secs int32) {
	k.opts.lingerOn, k.opts.lingerSecs = on, secs
}

// Linger reads SO_LINGER back.
func (k *Socket) Linger() (on bool, secs int32) {
	return k.opts.lingerOn, k.opts.lingerSecs
}
