package inet

// Reassembly: data that arrives past RCV.NXT (a segment before it was
// lost or reordered) is kept, so the sender retransmits only the hole.
// It goes straight into the receive ring at its place: the ring's free
// part is the window, so whatever the window admits fits. A few ranges
// remember what is there; when the hole fills, RCV.NXT jumps over them.

// tcpOOORanges bounds the ranges kept past a hole (Linux keeps an
// unbounded queue; four cover the reorderings and losses of one window
// that a LAN and QEMU produce).
const tcpOOORanges = 4

// seqRange is received data [start, end) past RCV.NXT.
type seqRange struct{ start, end uint32 }

// receive puts data that starts at seq (RCV.NXT ≤ seq, inside the
// window) into c's receive ring and advances RCV.NXT over whatever is
// now in order. It returns whether the data was in order (the caller
// then may delay its ACK; out of order it ACKs at once, RFC 5681 §4.2)
// and how much of data lay inside the ring.
func receive(c *tcpConn, seq uint32, data []byte) (inOrder bool, n uint32) {
	off := seq - c.rcvNxt
	free := uint32(tcpRxSize) - c.rx.n
	if off >= free {
		return false, 0
	}
	n = min32(uint32(len(data)), free-off)
	if c.shutRd {
		// shutdown(SHUT_RD): what arrives in order is acknowledged and
		// thrown away, as Linux does; nothing is kept past a hole.
		if off != 0 {
			return false, 0
		}
		c.rcvNxt += n
		return true, n
	}
	buf := c.rxBuf()
	p := (c.rx.head + c.rx.n + off) % tcpRxSize
	k := copy(buf[p:], data[:n])
	copy(buf, data[k:n])
	if off != 0 {
		c.addRange(seq, seq+n)
		return false, n
	}
	c.rcvNxt += n
	c.rx.n += n
	// The hole filled: take every kept range that now touches RCV.NXT.
	for merged := true; merged; {
		merged = false
		for i := 0; i < int(c.nooo); i++ {
			r := c.ooo[i]
			if seqGT(r.start, c.rcvNxt) {
				continue
			}
			if seqGT(r.end, c.rcvNxt) {
				d := r.end - c.rcvNxt
				c.rcvNxt += d
				c.rx.n += d
			}
			c.ooo[i] = c.ooo[c.nooo-1]
			c.nooo--
			merged = true
			break
		}
	}
	return true, n
}

// addRange records [start, end) past a hole, merged with the ranges it
// overlaps or touches; with every slot taken, the rightmost range goes
// if the new one lies left of it (the hole nearest RCV.NXT matters
// most), else the new one is forgotten (its data is retransmitted).
func (c *tcpConn) addRange(start, end uint32) {
	for i := 0; i < int(c.nooo); i++ {
		r := &c.ooo[i]
		if seqLE(start, r.end) && seqGE(end, r.start) {
			if seqLT(start, r.start) {
				r.start = start
			}
			if seqGT(end, r.end) {
				r.end = end
			}
			// It may now touch another: fold that one in too.
			for j := 0; j < int(c.nooo); j++ {
				o := c.ooo[j]
				if j != i && seqLE(r.start, o.end) && seqGE(r.end, o.start) {
					if seqLT(o.start, r.start) {
						r.start = o.start
					}
					if seqGT(o.end, r.end) {
						r.end = o.end
					}
					c.ooo[j] = c.ooo[c.nooo-1]
					c.nooo--
					return
				}
			}
			return
		}
	}
	if int(c.nooo) < tcpOOORanges {
		c.ooo[c.nooo] = seqRange{start, end}
		c.nooo++
		return
	}
	far := 0
	for i := 1; i < tcpOOORanges; i++ {
		if seqGT(c.ooo[i].start, c.ooo[far].start) {
			far = i
		}
	}
	if seqLT(start, c.ooo[far].start) {
		c.ooo[far] = seqRange{start, end}
	}
}
