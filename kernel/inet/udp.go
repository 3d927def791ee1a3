package inet

import "encoding/binary"

// UDP (RFC 768; RFC 1122 §4.1).
const (
	udpHeaderLen   = 8
	portDHCPServer = 67
	portDHCPClient = 68
)

// udpInput checks a datagram and hands it to its port's user: the DHCP
// client, or the endpoint bound to the port (udp_socket.go). A datagram
// for a port nobody has is counted (RFC 1122 §4.1.3.1 would answer with
// ICMP port unreachable; not yet).
func udpInput(d []byte, src, dst [4]byte, now int64) {
	if len(d) < udpHeaderLen {
		Stats.BadUDP++
		return
	}
	n := int(be16(d[4:]))
	if n < udpHeaderLen || n > len(d) {
		Stats.BadUDP++
		return
	}
	d = d[:n]
	// A zero checksum means the sender computed none (RFC 768); any
	// other is checked over the pseudo-header.
	if be16(d[6:]) != 0 && Checksum(d, pseudoSum(src, dst, ipProtoUDP, n)) != 0 {
		Stats.BadUDPSum++
		return
	}
	sport, dport := be16(d[0:]), be16(d[2:])
	if dport == portDHCPClient && sport == portDHCPServer {
		dhcpInput(d[udpHeaderLen:], now)
		return
	}
	if !udpDeliver(src, dst, sport, dport, d[udpHeaderLen:], nil) {
		Stats.NoPort++
	}
}

// udpSend sends the n bytes already in txBuf after the UDP header, from
// src:sport to dst:dport through the neighbour dstMAC.
func udpSend(dstMAC [6]byte, src, dst [4]byte, sport, dport uint16, n int) bool {
	etherHeader(dstMAC, etherTypeIPv4)
	ipHeader(src, dst, ipProtoUDP, udpHeaderLen+n)
	u := txBuf[etherHeaderLen+ipHeaderLen : etherHeaderLen+ipHeaderLen+udpHeaderLen+n]
	l := udpHeaderLen + n
	binary.BigEndian.PutUint16(u[0:], sport)
	binary.BigEndian.PutUint16(u[2:], dport)
	binary.BigEndian.PutUint16(u[4:], uint16(l))
	binary.BigEndian.PutUint16(u[6:], 0)
	sum := Checksum(u, pseudoSum(src, dst, ipProtoUDP, l))
	if sum == 0 {
		sum = 0xffff // a computed zero is sent as all ones (RFC 768)
	}
	binary.BigEndian.PutUint16(u[6:], sum)
	return sendFrame(ipHeaderLen + l)
}

// udpPayload is where a datagram's data goes in txBuf.
func udpPayload() []byte { return txBuf[etherHeaderLen+ipHeaderLen+udpHeaderLen:] }
