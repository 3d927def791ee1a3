package inet

import (
	"net"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"gvisor.dev/gvisor/pkg/tcpip/checksum"
	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// sentDHCP parses the DHCP message in a frame this stack sent with the
// well-kept library, after checking its Ethernet, IPv4 and UDP headers
// with gVisor's.
func sentDHCP(t *testing.T, f []byte) *dhcpv4.DHCPv4 {
	t.Helper()
	eth := header.Ethernet(f)
	if eth.DestinationAddress() != header.EthernetBroadcastAddress || eth.Type() != header.IPv4ProtocolNumber {
		t.Fatalf("DHCP frame to %v type %#x, want broadcast IPv4", eth.DestinationAddress(), eth.Type())
	}
	ip := header.IPv4(f[header.EthernetMinimumSize:])
	if !ip.IsValid(len(ip)) || !ip.IsChecksumValid() || ip.Protocol() != uint8(header.UDPProtocolNumber) {
		t.Fatalf("DHCP frame's IPv4 header invalid: %x", []byte(ip[:20]))
	}
	if ip.SourceAddress().As4() != [4]byte{} || ip.DestinationAddress().As4() != [4]byte{255, 255, 255, 255} {
		t.Fatalf("DHCP from %v to %v, want 0.0.0.0 to 255.255.255.255", ip.SourceAddress(), ip.DestinationAddress())
	}
	u := header.UDP(ip.Payload())
	if u.SourcePort() != 68 || u.DestinationPort() != 67 {
		t.Fatalf("DHCP ports %d -> %d", u.SourcePort(), u.DestinationPort())
	}
	if !u.IsChecksumValid(ip.SourceAddress(), ip.DestinationAddress(), checksum.Checksum(u.Payload(), 0)) {
		t.Fatal("DHCP datagram's UDP checksum is wrong")
	}
	m, err := dhcpv4.FromBytes(u.Payload())
	if err != nil {
		t.Fatalf("the library cannot parse our DHCP message: %v", err)
	}
	return m
}

// reply wraps a server's message in Ethernet, IPv4 and UDP from
// 10.0.2.2:67 to the broadcast address, as QEMU's server sends it.
func reply(m *dhcpv4.DHCPv4) []byte {
	b := m.ToBytes()
	f := make([]byte, header.EthernetMinimumSize+header.IPv4MinimumSize+header.UDPMinimumSize+len(b))
	header.Ethernet(f).Encode(&header.EthernetFields{SrcAddr: "\x52\x55\x0a\x00\x02\x02", DstAddr: header.EthernetBroadcastAddress, Type: header.IPv4ProtocolNumber})
	ip := header.IPv4(f[header.EthernetMinimumSize:])
	src, dst := tcpipAddr(testGW), tcpipAddr([4]byte{255, 255, 255, 255})
	ip.Encode(&header.IPv4Fields{TotalLength: uint16(len(f) - header.EthernetMinimumSize), TTL: 64, Protocol: uint8(header.UDPProtocolNumber), SrcAddr: src, DstAddr: dst})
	ip.SetChecksum(^ip.CalculateChecksum())
	u := header.UDP(ip.Payload())
	u.Encode(&header.UDPFields{SrcPort: 67, DstPort: 68, Length: uint16(len(u))})
	copy(u.Payload(), b)
	u.SetChecksum(^u.CalculateChecksum(checksum.Combine(header.PseudoHeaderChecksum(header.UDPProtocolNumber, src, dst, uint16(len(u))), checksum.Checksum(u.Payload(), 0))))
	return f
}

func serverReply(t *testing.T, req *dhcpv4.DHCPv4, typ dhcpv4.MessageType, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	t.Helper()
	mods = append([]dhcpv4.Modifier{
		dhcpv4.WithMessageType(typ),
		dhcpv4.WithYourIP(net.IP(testIP[:])),
		dhcpv4.WithServerIP(net.IP(testGW[:])),
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(net.IP(testGW[:]))),
	}, mods...)
	m, err := dhcpv4.NewReplyFromRequest(req, mods...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The whole exchange against messages the library builds: our DISCOVER
// and REQUEST are what RFC 2131 asks, and the ACK's options configure the
// interface.
func TestDHCPExchange(t *testing.T) {
	var sent [][]byte
	reset(&sent)
	DHCPStart(0, 0x1234abcd)
	if len(sent) != 1 {
		t.Fatalf("DHCPStart sent %d frames", len(sent))
	}
	disc := sentDHCP(t, sent[0])
	if disc.MessageType() != dhcpv4.MessageTypeDiscover || disc.TransactionID != [4]byte{0x12, 0x34, 0xab, 0xcd} ||
		disc.ClientHWAddr.String() != "52:54:00:12:34:56" || !disc.IsBroadcast() {
		t.Fatalf("DISCOVER: %s", disc.Summary())
	}
	Input(reply(serverReply(t, disc, dhcpv4.MessageTypeOffer)), 1)
	if DHCP.State != DHCPRequesting || len(sent) != 2 {
		t.Fatalf("after the OFFER: state %d, %d frames sent; stats %+v", DHCP.State, len(sent), Stats)
	}
	req := sentDHCP(t, sent[1])
	if req.MessageType() != dhcpv4.MessageTypeRequest || !req.RequestedIPAddress().Equal(net.IP(testIP[:])) ||
		!req.ServerIdentifier().Equal(net.IP(testGW[:])) || req.TransactionID != disc.TransactionID {
		t.Fatalf("REQUEST: %s", req.Summary())
	}
	// A stray ACK for another transaction changes nothing.
	other := serverReply(t, req, dhcpv4.MessageTypeAck)
	other.TransactionID = [4]byte{9, 9, 9, 9}
	Input(reply(other), 2)
	if DHCP.State != DHCPRequesting || Stats.BadDHCP != 1 {
		t.Fatalf("after an ACK for another xid: state %d, BadDHCP %d", DHCP.State, Stats.BadDHCP)
	}
	Input(reply(serverReply(t, req, dhcpv4.MessageTypeAck,
		dhcpv4.WithNetmask(net.IPMask(testMask[:])),
		dhcpv4.WithRouter(net.IP(testGW[:])),
		dhcpv4.WithDNS(net.IP{10, 0, 2, 3}),
		dhcpv4.WithLeaseTime(86400))), 3)
	if DHCP.State != DHCPBound || If.IP != testIP || If.Mask != testMask || If.Gateway != testGW || If.DNS != [4]byte{10, 0, 2, 3} || DHCP.LeaseSeconds != 86400 {
		t.Fatalf("after the ACK: state %d, iface %+v, lease %d", DHCP.State, If, DHCP.LeaseSeconds)
	}
}

// A NAK sends the client back to INIT with a new DISCOVER (RFC 2131
// §4.4.1), and no answer at all makes it retransmit with a doubling
// timeout.
func TestDHCPNakAndRetransmit(t *testing.T) {
	var sent [][]byte
	reset(&sent)
	DHCPStart(0, 7)
	DHCPTick(int64(dhcpFirstTimeout) - 1)
	if len(sent) != 1 {
		t.Fatalf("retransmitted before the timeout: %d frames", len(sent))
	}
	DHCPTick(int64(dhcpFirstTimeout))
	if len(sent) != 2 || sentDHCP(t, sent[1]).MessageType() != dhcpv4.MessageTypeDiscover {
		t.Fatalf("no DISCOVER retransmitted at the timeout: %d frames", len(sent))
	}
	DHCPTick(int64(dhcpFirstTimeout) * 2) // the next timeout is twice as long
	if len(sent) != 2 {
		t.Fatalf("the timeout did not double: %d frames", len(sent))
	}
	disc := sentDHCP(t, sent[1])
	Input(reply(serverReply(t, disc, dhcpv4.MessageTypeOffer)), int64(time.Second))
	req := sentDHCP(t, sent[2])
	Input(reply(serverReply(t, req, dhcpv4.MessageTypeNak)), int64(time.Second))
	if DHCP.State != DHCPSelecting || len(sent) != 4 || sentDHCP(t, sent[3]).MessageType() != dhcpv4.MessageTypeDiscover {
		t.Fatalf("after a NAK: state %d, %d frames", DHCP.State, len(sent))
	}
	if If.IP != ([4]byte{}) {
		t.Fatalf("a NAK left an address: %v", If.IP)
	}
}
