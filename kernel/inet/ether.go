package inet

import "encoding/binary"

// Ethernet II framing (IEEE 802.3 with an EtherType, as RFC 894 carries
// IPv4). The device strips the FCS and the preamble.
const (
	etherHeaderLen = 14
	etherTypeIPv4  = 0x0800
	etherTypeARP   = 0x0806
	// maxFrame is the largest frame without FCS: 1500 bytes of payload
	// (the Ethernet MTU, RFC 894) and the header.
	maxFrame = etherHeaderLen + 1500
)

// txBuf is where every frame the stack sends is built; Transmit copies it
// out before it returns, so one buffer serves every send.
var txBuf [maxFrame]byte

// Input handles one received Ethernet frame (no FCS); now is a monotonic
// time in nanoseconds. It answers ARP requests for If.IP, answers ICMP
// echo requests to it, feeds UDP to port 68 to the DHCP client, and drops
// and counts everything else.
func Input(frame []byte, now int64) {
	Stats.Frames++
	if len(frame) < etherHeaderLen {
		Stats.ShortFrame++
		return
	}
	var src [6]byte
	copy(src[:], frame[6:12])
	switch be16(frame[12:]) {
	case etherTypeARP:
		arpInput(frame[etherHeaderLen:])
	case etherTypeIPv4:
		ipInput(frame[etherHeaderLen:], src, now)
	default:
		Stats.OtherType++
	}
}

// etherHeader writes the header of a frame to dst into txBuf.
func etherHeader(dst [6]byte, typ uint16) {
	copy(txBuf[0:6], dst[:])
	copy(txBuf[6:12], If.MAC[:])
	binary.BigEndian.PutUint16(txBuf[12:], typ)
}

// sendFrame transmits txBuf's first etherHeaderLen+n bytes.
func sendFrame(n int) bool {
	if Transmit == nil || !Transmit(txBuf[:etherHeaderLen+n]) {
		Stats.TxFailed++
		return false
	}
	return true
}

func broadcastMAC() [6]byte { return [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff} }
