package inet

import (
	"bytes"
	"testing"

	"gvisor.dev/gvisor/pkg/tcpip/checksum"
	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// Checksum agrees with gVisor's on any bytes from any starting sum.
func FuzzChecksum(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add([]byte{0xff}, uint16(0xffff))
	f.Add([]byte{0x45, 0x00, 0x00, 0x54, 0xab}, uint16(0x1234))
	f.Fuzz(func(t *testing.T, b []byte, init uint16) {
		if got, want := Checksum(b, uint32(init)), ^checksum.Checksum(b, init); got != want {
			t.Fatalf("Checksum(%x, %#x) = %#x, gVisor says %#x", b, init, got, want)
		}
	})
}

// Whatever arrives, Input neither panics nor sends anything but a
// well-formed ARP reply or IPv4 datagram from our own addresses.
func FuzzInput(f *testing.F) {
	// Seeds: a real ARP request, an echo request, a DHCP offer.
	arpReq := make([]byte, 42)
	header.Ethernet(arpReq).Encode(&header.EthernetFields{SrcAddr: "\x52\x55\x0a\x00\x02\x02", DstAddr: header.EthernetBroadcastAddress, Type: header.ARPProtocolNumber})
	a := header.ARP(arpReq[14:])
	a.SetIPv4OverEthernet()
	a.SetOp(header.ARPRequest)
	copy(a.HardwareAddressSender(), "\x52\x55\x0a\x00\x02\x02")
	copy(a.ProtocolAddressSender(), testGW[:])
	copy(a.ProtocolAddressTarget(), testIP[:])
	f.Add(arpReq, false)
	var sent [][]byte
	reset(&sent)
	DHCPStart(0, 1)
	f.Add(append([]byte(nil), sent[0]...), true)
	echo := make([]byte, 14+20+8+4)
	header.Ethernet(echo).Encode(&header.EthernetFields{SrcAddr: "\x52\x55\x0a\x00\x02\x02", DstAddr: "\x52\x54\x00\x12\x34\x56", Type: header.IPv4ProtocolNumber})
	ip := header.IPv4(echo[14:])
	ip.Encode(&header.IPv4Fields{TotalLength: 32, TTL: 64, Protocol: 1, SrcAddr: tcpipAddr(testGW), DstAddr: tcpipAddr(testIP)})
	ip.SetChecksum(^ip.CalculateChecksum())
	ic := header.ICMPv4(ip.Payload())
	ic.SetType(header.ICMPv4Echo)
	ic.SetChecksum(^checksum.Checksum(ic, 0))
	f.Add(echo, false)
	f.Fuzz(func(t *testing.T, frame []byte, dhcp bool) {
		var sent [][]byte
		reset(&sent)
		if dhcp {
			DHCPStart(0, 1)
			sent = sent[:0]
		} else {
			SetStatic(testIP, testMask, testGW, [4]byte{})
		}
		Input(frame, 1)
		for _, out := range sent {
			eth := header.Ethernet(out)
			if len(out) < 14 || !bytes.Equal([]byte(eth.SourceAddress()), If.MAC[:]) {
				t.Fatalf("sent a frame not from our MAC: %x", out)
			}
			switch eth.Type() {
			case header.ARPProtocolNumber:
				if a := header.ARP(out[14:]); len(out) < 42 || !a.IsValid() || a.Op() != header.ARPReply {
					t.Fatalf("sent a bad ARP frame: %x", out)
				}
			case header.IPv4ProtocolNumber:
				ip := header.IPv4(out[14:])
				if !ip.IsValid(len(ip)) || !ip.IsChecksumValid() {
					t.Fatalf("sent a bad IPv4 datagram: %x", out)
				}
			default:
				t.Fatalf("sent EtherType %#x", eth.Type())
			}
		}
	})
}

// Malformed frames of each kind are dropped and counted, never answered.
func TestMalformedDropped(t *testing.T) {
	var sent [][]byte
	reset(&sent)
	SetStatic(testIP, testMask, testGW, [4]byte{})
	Input([]byte{1, 2, 3}, 0)
	Input(append(make([]byte, 12), 0x08, 0x06, 0, 1), 0)                        // short ARP
	Input(append(make([]byte, 12), 0x08, 0x00, 0x46, 0, 0, 20), 0)              // IPv4 shorter than its IHL
	Input(append(append(make([]byte, 12), 0x08, 0x00), make([]byte, 20)...), 0) // version 0
	Input(append(make([]byte, 12), 0x86, 0xdd), 0)                              // IPv6
	if len(sent) != 0 {
		t.Fatalf("answered malformed frames: %x", sent)
	}
	if Stats.ShortFrame != 1 || Stats.BadARP != 1 || Stats.BadIPHeader != 2 || Stats.OtherType != 1 {
		t.Fatalf("counters %+v", Stats)
	}
}
