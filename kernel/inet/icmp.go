package inet

import "encoding/binary"

// ICMP echo (RFC 792, "Echo or Echo Reply Message"; RFC 1122 §3.2.2.6).
const (
	icmpHeaderLen   = 8
	icmpEchoReply   = 0
	icmpEchoRequest = 8
)

// icmpInput answers an echo request with the same identifier, sequence
// number and data. Other ICMP messages are counted as received and
// ignored (no sockets use them yet).
func icmpInput(m []byte, src [4]byte, bcast bool, srcMAC [6]byte) {
	if len(m) < icmpHeaderLen || Checksum(m, 0) != 0 {
		Stats.BadICMP++
		return
	}
	// An echo request to a broadcast address may be silently discarded
	// (RFC 1122 §3.2.2.6), as Linux does by default
	// (icmp_echo_ignore_broadcasts); a zero source has no one to answer.
	if m[0] != icmpEchoRequest || m[1] != 0 || bcast || src == ([4]byte{}) || len(m) > maxIPPayload {
		return
	}
	etherHeader(srcMAC, etherTypeIPv4)
	ipHeader(If.IP, src, ipProtoICMP, len(m))
	r := txBuf[etherHeaderLen+ipHeaderLen : etherHeaderLen+ipHeaderLen+len(m)]
	copy(r, m)
	r[0] = icmpEchoReply
	binary.BigEndian.PutUint16(r[2:], 0)
	binary.BigEndian.PutUint16(r[2:], Checksum(r, 0))
	if sendFrame(ipHeaderLen + len(m)) {
		Stats.EchoReplies++
	}
}
