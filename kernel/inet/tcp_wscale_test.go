package inet

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
)

// tcpRcvShift is the least shift that lets the whole receive ring be
// offered in the 16-bit window field (RFC 7323 §2.3).
func TestWindowShiftFitsRing(t *testing.T) {
	if tcpRxSize>>tcpRcvShift > tcpMaxWnd {
		t.Errorf("a %d-byte ring shifted by %d is %d, more than the field holds", tcpRxSize, tcpRcvShift, tcpRxSize>>tcpRcvShift)
	}
	if tcpRcvShift > 0 && tcpRxSize>>(tcpRcvShift-1) <= tcpMaxWnd {
		t.Errorf("shift %d is more than a %d-byte ring needs", tcpRcvShift, tcpRxSize)
	}
	if tcpRcvShift > tcpMaxShift {
		t.Errorf("shift %d is past RFC 7323's 14", tcpRcvShift)
	}
}

// handshakeWith opens a connection to a listener on port 8091 with a
// SYN carrying opts (TCP options, a multiple of 4 bytes) and window
// field 1000, and returns the SYN-ACK's TCP header and the connection.
func handshakeWith(t *testing.T, opts []byte) ([]byte, *tcpConn) {
	t.Helper()
	reset(nil)
	resetTCP()
	resetUDP()
	SetStatic(testIP, testMask, testGW, [4]byte{})
	Now = func() int64 { return 1e9 }
	ArmTimer, Wake = nil, nil
	var synAck []byte
	Transmit = func(f []byte) bool {
		if s := f[etherHeaderLen+ipHeaderLen:]; s[13] == tcpSYN|tcpACK {
			synAck = append([]byte(nil), s...)
		}
		return true
	}
	l, e := ListenTCP(8091, 4, 1)
	if e != 0 {
		t.Fatal(e)
	}
	seg := tcpSeg(8091, 1000, 0, tcpSYN, nil)
	seg = append(seg[:tcpHeaderLen:tcpHeaderLen], opts...)
	seg[12] = byte(len(seg)/4) << 4
	binary.BigEndian.PutUint16(seg[14:], 1000)
	Input(tcpFrame(seg, true), Now())
	if synAck == nil {
		t.Fatalf("no SYN-ACK; stats %+v", Stats)
	}
	ack := tcpSeg(8091, 1001, binary.BigEndian.Uint32(synAck[4:])+1, tcpACK, nil)
	binary.BigEndian.PutUint16(ack[14:], 1000)
	Input(tcpFrame(ack, true), Now())
	i := AcceptTCP(l, 2)
	if i < 0 {
		t.Fatalf("not accepted; stats %+v", Stats)
	}
	return synAck, connAt(i)
}

// synOpts returns the options of a SYN-ACK's header.
func synOpts(s []byte) []byte { return s[tcpHeaderLen : int(s[12]>>4)*4] }

// A SYN that offers window scaling gets it answered in the SYN-ACK
// (NOP, kind 3, length 3, our shift); from then on the peer's window
// fields are scaled by its shift and ours by our shift, but not the
// SYNs' (RFC 7323 §2.2-2.3).
func TestWindowScaleAgreed(t *testing.T) {
	stackMu.Lock()
	defer stackMu.Unlock()
	synAck, c := handshakeWith(t, []byte{tcpOptNOP, tcpOptWS, tcpOptWSLen, 3})
	want := []byte{tcpOptMSS, tcpOptMSSLen, tcpMSS >> 8, tcpMSS & 0xff, tcpOptNOP, tcpOptWS, tcpOptWSLen, tcpRcvShift}
	if got := synOpts(synAck); !bytes.Equal(got, want) {
		t.Errorf("SYN-ACK options % x, want % x", got, want)
	}
	if w := binary.BigEndian.Uint16(synAck[14:]); w != tcpMaxWnd {
		t.Errorf("SYN-ACK window field %d, want %d unscaled", w, tcpMaxWnd)
	}
	if c.sndShift != 3 || c.rcvShift != tcpRcvShift {
		t.Errorf("shifts: send %d receive %d, want 3 and %d", c.sndShift, c.rcvShift, tcpRcvShift)
	}
	if c.sndWnd != 1000<<3 {
		t.Errorf("send window after the ACK's field of 1000: %d, want %d", c.sndWnd, 1000<<3)
	}
	// The ring is empty: our ACK offers all of it, in the scaled field.
	var ack []byte
	Transmit = func(f []byte) bool { ack = append([]byte(nil), f[etherHeaderLen+ipHeaderLen:]...); return true }
	tcpAckNow(c)
	if w := binary.BigEndian.Uint16(ack[14:]); uint32(w)<<tcpRcvShift != tcpRxSize {
		t.Errorf("ACK window field %d: offers %d bytes, want the ring's %d", w, uint32(w)<<tcpRcvShift, tcpRxSize)
	}
}

// A peer that does not offer window scaling gets no option back, and
// no field is scaled either way; a shift past 14 is taken as 14.
func TestWindowScaleNotOffered(t *testing.T) {
	stackMu.Lock()
	defer stackMu.Unlock()
	synAck, c := handshakeWith(t, nil)
	want := []byte{tcpOptMSS, tcpOptMSSLen, tcpMSS >> 8, tcpMSS & 0xff}
	if got := synOpts(synAck); !bytes.Equal(got, want) {
		t.Errorf("SYN-ACK options % x, want % x", got, want)
	}
	if c.sndShift != 0 || c.rcvShift != 0 || c.sndWnd != 1000 {
		t.Errorf("shifts %d/%d, send window %d: want 0/0 and 1000", c.sndShift, c.rcvShift, c.sndWnd)
	}
	if got := c.window(); got != tcpMaxWnd {
		t.Errorf("window %d, want the unscaled field's most, %d", got, tcpMaxWnd)
	}
	_, c = handshakeWith(t, []byte{tcpOptWS, tcpOptWSLen, 15, tcpOptEnd})
	if c.sndShift != tcpMaxShift {
		t.Errorf("a shift of 15 taken as %d, want %d", c.sndShift, tcpMaxShift)
	}
}

// gVisor (which offers window scaling) connects and sends while this
// side does not read: gVisor must fill the whole 64 KiB ring, one byte
// past what an unscaled field can offer, so both sides applied the
// shifts; then everything arrives intact.
func TestTCPWindowScaleGVisor(t *testing.T) {
	p := newTCPPeer(t, impairment{}, impairment{})
	l := ourListen(t, 8080)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dialed := make(chan error, 1)
	var client *gonet.TCPConn
	go func() {
		var err error
		client, err = gonet.DialContextTCP(ctx, p.s, tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testIP), Port: 8080}, ipv4.ProtocolNumber)
		dialed <- err
	}()
	server := ourAccept(t, l, 20*time.Second)
	if err := <-dialed; err != nil {
		t.Fatalf("gVisor dial: %v", err)
	}
	defer client.Close()
	stackMu.Lock()
	snd, rcv := conns[server.i].sndShift, conns[server.i].rcvShift
	stackMu.Unlock()
	if snd == 0 || rcv != tcpRcvShift {
		t.Errorf("shifts with gVisor: send %d receive %d, want gVisor's (>0) and %d", snd, rcv, tcpRcvShift)
	}
	data := randomBytes(3*tcpRxSize, 7)
	go func() {
		client.Write(data)
		client.CloseWrite()
	}()
	if err := waitLocked(10*time.Second, "a full receive ring", func() bool { return conns[server.i].rx.n == tcpRxSize }); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(server)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read %d of %d bytes, equal %v, err %v", len(got), len(data), bytes.Equal(got, data), err)
	}
}
