package inet

import "golang.org/x/sys/unix"

// TCP's timers and the ends of a connection. Each connection keeps its
// timers as times (retransmission, delayed ACK, TIME-WAIT, keep-alive);
// the kernel calls Tick when the earliest is due (ArmTimer).

// Tick runs every timer due at now and asks for the next.
func Tick(now int64) {
	tcpTimerAt = 0
	var next int64
	for i := range conns {
		c := &conns[i]
		if !c.used {
			continue
		}
		if c.ackAt != 0 && c.ackAt <= now {
			c.ackAt = 0
			tcpAckNow(c)
		}
		if c.rtxAt != 0 && c.rtxAt <= now {
			c.rtxAt = 0
			retransmit(c, now)
		}
		if c.used && c.keepAt != 0 && c.keepAt <= now {
			c.keepAt = 0
			keepaliveProbe(c, now)
		}
		if c.used && c.waitAt != 0 && c.waitAt <= now {
			c.waitAt = 0
			c.close() // TIME-WAIT over, or an orphan's FIN-WAIT-2
		}
		if !c.used {
			continue
		}
		for _, t := range [4]int64{c.ackAt, c.rtxAt, c.keepAt, c.waitAt} {
			if t != 0 && (next == 0 || t < next) {
				next = t
			}
		}
	}
	if next != 0 {
		tcpTimerAt = next
		if ArmTimer != nil {
			ArmTimer(next)
		}
	}
}

// tcpARPTries is how many retransmission timeouts a connection waits
// for its neighbour's ARP reply.
const tcpARPTries = 3

// retransmit is the retransmission timer running out (RFC 6298 §5.4-5.7):
// the first unacknowledged segment goes again, the timeout doubles, the
// congestion window falls to one segment (RFC 5681 §3.1); too many
// retries end the connection with ETIMEDOUT. A closed window with
// nothing in flight is probed instead, without counting retries (RFC
// 9293 §3.8.6.1: a window probe does not time the connection out).
func retransmit(c *tcpConn, now int64) {
	switch c.state {
	case TCPSynSent, TCPSynRcvd:
		limit := tcpSynRetries
		if c.state == TCPSynRcvd {
			limit = tcpSynAckRetries
		}
		c.retries++
		// A neighbour that never answered ARP: Linux gives up after its
		// ARP probes (net.ipv4.neigh.*.mcast_solicit = 3, a second
		// apart) and connect fails with EHOSTUNREACH.
		if c.state == TCPSynSent && !c.macOK && c.retries >= tcpARPTries {
			c.fail(unix.EHOSTUNREACH)
			return
		}
		if c.retries > limit {
			if c.state == TCPSynRcvd {
				c.drop()
			} else {
				c.fail(unix.ETIMEDOUT)
			}
			return
		}
		Stats.TCPRetransmits++
		c.rto = min64(c.rto*2, tcpMaxRTO)
		c.rttAt = 0
		tcpSegment(c, c.iss, tcpSYN, 0)
		armAt(&c.rtxAt, now+c.rto)
		return
	case TCPEstablished, TCPCloseWait, TCPFinWait1, TCPClosing, TCPLastAck:
	default:
		return
	}
	probe := c.sndWnd == 0 && c.sndNxt == c.sndUna
	if !probe {
		c.retries++
		if c.retries > tcpDataRetries {
			tcpSegment(c, c.sndNxt, tcpRST, 0)
			c.fail(unix.ETIMEDOUT)
			return
		}
		Stats.TCPRetransmits++
		if c.sndMax != c.sndUna {
			c.ssthresh = max32((c.sndMax-c.sndUna)/2, 2*c.mss)
			c.cwnd = c.mss
			c.inRecovery = false
			c.dupAcks = 0
		}
		c.sndNxt = c.sndUna // go back: send again from the first hole
	}
	c.rttAt = 0
	c.rto = min64(c.rto*2, tcpMaxRTO)
	tcpOutput(c, now, true)
	armAt(&c.rtxAt, now+c.rto)
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

// keepaliveArm (re)starts the keep-alive timer of an established
// connection whose owner asked for it (SO_KEEPALIVE): idle time after the
// last segment heard, then an interval between unanswered probes.
func keepaliveArm(c *tcpConn, now int64) {
	if !c.keepalive || c.state != TCPEstablished && c.state != TCPCloseWait {
		c.keepAt = 0
		return
	}
	d := c.keepIdle
	if c.probes > 0 {
		d = c.keepIntvl
	}
	armAt(&c.keepAt, c.lastHeard+d)
}

// keepaliveProbe sends a keep-alive (RFC 1122 §4.2.3.6: a segment with
// SEG.SEQ = SND.NXT-1, which the peer must acknowledge); after keepCnt
// unanswered probes the connection ends with ETIMEDOUT.
func keepaliveProbe(c *tcpConn, now int64) {
	if !c.keepalive || c.state != TCPEstablished && c.state != TCPCloseWait {
		return
	}
	if now-c.lastHeard < c.keepIdle && c.probes == 0 {
		keepaliveArm(c, now) // heard from since it was armed
		return
	}
	if c.probes >= c.keepCnt {
		tcpSegment(c, c.sndNxt, tcpRST, 0)
		c.fail(unix.ETIMEDOUT)
		return
	}
	c.probes++
	Stats.TCPKeepalives++
	tcpSegment(c, c.sndUna-1, 0, 0)
	armAt(&c.keepAt, now+c.keepIntvl)
}

// timeWait enters TIME-WAIT: 2·MSL before the connection's identity may
// be used again (RFC 9293 §3.6).
func (c *tcpConn) timeWait(now int64) {
	c.state = TCPTimeWait
	c.rtxAt, c.ackAt, c.keepAt = 0, 0, 0
	armAt(&c.waitAt, now+tcpTimeWait)
}

// close moves c to CLOSED; its slot is freed unless a socket still
// holds it (then the socket's close frees it).
func (c *tcpConn) close() {
	c.state = TCPClosed
	c.rtxAt, c.ackAt, c.keepAt, c.waitAt = 0, 0, 0, 0
	if c.parent >= 0 {
		c.drop()
		return
	}
	c.wake()
	if c.owner < 0 {
		c.free()
	}
}

// fail aborts c with an error its owner reads from SO_ERROR, a read or
// a write.
func (c *tcpConn) fail(e unix.Errno) {
	c.err = e
	c.close()
}

// drop frees a passive open that never reached accept (reset, timed
// out, or its listener closed).
func (c *tcpConn) drop() {
	if l := connAt(c.parent); l != nil {
		l.children--
	}
	c.parent = -1
	c.queued = false
	c.free()
}
