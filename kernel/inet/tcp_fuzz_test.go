package inet

import (
	"encoding/binary"
	"testing"

	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// tcpFrame wraps a TCP segment (its header and data as given) in IPv4
// and Ethernet from gVisor's address to ours; fix sets its checksum.
func tcpFrame(seg []byte, fix bool) []byte {
	f := make([]byte, 14+20+len(seg))
	header.Ethernet(f).Encode(&header.EthernetFields{SrcAddr: "\x52\x55\x0a\x00\x02\x02", DstAddr: "\x52\x54\x00\x12\x34\x56", Type: header.IPv4ProtocolNumber})
	ip := header.IPv4(f[14:])
	ip.Encode(&header.IPv4Fields{TotalLength: uint16(20 + len(seg)), TTL: 64, Protocol: ipProtoTCP, SrcAddr: tcpipAddr(testGW), DstAddr: tcpipAddr(testIP)})
	ip.SetChecksum(^ip.CalculateChecksum())
	copy(f[34:], seg)
	if fix && len(seg) >= 20 {
		binary.BigEndian.PutUint16(f[34+16:], 0)
		binary.BigEndian.PutUint16(f[34+16:], Checksum(f[34:], pseudoSum(testGW, testIP, ipProtoTCP, len(seg))))
	}
	return f
}

// tcpSeg builds a segment from gVisor's port 1234 to port.
func tcpSeg(port uint16, seq, ack uint32, flags uint8, data []byte) []byte {
	s := make([]byte, 20+len(data))
	binary.BigEndian.PutUint16(s[0:], 1234)
	binary.BigEndian.PutUint16(s[2:], port)
	binary.BigEndian.PutUint32(s[4:], seq)
	binary.BigEndian.PutUint32(s[8:], ack)
	s[12], s[13] = 5<<4, flags
	binary.BigEndian.PutUint16(s[14:], 65535)
	copy(s[20:], data)
	return s
}

// Whatever segment arrives, at a listener or at an established
// connection, the stack neither panics nor breaks its own invariants,
// and everything it sends is a well-formed segment from our address.
func FuzzTCPSegment(f *testing.F) {
	f.Add(tcpSeg(80, 1000, 0, tcpSYN, nil), true, false)
	f.Add(tcpSeg(80, 1001, 0, tcpACK, []byte("GET / HTTP/1.0\r\n\r\n")), true, true)
	f.Add(tcpSeg(80, 1001, 0, tcpRST, nil), true, true)
	f.Add(tcpSeg(80, 1001, 0, tcpFIN|tcpACK, nil), true, true)
	f.Add(tcpSeg(81, 5, 0, tcpSYN, nil), true, false)
	opts := tcpSeg(80, 1000, 0, tcpSYN, []byte{2, 4, 0, 1, 1, 3, 3, 7, 0})
	opts[12] = 8 << 4
	f.Add(opts, true, false)
	f.Fuzz(func(t *testing.T, seg []byte, fix, established bool) {
		var sent [][]byte
		reset(&sent)
		resetTCP()
		SetStatic(testIP, testMask, testGW, [4]byte{})
		Now = func() int64 { return 1e9 }
		l, _ := ListenTCP(80, 4, 1)
		if established {
			// Handshake from 1234: SYN seq 1000, then the ACK of our
			// SYN-ACK.
			Input(tcpFrame(tcpSeg(80, 1000, 0, tcpSYN, nil), true), 1e9)
			if len(sent) == 0 {
				t.Fatal("no SYN-ACK")
			}
			synack := header.TCP(sent[len(sent)-1][34:])
			Input(tcpFrame(tcpSeg(80, 1001, synack.SequenceNumber()+1, tcpACK, nil), true), 1e9)
			if AcceptTCP(l, 2) < 0 {
				t.Fatal("handshake did not complete")
			}
		}
		seg = append([]byte(nil), seg...)
		if len(seg) >= 4 {
			seg[0], seg[1] = 0x04, 0xd2 // from port 1234, to our port
			seg[2], seg[3] = 0, 80
		}
		sent = sent[:0]
		Input(tcpFrame(seg, fix), 1e9)
		Tick(2e9)
		Tick(200e9)
		for _, out := range sent {
			if len(out) < 14+20 {
				t.Fatalf("sent a short frame: %x", out)
			}
			ip := header.IPv4(out[14:])
			if ip.Protocol() == 0x06 {
				if !ip.IsValid(len(ip)) || !ip.IsChecksumValid() || ip.SourceAddress() != tcpipAddr(testIP) {
					t.Fatalf("sent a bad IPv4 datagram: %x", out)
				}
				tcp := header.TCP(ip.Payload())
				if len(tcp) < 20 || Checksum(tcp, pseudoSum(testIP, testGW, ipProtoTCP, len(tcp))) != 0 {
					t.Fatalf("sent a bad TCP segment: %x", tcp)
				}
			}
		}
		for i := range conns {
			c := &conns[i]
			if !c.used {
				continue
			}
			if c.rx.n > tcpRxSize || c.tx.n > tcpTxSize || seqGT(c.sndUna, c.sndNxt) || seqGT(c.sndNxt, c.sndMax) || c.nooo > tcpOOORanges {
				t.Fatalf("conn %d broke an invariant: %+v", i, *c)
			}
		}
	})
}
