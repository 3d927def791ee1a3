package inet

import (
	"encoding/binary"
	"testing"
)

// synFrame is a SYN from 10.0.2.2:sport to this stack's port dport, as
// a flooder would send it (any sequence number, no options), with its
// flags and ack settable for the handshake's last step.
func synFrame(sport, dport uint16, seq, ack uint32, flags uint8) []byte {
	f := make([]byte, etherHeaderLen+ipHeaderLen+tcpHeaderLen)
	copy(f[0:6], If.MAC[:])
	copy(f[6:12], []byte{0x52, 0x55, 0x0a, 0, 2, 2})
	binary.BigEndian.PutUint16(f[12:], etherTypeIPv4)
	ip := f[etherHeaderLen:]
	ip[0], ip[8], ip[9] = 0x45, 64, ipProtoTCP
	binary.BigEndian.PutUint16(ip[2:], ipHeaderLen+tcpHeaderLen)
	copy(ip[12:16], testGW[:])
	copy(ip[16:20], testIP[:])
	binary.BigEndian.PutUint16(ip[10:], Checksum(ip[:ipHeaderLen], 0))
	s := ip[ipHeaderLen:]
	binary.BigEndian.PutUint16(s[0:], sport)
	binary.BigEndian.PutUint16(s[2:], dport)
	binary.BigEndian.PutUint32(s[4:], seq)
	binary.BigEndian.PutUint32(s[8:], ack)
	s[12], s[13] = tcpHeaderLen/4<<4, flags
	binary.BigEndian.PutUint16(s[14:], 65535)
	binary.BigEndian.PutUint16(s[16:], Checksum(s, pseudoSum(testGW, testIP, ipProtoTCP, len(s))))
	return f
}

// A SYN flood of 5,000 ports at a listener with a backlog of 16 costs
// at most the backlog: the rest are dropped and counted, the table and
// the rings mapped for it stay bounded; when the SYN-ACKs' retries run
// out (the clock moved on by hand) every half-open connection and its
// memory is gone, and a client that completes its handshake gets
// through.
func TestTCPSynFloodBoundedAndRecovers(t *testing.T) {
	stackMu.Lock()
	defer stackMu.Unlock()
	reset(nil)
	resetTCP()
	resetUDP()
	SetStatic(testIP, testMask, testGW, [4]byte{})
	clock := int64(1e9)
	Now = func() int64 { return clock }
	ArmTimer, Wake = nil, nil
	var synAcks int
	var lastSynAck []byte
	Transmit = func(f []byte) bool {
		if len(f) >= etherHeaderLen+ipHeaderLen+tcpHeaderLen && f[etherHeaderLen+ipHeaderLen+13] == tcpSYN|tcpACK {
			synAcks++
			lastSynAck = append(lastSynAck[:0], f...)
		}
		return true
	}
	mapped := 0
	mapBuffers, unmapBuffers := MapBuffers, UnmapBuffers
	MapBuffers = func(slot int32) uintptr { mapped++; return mapBuffers(slot) }
	UnmapBuffers = func(slot int32) { mapped--; unmapBuffers(slot) }
	defer func() { MapBuffers, UnmapBuffers = mapBuffers, unmapBuffers }()

	const backlog, flood = 16, 5000
	l, e := ListenTCP(8090, backlog, 1)
	if e != 0 {
		t.Fatal(e)
	}
	used := func() int {
		n := 0
		for i := range conns {
			if conns[i].used {
				n++
			}
		}
		return n
	}
	for i := 0; i < flood; i++ {
		Input(synFrame(uint16(1024+i), 8090, uint32(i)*7919, 0, tcpSYN), clock)
	}
	if used() != 1+backlog || mapped != backlog {
		t.Fatalf("after the flood: %d connections in use, %d with rings; want the listener and %d", used(), mapped, backlog)
	}
	if Stats.TCPListenDrops != flood-backlog {
		t.Errorf("listen drops %d, want %d", Stats.TCPListenDrops, flood-backlog)
	}
	// SYN-ACK retries (5, from 1 s doubling) end within two minutes.
	for step := 0; step < 130; step++ {
		clock += 1e9
		Tick(clock)
	}
	if used() != 1 || mapped != 0 || connAt(l).children != 0 {
		t.Fatalf("two minutes on: %d connections in use, %d with rings, %d children; want the listener alone", used(), mapped, connAt(l).children)
	}
	// A real client: SYN, the SYN-ACK, then its ACK.
	before := synAcks
	Input(synFrame(5555, 8090, 1000, 0, tcpSYN), clock)
	if synAcks != before+1 {
		t.Fatal("no SYN-ACK for a client after the flood")
	}
	iss := binary.BigEndian.Uint32(lastSynAck[etherHeaderLen+ipHeaderLen+4:])
	Input(synFrame(5555, 8090, 1001, iss+1, tcpACK), clock)
	if c := AcceptTCP(l, 2); c < 0 {
		t.Fatalf("the client's connection was not accepted; stats %+v", Stats)
	}
}
