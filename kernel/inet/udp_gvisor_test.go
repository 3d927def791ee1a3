package inet

import (
	"bytes"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
)

// ourUDP opens and binds an endpoint on port (stackMu taken here).
func ourUDP(t *testing.T, port uint16) int32 {
	t.Helper()
	stackMu.Lock()
	defer stackMu.Unlock()
	i, e := OpenUDP(1)
	if e != 0 {
		t.Fatalf("OpenUDP: %v", e)
	}
	BindUDP(i, [4]byte{}, port)
	return i
}

// udpRecvWait waits for endpoint i's next datagram and takes it.
func udpRecvWait(t *testing.T, i int32) (src [4]byte, sport uint16, data []byte) {
	t.Helper()
	if err := waitLocked(10*time.Second, "a datagram", func() bool {
		s, p, a, b, ok := UDPRecv(i)
		if ok {
			src, sport, data = s, p, append(append([]byte(nil), a...), b...)
			UDPConsume(i)
		}
		return ok
	}); err != nil {
		t.Fatal(err)
	}
	return src, sport, data
}

// gVisor sends datagrams of every size that fits a frame to our
// endpoint, which sends each back to where it came from: the sender's
// address and port as the stack saw them, the data intact both ways.
// gVisor's first datagram finds our MAC by ARP; our first reply finds
// gVisor's from the ARP it learned (no datagram is held).
func TestUDPEchoGVisor(t *testing.T) {
	p := newTCPPeer(t, impairment{}, impairment{})

	us := ourUDP(t, 5353)
	c, err := gonet.DialUDP(p.s, &tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testGW), Port: 40000},
		&tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testIP), Port: 5353}, ipv4.ProtocolNumber)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, n := range []int{0, 1, 100, 1000, UDPIfacePayload} {
		msg := bytes.Repeat([]byte{byte(n)}, n)
		for i := range msg {
			msg[i] = byte(i * 7)
		}
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		src, sport, got := udpRecvWait(t, us)
		if src != testGW || sport != 40000 || !bytes.Equal(got, msg) {
			t.Fatalf("%d bytes: got %d from %v:%d", n, len(got), src, sport)
		}
		stackMu.Lock()
		copy(UDPSendBuf(src), got)
		e := UDPSend(us, src, sport, len(got))
		stackMu.Unlock()
		if e != 0 {
			t.Fatalf("UDPSend: %v", e)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		back := make([]byte, 2048)
		k, err := c.Read(back)
		if err != nil || !bytes.Equal(back[:k], msg) {
			t.Fatalf("%d bytes: echo %d, %v", n, k, err)
		}
	}
	stackMu.Lock()
	defer stackMu.Unlock()
	if e := UDPSend(us, testGW, 40000, UDPIfacePayload+1); e != unix.EMSGSIZE {
		t.Errorf("a datagram bigger than a frame: %v, want EMSGSIZE (no fragmentation)", e)
	}
	if e := UDPSend(us, [4]byte{192, 0, 2, 1}, 53, 10); e != unix.ENETUNREACH && If.Gateway == ([4]byte{}) {
		t.Errorf("off the subnet with no router: %v", e)
	}
}

// Datagrams to the loopback go from one endpoint to another whole, up to
// IPv4's largest, with the sender's port; a full queue drops and counts
// what does not fit and keeps what it has; nobody on the port counts it.
func TestUDPLoopback(t *testing.T) {
	newTCPPeer(t, impairment{}, impairment{})

	a, b := ourUDP(t, 7000), ourUDP(t, 7001)
	lo := [4]byte{127, 0, 0, 1}
	send := func(n int, fill byte) unix.Errno {
		stackMu.Lock()
		defer stackMu.Unlock()
		buf := UDPSendBuf(lo)
		for i := range n {
			buf[i] = fill + byte(i)
		}
		return UDPSend(a, lo, 7001, n)
	}
	if e := send(MaxUDPPayload, 1); e != 0 {
		t.Fatal(e)
	}
	src, sport, got := udpRecvWait(t, b)
	if src != lo || sport != 7000 || len(got) != MaxUDPPayload || got[0] != 1 || got[MaxUDPPayload-1] != byte(1+(MaxUDPPayload-1)%256) {
		t.Fatalf("got %d bytes from %v:%d", len(got), src, sport)
	}
	// Fill the queue: 96 KiB holds 11 datagrams of 8 KiB and records.
	sent := 0
	for sent = 0; sent < 20; sent++ {
		if e := send(8192, byte(sent)); e != 0 {
			t.Fatal(e)
		}
	}
	stackMu.Lock()
	drops := Stats.UDPRcvDrops
	stackMu.Unlock()
	if drops == 0 {
		t.Fatal("20 datagrams of 8 KiB fit a 96 KiB queue")
	}
	for i := 0; i < sent-int(drops); i++ {
		_, _, got := udpRecvWait(t, b)
		if len(got) != 8192 || got[0] != byte(i) {
			t.Fatalf("datagram %d: %d bytes starting %d", i, len(got), got[0])
		}
	}
	stackMu.Lock()
	noPort := Stats.NoPort
	UDPSend(a, lo, 7999, 1)
	if Stats.NoPort != noPort+1 {
		t.Errorf("a datagram to a port nobody has was not counted")
	}
	stackMu.Unlock()
}
