package inet

import "encoding/binary"

// IPv4 (RFC 791), as a host (RFC 1122 §3.2.1).
const (
	ipHeaderLen = 20 // without options
	ipVersion   = 4
	ipFlagMF    = 0x2000 // more fragments (RFC 791 §3.1, "Flags")
	ipFragMask  = 0x1fff // fragment offset
	ipProtoICMP = 1
	ipProtoUDP  = 17
	// ipTTL is what the stack sends with: RFC 1700's recommended
	// default, and Linux's (net.ipv4.ip_default_ttl).
	ipTTL = 64
	// maxIPPayload is what fits a frame after an option-less header.
	maxIPPayload = maxFrame - etherHeaderLen - ipHeaderLen
)

var ipID uint16 // identification of the next datagram sent (RFC 791 §3.2)

// ipInput checks an IPv4 datagram and hands its payload on. srcMAC is
// the link-layer sender, to which replies go back.
func ipInput(p []byte, srcMAC [6]byte, now int64) {
	// RFC 1122 §3.2.1.1-2: version 4; the header length at least 5
	// words and inside the datagram; the total length inside the frame
	// (a frame may be padded past it); the header checksum.
	if len(p) < ipHeaderLen || p[0]>>4 != ipVersion {
		Stats.BadIPHeader++
		return
	}
	hl := int(p[0]&0x0f) * 4
	total := int(be16(p[2:]))
	if hl < ipHeaderLen || hl > total || total > len(p) {
		Stats.BadIPHeader++
		return
	}
	if Checksum(p[:hl], 0) != 0 {
		Stats.BadIPChecksum++
		return
	}
	// No reassembly in this slice (RFC 1122 §3.3.2 asks hosts to
	// reassemble; nothing here needs datagrams over the MTU yet).
	if be16(p[6:])&(ipFlagMF|ipFragMask) != 0 {
		Stats.IPFragment++
		return
	}
	src, dst := ip4(p[12:16]), ip4(p[16:20])
	// A datagram from a broadcast or multicast source is discarded (RFC
	// 1122 §3.2.1.3); options (hl > 20) are passed over, as §3.2.1.8
	// lets a host that does not act on them.
	if isLimitedBroadcast(src) || isMulticast(src) || isDirectedBroadcast(src) {
		Stats.BadSource++
		return
	}
	bcast := isLimitedBroadcast(dst) || isDirectedBroadcast(dst)
	unconfigured := If.IP == ([4]byte{})
	switch {
	case dst == If.IP && !unconfigured, bcast:
	case unconfigured && p[9] == ipProtoUDP:
		// Before it has an address the DHCP client takes answers sent
		// to the address being offered (RFC 2131 §4.1, the broadcast
		// bit: a server may still unicast to yiaddr).
	default:
		Stats.NotForUs++
		return
	}
	payload := p[hl:total]
	switch p[9] {
	case ipProtoICMP:
		icmpInput(payload, src, bcast, srcMAC)
	case ipProtoUDP:
		udpInput(payload, src, dst, now)
	case ipProtoTCP:
		if bcast {
			Stats.NotForUs++ // TCP is unicast only (RFC 1122 §4.2.3.10)
			return
		}
		tcpInput(payload, src, dst, srcMAC, now)
	default:
		Stats.OtherProto++
	}
}

// ipHeader writes an option-less header for n bytes of payload into txBuf
// after the Ethernet header (RFC 791 §3.1): don't-fragment clear, TTL 64.
func ipHeader(src, dst [4]byte, proto uint8, n int) {
	h := txBuf[etherHeaderLen : etherHeaderLen+ipHeaderLen]
	total := ipHeaderLen + n
	ipID++
	h[0], h[1] = ipVersion<<4|ipHeaderLen/4, 0
	binary.BigEndian.PutUint16(h[2:], uint16(total))
	binary.BigEndian.PutUint16(h[4:], ipID)
	binary.BigEndian.PutUint16(h[6:], 0)
	h[8], h[9] = ipTTL, proto
	binary.BigEndian.PutUint16(h[10:], 0)
	copy(h[12:16], src[:])
	copy(h[16:20], dst[:])
	binary.BigEndian.PutUint16(h[10:], Checksum(h, 0))
}
