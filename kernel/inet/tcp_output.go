package inet

import "encoding/binary"

// What TCP sends: segments of a connection (data from its send ring,
// the SYN with its MSS option, ACKs, FIN) and resets to segments that
// have no connection.

// tcpSegment sends one segment of c: seq, flags, n bytes of data from
// the send ring at seq (seq ≥ txSeq). A SYN carries the MSS option.
// Every segment but the active open's SYN acknowledges rcvNxt and
// advertises the window (RFC 9293 §3.10.7.4: "... <ACK=RCV.NXT>").
func tcpSegment(c *tcpConn, seq uint32, flags uint8, n uint32) bool {
	if !c.macOK && !resolve(c) {
		return false
	}
	hl := uint32(tcpHeaderLen)
	// A SYN names our MSS; the active open's SYN offers window scaling,
	// a SYN-ACK answers the peer's offer (RFC 7323 §2.2: "only if ...
	// received a Window Scale option in the <SYN>").
	ws := flags&tcpSYN != 0 && (c.state == TCPSynSent || c.wsOffered)
	if flags&tcpSYN != 0 {
		hl += tcpOptMSSLen
	}
	if ws {
		hl += 1 + tcpOptWSLen
	}
	if c.state != TCPSynSent {
		flags |= tcpACK
	}
	etherHeader(c.rmac, etherTypeIPv4)
	ipHeader(If.IP, c.rip, ipProtoTCP, int(hl+n))
	s := txBuf[etherHeaderLen+ipHeaderLen : etherHeaderLen+ipHeaderLen+hl+n]
	binary.BigEndian.PutUint16(s[0:], c.lport)
	binary.BigEndian.PutUint16(s[2:], c.rport)
	binary.BigEndian.PutUint32(s[4:], seq)
	var ack uint32
	if flags&tcpACK != 0 {
		ack = c.rcvNxt
	}
	binary.BigEndian.PutUint32(s[8:], ack)
	s[12], s[13] = byte(hl/4)<<4, flags
	// The field is the window shifted right, rounded down (RFC 7323
	// §2.3); a SYN's is never scaled. wnd is what the field offers.
	wnd := c.window()
	field := min32(wnd>>c.rcvShift, tcpMaxWnd)
	if flags&tcpSYN != 0 {
		field = min32(wnd, tcpMaxWnd)
	} else {
		wnd = field << c.rcvShift
	}
	binary.BigEndian.PutUint16(s[14:], uint16(field))
	binary.BigEndian.PutUint32(s[16:], 0) // checksum, urgent pointer
	if flags&tcpSYN != 0 {
		s[20], s[21] = tcpOptMSS, tcpOptMSSLen
		binary.BigEndian.PutUint16(s[22:], tcpMSS)
	}
	if ws {
		s[24], s[25], s[26], s[27] = tcpOptNOP, tcpOptWS, tcpOptWSLen, tcpRcvShift
	}
	if n > 0 {
		copyOut(s[hl:], c.txBuf(), c.tx, seq-c.txSeq)
	}
	binary.BigEndian.PutUint16(s[16:], Checksum(s, pseudoSum(If.IP, c.rip, ipProtoTCP, len(s))))
	if flags&tcpACK != 0 {
		// Whatever carries an ACK answers what was waiting for one.
		if e := c.rcvNxt + wnd; seqGT(e, c.rcvAdv) {
			c.rcvAdv = e
		}
		c.ackAt, c.unacked, c.ackNow = 0, 0, false
	}
	Stats.TCPSegsOut++
	return sendFrame(ipHeaderLen + len(s))
}

// window is the receive window to advertise: the receive ring's free
// space, never less than what was advertised before (a window is not
// shrunk, RFC 9293 §3.8.6.2.2), at most what the field holds at the
// connection's scale.
func (c *tcpConn) window() uint32 {
	w := uint32(tcpRxSize) - c.rx.n
	if adv := c.rcvAdv - c.rcvNxt; seqGT(c.rcvAdv, c.rcvNxt) && adv > w {
		w = adv
	}
	return min32(w, c.maxRcvWnd())
}

// maxRcvWnd is the largest window c's field can offer.
func (c *tcpConn) maxRcvWnd() uint32 { return tcpMaxWnd << c.rcvShift }

// resolve finds the neighbour c's segments go to: the peer on the
// subnet, else the gateway (RFC 1122 §3.3.1.1). Unknown, it asks by ARP
// and the caller's retransmission timer, or the reply (Resolved), sends
// again.
func resolve(c *tcpConn) bool {
	hop := c.rip
	if !onLink(hop) {
		if If.Gateway == ([4]byte{}) {
			return false
		}
		hop = If.Gateway
	}
	mac, ok := ARPLookup(hop)
	if !ok {
		arpRequest(hop)
		return false
	}
	c.rmac, c.macOK = mac, true
	return true
}

// onLink reports whether a is on the interface's subnet.
func onLink(a [4]byte) bool {
	for i := range a {
		if a[i]&If.Mask[i] != If.IP[i]&If.Mask[i] {
			return false
		}
	}
	return true
}

// copyOut copies len(dst) bytes of ring r over buf, from off bytes past
// its head.
func copyOut(dst, buf []byte, r ring, off uint32) {
	p := (r.head + off) % uint32(len(buf))
	k := copy(dst, buf[p:])
	copy(dst[k:], buf)
}

// tcpOutput sends what c may send now (RFC 9293 §3.10.2-4, RFC 5681):
// new data as the peer's window and the congestion window allow, in
// segments of at most the peer's MSS, Nagle's short-segment rule unless
// TCP_NODELAY (RFC 1122 §4.2.3.4), then the FIN once the data is out;
// else an ACK if one is due now. force sends one segment even into a
// closed window (a retransmission, a zero-window probe).
func tcpOutput(c *tcpConn, now int64, force bool) {
	switch c.state {
	case TCPEstablished, TCPCloseWait, TCPFinWait1, TCPClosing, TCPLastAck:
	default:
		return
	}
	dataEnd := c.txSeq + c.tx.n
	for {
		inflight := c.sndNxt - c.sndUna
		wnd := min32(c.sndWnd, c.cwnd)
		var room uint32
		if wnd > inflight {
			room = wnd - inflight
		}
		if force && room == 0 {
			room = 1
		}
		var avail uint32
		if seqLT(c.sndNxt, dataEnd) {
			avail = dataEnd - c.sndNxt
		}
		n := min32(min32(avail, room), c.mss)
		fin := c.finQueued && seqLE(c.sndNxt, dataEnd) && c.sndNxt+n == dataEnd
		if n == 0 && !fin {
			break
		}
		// Nagle: a segment shorter than the MSS waits while data is
		// unacknowledged, unless it is the last before the FIN.
		// Sender-side silly window avoidance (RFC 1122 §4.2.3.4): a
		// segment the window cut short waits for room, unless it is
		// half the largest window the peer has offered.
		if !force && n < c.mss && n < avail && n < c.maxWnd/2 {
			break
		}
		if !force && n < c.mss && !c.nodelay && inflight > 0 && !fin {
			break
		}
		flags := uint8(0)
		if n > 0 && c.sndNxt+n == dataEnd {
			flags |= tcpPSH
		}
		if fin {
			flags |= tcpFIN
		}
		if !tcpSegment(c, c.sndNxt, flags, n) {
			// No neighbour yet, or the device is full: the
			// retransmission timer tries again.
			if c.rtxAt == 0 {
				armAt(&c.rtxAt, now+c.rto)
			}
			return
		}
		if c.rttAt == 0 && c.sndNxt == c.sndMax && n > 0 {
			c.rttSeq, c.rttAt = c.sndNxt+n, now
		}
		c.sndNxt += n
		if fin {
			c.sndNxt++
		}
		if seqGT(c.sndNxt, c.sndMax) {
			c.sndMax = c.sndNxt
		}
		if c.rtxAt == 0 {
			armAt(&c.rtxAt, now+c.rto)
		}
		force = false
	}
	// A closed window with data waiting and nothing in flight: probe it
	// when the timer runs out (RFC 9293 §3.8.6.1).
	if c.sndNxt == c.sndUna && seqLT(c.sndNxt, dataEnd) && c.sndWnd == 0 && c.rtxAt == 0 {
		armAt(&c.rtxAt, now+c.rto)
	}
	if c.ackAt != 0 && c.unacked >= 2 {
		tcpSegment(c, c.sndNxt, 0, 0)
	}
}

// tcpAckNow sends a bare ACK of what c has received.
func tcpAckNow(c *tcpConn) { tcpSegment(c, c.sndNxt, 0, 0) }

// tcpReset answers a segment that belongs to no connection (RFC 9293
// §3.10.7.1): one with an ACK gets <SEQ=SEG.ACK><CTL=RST>, one without
// <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>. A reset is never answered.
func tcpReset(mac [6]byte, src [4]byte, sport, dport uint16, segSeq, segAck, segLen uint32, segFlags uint8) {
	if segFlags&tcpRST != 0 {
		return
	}
	var seq, ack uint32
	flags := uint8(tcpRST)
	if segFlags&tcpACK != 0 {
		seq = segAck
	} else {
		ack = segSeq + segLen
		flags |= tcpACK
	}
	etherHeader(mac, etherTypeIPv4)
	ipHeader(If.IP, src, ipProtoTCP, tcpHeaderLen)
	s := txBuf[etherHeaderLen+ipHeaderLen : etherHeaderLen+ipHeaderLen+tcpHeaderLen]
	binary.BigEndian.PutUint16(s[0:], dport)
	binary.BigEndian.PutUint16(s[2:], sport)
	binary.BigEndian.PutUint32(s[4:], seq)
	binary.BigEndian.PutUint32(s[8:], ack)
	s[12], s[13] = tcpHeaderLen/4<<4, flags
	binary.BigEndian.PutUint32(s[14:], 0) // window, checksum
	binary.BigEndian.PutUint16(s[18:], 0)
	binary.BigEndian.PutUint16(s[16:], Checksum(s, pseudoSum(If.IP, src, ipProtoTCP, len(s))))
	if sendFrame(ipHeaderLen + len(s)) {
		Stats.TCPResetsOut++
	}
}
