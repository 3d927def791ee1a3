package inet

import "golang.org/x/sys/unix"

// A segment arrives (RFC 9293 §3.10.7): checked, matched to its
// connection, and run through the state machine in the RFC's order.

// segment is an arrived segment's header fields and data.
type segment struct {
	sport, dport uint16
	seq, ack     uint32
	flags        uint8
	wnd          uint32
	mss          uint32 // the MSS option, 0 if absent
	ws           bool   // a SYN's window scale option: present,
	shift        uint8  // and its shift count
	data         []byte
}

// len is the sequence space the segment takes: its data, and one each
// for SYN and FIN (RFC 9293 §3.4).
func (s *segment) len() uint32 {
	n := uint32(len(s.data))
	if s.flags&tcpSYN != 0 {
		n++
	}
	if s.flags&tcpFIN != 0 {
		n++
	}
	return n
}

// tcpInput checks a segment from src to us and runs it. srcMAC is the
// neighbour it came through, where the connection's answers go.
func tcpInput(p []byte, src, dst [4]byte, srcMAC [6]byte, now int64) {
	var s segment
	if !parseTCP(&s, p, src, dst) {
		return
	}
	Stats.TCPSegsIn++
	c := lookup(s.dport, src, s.sport)
	if c == nil {
		// CLOSED (RFC 9293 §3.10.7.1): a reset answers anything but a
		// reset; a client connecting to a closed port so learns
		// ECONNREFUSED.
		Stats.TCPNoConn++
		tcpReset(srcMAC, src, s.sport, s.dport, s.seq, s.ack, s.len(), s.flags)
		return
	}
	// A new SYN for the identity of a connection in TIME-WAIT, above
	// what that one received, opens a new connection at once (RFC 1122
	// §4.2.2.13; RFC 6191 §2), as Linux lets it: clients reuse ports.
	if c.state == TCPTimeWait && s.flags&(tcpSYN|tcpACK|tcpRST) == tcpSYN && seqGT(s.seq, c.rcvNxt) {
		c.close()
		if c = lookup(s.dport, src, s.sport); c == nil {
			Stats.TCPNoConn++
			tcpReset(srcMAC, src, s.sport, s.dport, s.seq, s.ack, s.len(), s.flags)
			return
		}
	}
	if c.state == TCPListen {
		listenInput(c, &s, src, srcMAC, now)
		return
	}
	c.rmac, c.macOK = srcMAC, true
	c.lastHeard, c.probes = now, 0
	// A window field is scaled but a SYN's (RFC 7323 §2.2: "The window
	// field in a segment where the SYN bit is set ... MUST NOT be
	// scaled").
	if s.flags&tcpSYN == 0 {
		s.wnd <<= c.sndShift
	}
	if c.state == TCPSynSent {
		synSentInput(c, &s, now)
	} else {
		connInput(c, &s, now)
	}
	if c.used {
		tcpOutput(c, now, false)
		if c.ackNow {
			tcpAckNow(c)
		}
		c.wake()
		keepaliveArm(c, now)
	}
}

// parseTCP reads a segment's header and options: the data offset inside
// the segment, the checksum over the pseudo-header (RFC 9293 §3.1), the
// options within the header (a malformed list drops the segment).
func parseTCP(s *segment, p []byte, src, dst [4]byte) bool {
	if len(p) < tcpHeaderLen {
		Stats.BadTCP++
		return false
	}
	off := int(p[12]>>4) * 4
	if off < tcpHeaderLen || off > len(p) {
		Stats.BadTCP++
		return false
	}
	if Checksum(p, pseudoSum(src, dst, ipProtoTCP, len(p))) != 0 {
		Stats.BadTCPSum++
		return false
	}
	s.sport, s.dport = be16(p[0:]), be16(p[2:])
	s.seq, s.ack = be32(p[4:]), be32(p[8:])
	s.flags = p[13]
	s.wnd = uint32(be16(p[14:]))
	s.data = p[off:]
	if s.sport == 0 || s.dport == 0 {
		Stats.BadTCP++
		return false
	}
	opts := p[tcpHeaderLen:off]
	for len(opts) > 0 {
		switch opts[0] {
		case tcpOptEnd:
			return true
		case tcpOptNOP:
			opts = opts[1:]
			continue
		}
		if len(opts) < 2 || opts[1] < 2 || int(opts[1]) > len(opts) {
			Stats.BadTCP++
			return false
		}
		if opts[0] == tcpOptMSS && opts[1] == tcpOptMSSLen && s.flags&tcpSYN != 0 {
			s.mss = uint32(be16(opts[2:]))
		}
		// The window scale option counts only in a SYN (RFC 7323 §2.2).
		if opts[0] == tcpOptWS && opts[1] == tcpOptWSLen && s.flags&tcpSYN != 0 {
			s.ws, s.shift = true, min(opts[2], tcpMaxShift)
		}
		opts = opts[opts[1]:]
	}
	return true
}

// listenInput is a segment to a listener (RFC 9293 §3.10.7.2): a SYN
// makes a connection in SYN-RECEIVED and answers SYN-ACK; an ACK is
// reset; anything else is dropped.
func listenInput(l *tcpConn, s *segment, src [4]byte, mac [6]byte, now int64) {
	switch {
	case s.flags&tcpRST != 0:
		return
	case s.flags&tcpACK != 0:
		tcpReset(mac, src, s.sport, s.dport, s.seq, s.ack, s.len(), s.flags)
		return
	case s.flags&tcpSYN == 0:
		return
	}
	// A full backlog or table drops the SYN: the client retries, and a
	// flood costs no more than the backlog (Linux drops the same way).
	if l.children >= l.backlog {
		Stats.TCPListenDrops++
		return
	}
	c := newConn(true)
	if c == nil {
		Stats.TCPListenDrops++
		return
	}
	l.children++
	c.state = TCPSynRcvd
	c.parent = connIndex(l)
	c.lport, c.rport, c.rip = s.dport, s.sport, src
	c.rmac, c.macOK = mac, true
	c.nodelay, c.keepalive = l.nodelay, l.keepalive
	c.keepIdle, c.keepIntvl, c.keepCnt = l.keepIdle, l.keepIntvl, l.keepCnt
	c.irs, c.rcvNxt = s.seq, s.seq+1
	c.rcvAdv = c.rcvNxt
	c.iss = isn(c.lport, c.rip, c.rport, now)
	c.sndUna, c.sndNxt, c.sndMax, c.txSeq, c.recover = c.iss, c.iss+1, c.iss+1, c.iss+1, c.iss
	synOptions(c, s)
	c.sndWnd, c.sndWl1, c.sndWl2 = s.wnd, s.seq, c.iss
	c.lastHeard = now
	tcpSegment(c, c.iss, tcpSYN, 0)
	armAt(&c.rtxAt, now+c.rto)
}

// synOptions takes what the peer's SYN said: its MSS, capped at ours,
// and its window scale. Scaling is on when both SYNs carry the option
// (RFC 7323 §2.2); ours always does, or answers one. A SYN-ACK without
// it turns scaling off both ways.
func synOptions(c *tcpConn, s *segment) {
	c.wsOffered = s.ws
	c.sndShift, c.rcvShift = 0, 0
	if s.ws {
		c.sndShift, c.rcvShift = s.shift, tcpRcvShift
	}
	if s.mss != 0 {
		c.mss = min32(s.mss, tcpMSS)
		if c.mss < 64 {
			c.mss = 64 // a peer may not make us send one-byte segments
		}
	}
	c.cwnd = tcpInitCwnd * c.mss
	c.ssthresh = 0xffffffff
	c.maxWnd = s.wnd
}

// synSentInput is a segment to a connection in SYN-SENT (RFC 9293
// §3.10.7.3).
func synSentInput(c *tcpConn, s *segment, now int64) {
	ackOK := false
	if s.flags&tcpACK != 0 {
		if seqLE(s.ack, c.iss) || seqGT(s.ack, c.sndNxt) {
			tcpReset(c.rmac, c.rip, s.sport, s.dport, s.seq, s.ack, s.len(), s.flags)
			return
		}
		ackOK = true
	}
	if s.flags&tcpRST != 0 {
		if ackOK {
			c.fail(unix.ECONNREFUSED)
		}
		return
	}
	if s.flags&tcpSYN == 0 {
		return
	}
	c.irs, c.rcvNxt = s.seq, s.seq+1
	c.rcvAdv = c.rcvNxt
	synOptions(c, s)
	if ackOK {
		c.sndUna = s.ack
		c.state = TCPEstablished
		c.sndWnd, c.sndWl1, c.sndWl2 = s.wnd, s.seq, s.ack
		c.rtxAt, c.retries = 0, 0
		if c.rttAt != 0 {
			rttSample(c, now-c.rttAt)
		}
		c.rttAt = 0
		tcpAckNow(c)
		return
	}
	// Simultaneous open: answer SYN-ACK from SYN-RECEIVED.
	c.state = TCPSynRcvd
	tcpSegment(c, c.iss, tcpSYN, 0)
}

// acceptable reports whether a segment falls in the receive window (RFC
// 9293 §3.10.7.4, "first: check sequence number", its four cases).
func acceptable(c *tcpConn, s *segment) bool {
	wnd := c.window()
	n := s.len()
	switch {
	case n == 0 && wnd == 0:
		return s.seq == c.rcvNxt
	case n == 0:
		return seqGE(s.seq, c.rcvNxt) && seqLT(s.seq, c.rcvNxt+wnd)
	case wnd == 0:
		return false
	}
	end := s.seq + n - 1
	return (seqGE(s.seq, c.rcvNxt) && seqLT(s.seq, c.rcvNxt+wnd)) ||
		(seqGE(end, c.rcvNxt) && seqLT(end, c.rcvNxt+wnd))
}

// connInput is a segment to a synchronized connection or one in
// SYN-RECEIVED (RFC 9293 §3.10.7.4, in its order).
func connInput(c *tcpConn, s *segment, now int64) {
	// First: the sequence number. A segment outside the window is
	// answered with an ACK and dropped; but "special allowance should be
	// made to accept valid ACKs" (§3.10.7.4, of a closed window): its
	// data is dropped, and its ACK, if it acknowledges something new
	// (inside SND.UNA..SND.MAX, which RFC 5961 §5 also asks of any ACK),
	// is taken. The peer's view of our window can run ahead of ours when
	// our segments reach it out of order; without this two peers with
	// full receive rings each ignore the other's acknowledgments for
	// ever. A data-less FIN exactly at RCV.NXT takes no room and counts.
	ok := acceptable(c, s)
	if !ok && s.flags&tcpACK != 0 && s.flags&(tcpSYN|tcpRST) == 0 &&
		(seqGT(s.ack, c.sndUna) && seqLE(s.ack, c.sndMax) || c.window() == 0) {
		if len(s.data) > 0 || s.seq != c.rcvNxt {
			s.flags &^= tcpFIN
		}
		s.data = s.data[:0]
		ok = true
		Stats.TCPOutOfWindow++
		c.ackNow = true
	}
	if !ok {
		// A retransmitted FIN in TIME-WAIT is acknowledged and restarts
		// the wait (§3.10.7.4, "eighth").
		if c.state == TCPTimeWait && s.flags&tcpFIN != 0 {
			armAt(&c.waitAt, now+tcpTimeWait)
		}
		if s.flags&tcpRST == 0 {
			Stats.TCPOutOfWindow++
			tcpAckNow(c)
		}
		return
	}
	// Second: RST. Only one at exactly RCV.NXT resets; one elsewhere in
	// the window gets a challenge ACK (RFC 5961 §3.2).
	if s.flags&tcpRST != 0 {
		if s.seq != c.rcvNxt {
			tcpAckNow(c)
			return
		}
		Stats.TCPResetsIn++
		switch c.state {
		case TCPSynRcvd:
			c.drop() // a passive open goes back to LISTEN: the child goes
		case TCPClosing, TCPLastAck, TCPTimeWait:
			c.close()
		default:
			c.fail(unix.ECONNRESET)
		}
		return
	}
	// Fourth: SYN in a synchronized state gets a challenge ACK (RFC 5961
	// §4.2), as §3.10.7.4 now says.
	if s.flags&tcpSYN != 0 {
		if c.state == TCPSynRcvd && s.seq == c.irs {
			tcpSegment(c, c.iss, tcpSYN, 0) // our SYN-ACK was lost
			return
		}
		tcpAckNow(c)
		return
	}
	// Trim what was received before (a retransmission overlapping new
	// data) so that the data starts at RCV.NXT.
	if seqLT(s.seq, c.rcvNxt) {
		d := c.rcvNxt - s.seq
		if d > uint32(len(s.data)) {
			d = uint32(len(s.data))
		}
		s.data = s.data[d:]
		s.seq += d
	}
	// Fifth: ACK.
	if s.flags&tcpACK == 0 {
		return
	}
	if c.state == TCPSynRcvd {
		if seqLE(s.ack, c.sndUna) || seqGT(s.ack, c.sndMax) {
			tcpReset(c.rmac, c.rip, s.sport, s.dport, s.seq, s.ack, s.len(), s.flags)
			return
		}
		c.state = TCPEstablished
		c.sndWnd, c.sndWl1, c.sndWl2 = s.wnd, s.seq, s.ack
		c.rtxAt, c.retries = 0, 0
		if l := connAt(c.parent); l != nil {
			acceptOrder++
			c.queued, c.order = true, acceptOrder
			l.wake()
		}
	}
	if !ackInput(c, s, now) {
		return
	}
	// Sixth (URG) is not acted on: urgent data is read in line.
	// Seventh: data. In order it is taken and its ACK may wait (RFC 1122
	// §4.2.3.2: every second segment, or the delayed-ACK timer); past a
	// hole it is kept (tcp_reassembly.go) and answered at once with a
	// duplicate ACK, which starts the sender's fast retransmit (RFC 5681
	// §4.2); one that fills a hole is also acknowledged at once.
	if len(s.data) > 0 {
		switch c.state {
		case TCPEstablished, TCPFinWait1, TCPFinWait2:
			holes := c.nooo > 0
			inOrder, n := receive(c, s.seq, s.data)
			if n < uint32(len(s.data)) || !inOrder {
				s.flags &^= tcpFIN // the FIN lies past what was taken
			}
			if !inOrder {
				Stats.TCPOutOfOrder++
				tcpAckNow(c)
				return
			}
			c.unacked++
			if holes {
				tcpAckNow(c)
			} else if c.ackAt == 0 {
				armAt(&c.ackAt, now+tcpDelayedAck)
			}
		default:
			// After the peer's FIN no data can come (§3.10.7.4).
		}
	}
	// Eighth: FIN, once everything before it is in.
	if s.flags&tcpFIN != 0 && seqLE(s.seq+uint32(len(s.data)), c.rcvNxt) && !c.rcvFin {
		c.rcvNxt++
		c.rcvFin = true
		switch c.state {
		case TCPSynRcvd, TCPEstablished:
			c.state = TCPCloseWait
		case TCPFinWait1:
			// Our FIN not yet acknowledged (else ackInput would have
			// moved us to FIN-WAIT-2).
			c.state = TCPClosing
		case TCPFinWait2:
			c.timeWait(now)
		}
		tcpAckNow(c)
	}
}

// ackInput processes an acceptable segment's ACK (§3.10.7.4, "fifth"),
// the window update and congestion control; false drops the segment.
func ackInput(c *tcpConn, s *segment, now int64) bool {
	if seqGT(s.ack, c.sndMax) {
		tcpAckNow(c) // acknowledges what was never sent
		return false
	}
	dup := false
	if seqGT(s.ack, c.sndUna) {
		acked := s.ack - c.sndUna
		// The data part of what was acknowledged leaves the send ring
		// (the SYN and FIN take sequence space but no ring).
		if seqGT(s.ack, c.txSeq) {
			d := min32(s.ack-c.txSeq, c.tx.n)
			c.tx.head = (c.tx.head + d) % tcpTxSize
			c.tx.n -= d
			c.txSeq += d
		}
		c.sndUna = s.ack
		if seqLT(c.sndNxt, c.sndUna) {
			c.sndNxt = c.sndUna
		}
		if c.rttAt != 0 && seqGE(s.ack, c.rttSeq) {
			rttSample(c, now-c.rttAt)
			c.rttAt = 0
		}
		c.retries = 0
		congestionAck(c, acked)
		// All acknowledged stops the timer; else it restarts (RFC 6298
		// §5.2-3).
		if c.sndUna == c.sndMax {
			c.rtxAt = 0
		} else {
			armAt(&c.rtxAt, now+c.rto)
		}
	} else if s.ack == c.sndUna && len(s.data) == 0 && s.flags&tcpFIN == 0 &&
		s.wnd == c.sndWnd && c.sndMax != c.sndUna {
		dup = true // RFC 5681 §2's duplicate ACK
	}
	// The window, from the newest segment only (SND.WL1/WL2).
	if seqLT(c.sndWl1, s.seq) || (c.sndWl1 == s.seq && seqLE(c.sndWl2, s.ack)) {
		c.sndWnd, c.sndWl1, c.sndWl2 = s.wnd, s.seq, s.ack
		if s.wnd > c.maxWnd {
			c.maxWnd = s.wnd
		}
	}
	if dup {
		duplicateAck(c, now)
	}
	finAcked := c.finQueued && c.sndUna == c.txSeq+c.tx.n+1
	switch c.state {
	case TCPFinWait1:
		if finAcked {
			c.state = TCPFinWait2
			if c.owner < 0 {
				armAt(&c.waitAt, now+tcpFinTimeout)
			}
		}
	case TCPClosing:
		if finAcked {
			c.timeWait(now)
		}
	case TCPLastAck:
		if finAcked {
			c.close()
			return false
		}
	case TCPTimeWait:
		armAt(&c.waitAt, now+tcpTimeWait)
	}
	return true
}

// congestionAck grows the congestion window on new data acknowledged:
// slow start below ssthresh, one segment per window above (RFC 5681
// §3.1); in fast recovery a partial ACK retransmits the next hole and a
// full one ends recovery (RFC 6582 §3.2).
func congestionAck(c *tcpConn, acked uint32) {
	if c.inRecovery {
		if seqGE(c.sndUna, c.recover) {
			c.inRecovery = false
			c.cwnd = c.ssthresh
		} else {
			tcpSegment(c, c.sndUna, 0, min32(c.mss, c.txSeq+c.tx.n-c.sndUna))
			if acked > c.cwnd {
				acked = c.cwnd
			}
			c.cwnd = c.cwnd - acked + c.mss
		}
		c.dupAcks = 0
		return
	}
	c.dupAcks = 0
	if c.cwnd < c.ssthresh {
		c.cwnd += min32(acked, c.mss)
	} else {
		c.cwnd += max32(c.mss*c.mss/c.cwnd, 1)
	}
}

// duplicateAck counts duplicate ACKs; the third retransmits the first
// unacknowledged segment and enters fast recovery (RFC 5681 §3.2, RFC
// 6582 §3.2); more inflate the window.
func duplicateAck(c *tcpConn, now int64) {
	c.dupAcks++
	Stats.TCPDupAcks++
	switch {
	case c.inRecovery:
		c.cwnd += c.mss
	case c.dupAcks == 3 && seqGT(c.sndUna, c.recover-1):
		c.recover = c.sndMax
		c.ssthresh = max32((c.sndMax-c.sndUna)/2, 2*c.mss)
		c.cwnd = c.ssthresh + 3*c.mss
		c.inRecovery = true
		c.rttAt = 0
		Stats.TCPFastRetransmits++
		if n := min32(c.mss, c.txSeq+c.tx.n-c.sndUna); n > 0 && seqGE(c.sndUna, c.txSeq) {
			tcpSegment(c, c.sndUna, 0, n)
		}
	}
}

// rttSample updates the smoothed round-trip time and the timeout with
// one measurement (RFC 6298 §2.2-2.3, α = 1/8, β = 1/4, K = 4).
func rttSample(c *tcpConn, r int64) {
	if r <= 0 {
		r = 1
	}
	if c.srtt == 0 {
		c.srtt, c.rttvar = r, r/2
	} else {
		d := c.srtt - r
		if d < 0 {
			d = -d
		}
		c.rttvar += (d - c.rttvar) / 4
		c.srtt += (r - c.srtt) / 8
	}
	c.rto = c.srtt + 4*c.rttvar
	if c.rto < tcpMinRTO {
		c.rto = tcpMinRTO
	}
	if c.rto > tcpMaxRTO {
		c.rto = tcpMaxRTO
	}
}

// copyIn appends b to ring r over buf (there is room: the caller cut b).
func copyIn(buf []byte, r *ring, b []byte) {
	p := (r.head + r.n) % uint32(len(buf))
	k := copy(buf[p:], b)
	copy(buf, b[k:])
	r.n += uint32(len(b))
}
