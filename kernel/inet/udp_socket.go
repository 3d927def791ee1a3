package inet

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// UDP endpoints: what a datagram socket is in the stack. An endpoint has
// a port (and optionally an address) that datagrams arrive for, and a
// receive queue of whole datagrams in a ring of the pages the kernel
// maps for it (MapBuffers, slots past the TCP table's), each behind a
// record header with its length and sender, and bytes the socket layer
// keeps with a datagram of its own making (UDPEnqueue's aux: an AF_UNIX
// datagram's credentials). A datagram that does not fit
// is dropped and counted, as Linux drops past SO_RCVBUF (RFC 768 promises
// no delivery). Datagrams to the loopback or to the interface's own
// address go from one endpoint's sender straight into another's queue.

const (
	// MaxUDP bounds the endpoints (datagram sockets).
	MaxUDP = 256
	// udpRxSize is an endpoint's receive queue: the slot's pages.
	udpRxSize = TCPBufBytes
	// udpRecordLen is the header before each queued datagram: its
	// length, the sender's port and address, and UDPAuxLen bytes the
	// socket layer gave with it (UDPEnqueue).
	udpRecordLen = 8 + UDPAuxLen
	// UDPAuxLen is the size of a record's aux bytes: a struct ucred.
	UDPAuxLen = 12
	// MaxUDPPayload is the most a datagram can carry in IPv4 (65535 less
	// the IPv4 and UDP headers, RFC 768, RFC 791).
	MaxUDPPayload = 65535 - ipHeaderLen - udpHeaderLen
	// UDPIfacePayload is the most one sent over the interface carries:
	// the stack does not fragment (RFC 791 §2.3), so it is what fits
	// one frame; a bigger send is EMSGSIZE, as Linux answers with
	// IP_PMTUDISC_DO.
	UDPIfacePayload = maxIPPayload - udpHeaderLen
	// udpPendingMax datagrams wait for ARP to find their next hop
	// (Linux keeps a queue per neighbour, unres_qlen).
	udpPendingMax = 4
)

type udpEndpoint struct {
	used  bool
	ip    [4]byte // bound address, zero for any
	port  uint16  // 0 until bound
	owner int32
	bufs  uintptr
	rx    ring
	count int // datagrams queued
}

type udpPending struct {
	used          bool
	hop, src, dst [4]byte
	sport, dport  uint16
	n             int
	data          [UDPIfacePayload]byte
}

var (
	udps [MaxUDP]udpEndpoint
	// udpStage holds a datagram being sent: the socket layer copies the
	// app's bytes in (UDPSendBuf), UDPSend takes them from here.
	udpStage    [MaxUDPPayload]byte
	udpPend     [udpPendingMax]udpPending
	udpPendNext int
)

func udpAt(i int32) *udpEndpoint {
	if i < 0 || i >= MaxUDP || !udps[i].used {
		return nil
	}
	return &udps[i]
}

// udpSlot is the buffer slot an endpoint's queue is mapped in.
func udpSlot(i int32) int32 { return MaxConns + i }

// OpenUDP makes an endpoint for owner (a socket's index for Wake), not
// yet bound.
func OpenUDP(owner int32) (int32, unix.Errno) {
	for i := range udps {
		u := &udps[i]
		if u.used {
			continue
		}
		var bufs uintptr
		if MapBuffers != nil {
			bufs = MapBuffers(udpSlot(int32(i)))
		}
		if bufs == 0 {
			return -1, unix.ENOBUFS
		}
		*u = udpEndpoint{used: true, owner: owner, bufs: bufs}
		return int32(i), 0
	}
	return -1, unix.ENFILE
}

// BindUDP gives endpoint i its address and port (the socket layer has
// checked the port is free).
func BindUDP(i int32, ip [4]byte, port uint16) {
	if u := udpAt(i); u != nil {
		u.ip, u.port = ip, port
	}
}

// CloseUDP frees endpoint i and what it queued.
func CloseUDP(i int32) {
	u := udpAt(i)
	if u == nil {
		return
	}
	if UnmapBuffers != nil {
		UnmapBuffers(udpSlot(i))
	}
	*u = udpEndpoint{}
}

func (u *udpEndpoint) buf() []byte { return ringBytes(u.bufs, udpRxSize) }

// UDPPoll is endpoint i's readiness: readable with a datagram queued,
// always writable (a send never waits: the stack sends or drops).
func UDPPoll(i int32) uint32 {
	u := udpAt(i)
	if u == nil {
		return unix.EPOLLOUT
	}
	if u.count > 0 {
		return unix.EPOLLIN | unix.EPOLLOUT
	}
	return unix.EPOLLOUT
}

// UDPRecv returns endpoint i's oldest datagram, its sender and its data
// as up to two pieces of the ring; UDPConsume then drops it. ok is false
// when none is queued.
func UDPRecv(i int32) (src [4]byte, sport uint16, a, b []byte, ok bool) {
	u := udpAt(i)
	if u == nil || u.count == 0 {
		return src, 0, nil, nil, false
	}
	buf := u.buf()
	var h [udpRecordLen]byte
	copyOut(h[:], buf, u.rx, 0)
	n := uint32(binary.BigEndian.Uint16(h[0:]))
	sport = binary.BigEndian.Uint16(h[2:])
	copy(src[:], h[4:8])
	start := (u.rx.head + udpRecordLen) % udpRxSize
	if start+n <= udpRxSize {
		return src, sport, buf[start : start+n], nil, true
	}
	return src, sport, buf[start:], buf[:start+n-udpRxSize], true
}

// UDPConsume drops endpoint i's oldest datagram.
func UDPConsume(i int32) {
	u := udpAt(i)
	if u == nil || u.count == 0 {
		return
	}
	var h [2]byte
	copyOut(h[:], u.buf(), u.rx, 0)
	k := udpRecordLen + uint32(binary.BigEndian.Uint16(h[:]))
	u.rx.head = (u.rx.head + k) % udpRxSize
	u.rx.n -= k
	u.count--
}

// udpDeliver queues a datagram for the endpoint bound to dst:dport, if
// any (false: nobody has the port).
func udpDeliver(src, dst [4]byte, sport, dport uint16, a, b []byte) bool {
	var u *udpEndpoint
	for i := range udps {
		e := &udps[i]
		if e.used && e.port != 0 && e.port == dport && (e.ip == dst || e.ip == [4]byte{}) {
			u = e
			if e.ip == dst {
				break // an exact address beats the wildcard
			}
		}
	}
	if u == nil {
		return false
	}
	if !u.enqueue(src, sport, [UDPAuxLen]byte{}, a, b) {
		Stats.UDPRcvDrops++
	}
	return true
}

// UDPEnqueue puts the n bytes UDPSendBuf holds straight into endpoint
// i's queue, with tag as the sender's address and mark as its port (an
// AF_UNIX datagram socket's queue: kernel/socket's unixgram.go, where
// the mark names the descriptors the datagram carries), and aux kept
// with it for UDPAux; false when it does not fit.
func UDPEnqueue(i int32, tag [4]byte, mark uint16, aux [UDPAuxLen]byte, n int) bool {
	u := udpAt(i)
	if u == nil || n < 0 || n > MaxUDPPayload {
		return false
	}
	return u.enqueue(tag, mark, aux, udpStage[:n], nil)
}

// UDPAux returns the aux bytes of endpoint i's oldest datagram (zero
// for one from the network, or none queued).
func UDPAux(i int32) (aux [UDPAuxLen]byte) {
	u := udpAt(i)
	if u == nil || u.count == 0 {
		return aux
	}
	var h [udpRecordLen]byte
	copyOut(h[:], u.buf(), u.rx, 0)
	copy(aux[:], h[8:])
	return aux
}

// enqueue appends a datagram to u's queue and wakes its owner; false
// when it does not fit.
func (u *udpEndpoint) enqueue(src [4]byte, sport uint16, aux [UDPAuxLen]byte, a, b []byte) bool {
	n := uint32(len(a) + len(b))
	if udpRxSize-u.rx.n < udpRecordLen+n {
		return false
	}
	var h [udpRecordLen]byte
	binary.BigEndian.PutUint16(h[0:], uint16(n))
	binary.BigEndian.PutUint16(h[2:], sport)
	copy(h[4:], src[:])
	copy(h[8:], aux[:])
	buf := u.buf()
	copyIn(buf, &u.rx, h[:])
	copyIn(buf, &u.rx, a)
	copyIn(buf, &u.rx, b)
	u.count++
	Stats.UDPDelivered++
	if Wake != nil {
		Wake(u.owner, unix.EPOLLIN|unix.EPOLLOUT)
	}
	return true
}

// isLoopback reports a 127/8 address (RFC 1122 §3.2.1.3(g)).
func isLoopback(a [4]byte) bool { return a[0] == 127 }

// UDPSendBuf is where the caller puts the datagram it sends next to dst:
// room for one the path to dst can carry.
func UDPSendBuf(dst [4]byte) []byte {
	if isLoopback(dst) || If.IP != ([4]byte{}) && dst == If.IP {
		return udpStage[:]
	}
	return udpStage[:UDPIfacePayload]
}

// UDPSend sends the n bytes UDPSendBuf holds from endpoint i to
// dst:dport. ECONNREFUSED says it went to a local port nobody has. The endpoint must be bound (the socket layer binds an
// ephemeral port first). Off the subnet with no router it is
// ENETUNREACH; a next hop ARP has not found yet keeps the datagram
// until it answers.
func UDPSend(i int32, dst [4]byte, dport uint16, n int) unix.Errno {
	u := udpAt(i)
	if u == nil || u.port == 0 || n < 0 || n > MaxUDPPayload {
		return unix.EINVAL
	}
	data := udpStage[:n]
	if isLoopback(dst) || If.IP != ([4]byte{}) && dst == If.IP {
		src := dst
		if !isLoopback(dst) {
			src = If.IP
		} else if u.ip != ([4]byte{}) {
			src = u.ip
		}
		Stats.UDPSent++
		if !udpDeliver(src, dst, u.port, dport, data, nil) {
			// Linux answers a datagram to a closed local port with
			// ICMP port unreachable (RFC 1122 §4.1.3.1), which a
			// connected sender reads as ECONNREFUSED: the caller
			// reports it so (the datagram itself was sent).
			Stats.NoPort++
			return unix.ECONNREFUSED
		}
		return 0
	}
	if n > UDPIfacePayload {
		return unix.EMSGSIZE
	}
	if If.IP == ([4]byte{}) {
		return unix.ENETUNREACH
	}
	hop := dst
	bcast := isLimitedBroadcast(dst)
	if !bcast && !onLink(dst) {
		if If.Gateway == ([4]byte{}) {
			return unix.ENETUNREACH
		}
		hop = If.Gateway
	}
	mac := broadcastMAC()
	if !bcast {
		var ok bool
		if mac, ok = ARPLookup(hop); !ok {
			udpHold(hop, dst, u.port, dport, data)
			arpRequest(hop)
			return 0
		}
	}
	copy(udpPayload(), data)
	if udpSend(mac, If.IP, dst, u.port, dport, n) {
		Stats.UDPSent++
	}
	return 0
}

// udpHold keeps a datagram until ARP finds hop, in place of the oldest
// held when all places are taken.
func udpHold(hop, dst [4]byte, sport, dport uint16, data []byte) {
	p := &udpPend[udpPendNext]
	udpPendNext = (udpPendNext + 1) % udpPendingMax
	if p.used {
		Stats.UDPUnresolved++
	}
	p.used, p.hop, p.dst, p.sport, p.dport = true, hop, dst, sport, dport
	p.n = copy(p.data[:], data)
}

// udpResolved sends what waited for ip's MAC.
func udpResolved(ip [4]byte, mac [6]byte) {
	for i := range udpPend {
		p := &udpPend[i]
		if !p.used || p.hop != ip {
			continue
		}
		p.used = false
		copy(udpPayload(), p.data[:p.n])
		if udpSend(mac, If.IP, p.dst, p.sport, p.dport, p.n) {
			Stats.UDPSent++
		}
	}
}

// resetUDP empties the endpoint table (host tests).
func resetUDP() {
	for i := range udps {
		if udps[i].used {
			CloseUDP(int32(i))
		}
	}
	udpPend = [udpPendingMax]udpPending{}
}
