package inet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/link/channel"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/tcpip/transport/udp"
)

// The TCP host tests: this stack, compiled for the host, talks TCP to
// gVisor's netstack, the reference peer, over an in-memory Ethernet that
// can drop, duplicate, reorder and delay frames each way. In the kernel
// the kernel lock serializes the stack; here stackMu does: every call
// into it (a frame in, a timer, the socket calls) holds it.

var stackMu sync.Mutex

// impairment is what the link does to every frame one way.
type impairment struct {
	dropEvery, dupEvery, reorderEvery int
	burst                             int // frames dropped in a row (default 1)
	delay                             time.Duration
}

func (im impairment) String() string {
	s := ""
	for _, f := range []struct {
		name string
		n    int
	}{{"drop", im.dropEvery}, {"burst", im.burst}, {"dup", im.dupEvery}, {"reorder", im.reorderEvery}} {
		if f.n > 0 {
			s += fmt.Sprintf("%s 1/%d ", f.name, f.n)
		}
	}
	if im.delay > 0 {
		s += "delay " + im.delay.String()
	}
	if s == "" {
		return "clean"
	}
	return s
}

// lossyLink passes frames to deliver in order unless its impairment
// drops, duplicates, holds back (to go after the next) or delays them.
type lossyLink struct {
	im      impairment
	deliver func([]byte)
	mu      sync.Mutex
	n       int
	held    []byte
	burst   int // frames of a burst still to drop
}

func (l *lossyLink) send(f []byte) {
	l.mu.Lock()
	l.n++
	n := l.n
	var out [][]byte
	switch {
	case l.burst > 0:
		l.burst--
	case l.im.dropEvery > 0 && n%l.im.dropEvery == 0:
		l.burst = l.im.burst - 1
	case l.im.reorderEvery > 0 && n%l.im.reorderEvery == 0 && l.held == nil:
		l.held = f
	default:
		out = append(out, f)
		if l.im.dupEvery > 0 && n%l.im.dupEvery == 0 {
			out = append(out, f)
		}
		if l.held != nil {
			out = append(out, l.held)
			l.held = nil
		}
	}
	l.mu.Unlock()
	for _, f := range out {
		if l.im.delay > 0 {
			f := f
			time.AfterFunc(l.im.delay, func() { l.deliver(f) })
		} else {
			l.deliver(f)
		}
	}
}

// tcpPeer is gVisor with TCP on testGW, this stack on testIP, and a
// goroutine that runs this stack's timers.
type tcpPeer struct {
	s      *stack.Stack
	ch     *channel.Endpoint
	cancel context.CancelFunc
	done   sync.WaitGroup
}

func newTCPPeer(t *testing.T, out, in impairment) *tcpPeer {
	t.Helper()
	stackMu.Lock()
	reset(nil)
	resetTCP()
	resetUDP()
	SetStatic(testIP, testMask, testGW, [4]byte{})
	ISNSecret = rand.Uint64()
	start := time.Now()
	Now = func() int64 { return int64(time.Since(start)) + 1 }
	ArmTimer = nil
	Wake = nil
	stackMu.Unlock()

	p := &tcpPeer{}
	p.s, p.ch = gvisorStack(t, tcp.NewProtocol, udp.NewProtocol)

	toGVisor := &lossyLink{im: out, deliver: func(f []byte) {
		pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(f)})
		p.ch.InjectInbound(0, pkt)
		pkt.DecRef()
	}}
	toUs := &lossyLink{im: in, deliver: func(f []byte) {
		stackMu.Lock()
		Input(f, Now())
		stackMu.Unlock()
	}}
	// Transmit is called with stackMu held: gVisor gets the frame on
	// another goroutine, in order, so its answer cannot come back into
	// this call.
	outq := make(chan []byte, 8192)
	stackMu.Lock()
	Transmit = func(f []byte) bool {
		select {
		case outq <- append([]byte(nil), f...):
			return true
		default:
			return false // the device's queue is full
		}
	}
	stackMu.Unlock()

	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.done.Add(3)
	go func() {
		defer p.done.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case f := <-outq:
				toGVisor.send(f)
			}
		}
	}()
	go func() {
		defer p.done.Done()
		for {
			pkt := p.ch.ReadContext(ctx)
			if pkt == nil {
				return
			}
			toUs.send(append([]byte(nil), pkt.ToView().AsSlice()...))
			pkt.DecRef()
		}
	}()
	go func() {
		defer p.done.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			stackMu.Lock()
			if tcpTimerAt != 0 && Now() >= tcpTimerAt {
				Tick(Now())
			}
			stackMu.Unlock()
		}
	}()
	t.Cleanup(p.close)
	return p
}

func (p *tcpPeer) close() {
	p.cancel()
	p.done.Wait()
	p.s.Close()
}

// ourConn drives one of this stack's connections like a blocking socket,
// polling under stackMu.
type ourConn struct {
	i       int32
	timeout time.Duration
}

// locked runs f under stackMu until it reports done, or fails after the
// timeout.
func waitLocked(timeout time.Duration, what string, f func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		stackMu.Lock()
		ok := f()
		stackMu.Unlock()
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			stackMu.Lock()
			st := Stats
			stackMu.Unlock()
			return fmt.Errorf("%s: not within %v; stats %+v\n%s", what, timeout, st, dumpConns())
		}
		time.Sleep(500 * time.Microsecond)
	}
}

func (c *ourConn) Read(p []byte) (int, error) {
	var n int
	var eof bool
	var err error
	werr := waitLocked(c.timeout, "read", func() bool {
		a, b := TCPRecv(c.i)
		if len(a) > 0 {
			n = copy(p, a)
			if n < len(p) {
				n += copy(p[n:], b)
			}
			TCPConsume(c.i, uint32(n))
			return true
		}
		st := TCPStatus(c.i)
		if e := TCPError(c.i); e != 0 {
			err = e
			return true
		}
		eof = st.RcvFin || st.State == TCPClosed
		return eof
	})
	switch {
	case werr != nil:
		return 0, werr
	case err != nil:
		return 0, err
	case n == 0 && eof:
		return 0, io.EOF
	}
	return n, nil
}

func (c *ourConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		var err error
		werr := waitLocked(c.timeout, "write", func() bool {
			if e := TCPError(c.i); e != 0 {
				err = e
				return true
			}
			a, b := TCPSendRoom(c.i)
			if len(a) == 0 {
				if TCPStatus(c.i).State == TCPClosed {
					err = unix.EPIPE
					return true
				}
				return false
			}
			n := copy(a, p[done:])
			n += copy(b, p[done+n:])
			TCPCommit(c.i, uint32(n))
			done += n
			return true
		})
		if werr != nil {
			return done, werr
		}
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

func (c *ourConn) closeWrite() {
	stackMu.Lock()
	TCPShutdown(c.i, false, true)
	stackMu.Unlock()
}

func (c *ourConn) close() {
	stackMu.Lock()
	TCPClose(c.i)
	stackMu.Unlock()
}

func ourListen(t *testing.T, port uint16) int32 {
	t.Helper()
	stackMu.Lock()
	defer stackMu.Unlock()
	l, e := ListenTCP(port, 8, 1)
	if e != 0 {
		t.Fatalf("ListenTCP: %v", e)
	}
	return l
}

func ourAccept(t *testing.T, l int32, timeout time.Duration) *ourConn {
	t.Helper()
	var i int32 = -1
	if err := waitLocked(timeout, "accept", func() bool {
		i = AcceptTCP(l, 2)
		return i >= 0
	}); err != nil {
		t.Fatal(err)
	}
	return &ourConn{i: i, timeout: timeout}
}

func ourDial(t *testing.T, port uint16, timeout time.Duration) (*ourConn, error) {
	t.Helper()
	stackMu.Lock()
	i, e := ConnectTCP(testGW, port, 40000+uint16(rand.Intn(10000)), 3)
	stackMu.Unlock()
	if e != 0 {
		return nil, e
	}
	var err error
	if werr := waitLocked(timeout, "connect", func() bool {
		if e := TCPError(i); e != 0 {
			err = e
			return true
		}
		return TCPStatus(i).State == TCPEstablished
	}); werr != nil {
		return nil, werr
	}
	if err != nil {
		return nil, err
	}
	return &ourConn{i: i, timeout: timeout}, nil
}

func randomBytes(n int, seed int64) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

// echoPassive has gVisor connect to this stack's listener and send size
// bytes, which this stack echoes; gVisor half-closes, this stack sees
// EOF, closes, and gVisor sees EOF: both streams must be intact.
func echoPassive(t *testing.T, out, in impairment, size int, timeout time.Duration) {
	p := newTCPPeer(t, out, in)
	l := ourListen(t, 8080)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var client *gonet.TCPConn
	dialed := make(chan error, 1)
	go func() {
		var err error
		client, err = gonet.DialContextTCP(ctx, p.s, tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testIP), Port: 8080}, ipv4.ProtocolNumber)
		dialed <- err
	}()
	server := ourAccept(t, l, timeout)
	if err := <-dialed; err != nil {
		t.Fatalf("gVisor dial: %v", err)
	}
	defer client.Close()
	echoed := make(chan error, 1)
	go func() {
		_, err := io.Copy(server, server)
		if err == nil {
			server.close()
		}
		echoed <- err
	}()
	data := randomBytes(size, int64(size))
	go func() {
		if _, err := client.Write(data); err != nil {
			t.Errorf("gVisor write: %v", err)
		}
		client.CloseWrite()
	}()
	client.SetReadDeadline(time.Now().Add(timeout))
	got, err := io.ReadAll(client)
	if err != nil {
		stackMu.Lock()
		d := dumpConns()
		stackMu.Unlock()
		t.Fatalf("gVisor read after %d bytes: %v; stats %+v\n%s", len(got), err, Stats, d)
	}
	if e := <-echoed; e != nil {
		t.Fatalf("echo: %v", e)
	}
	if sha256.Sum256(got) != sha256.Sum256(data) {
		t.Fatalf("echoed %d bytes, sent %d: the streams differ", len(got), len(data))
	}
	// The close finishes: this side sent its FIN after gVisor's, so it
	// closes from LAST-ACK once gVisor acknowledges.
	if err := waitLocked(timeout, "close", func() bool { return !conns[server.i].used }); err != nil {
		t.Error(err)
	}
}

// gVisor connects, sends, and gets every byte back; the connection
// closes cleanly both ways.
func TestTCPEchoGVisorToUs(t *testing.T) {
	echoPassive(t, impairment{}, impairment{}, 1<<20, 30*time.Second)
	if Stats.TCPRetransmits != 0 || Stats.BadTCPSum != 0 {
		t.Errorf("clean link: stats %+v", Stats)
	}
}

// This stack connects to gVisor, which sends 256 KiB and closes; this
// stack reads it all and EOF, sends its own and closes; gVisor reads
// that and EOF.
func TestTCPDialGVisor(t *testing.T) {
	p := newTCPPeer(t, impairment{}, impairment{})
	ln, err := gonet.ListenTCP(p.s, tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testGW), Port: 9000}, ipv4.ProtocolNumber)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	down, up := randomBytes(256<<10, 1), randomBytes(100<<10, 2)
	gotUp := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Errorf("gVisor accept: %v", err)
			gotUp <- nil
			return
		}
		defer c.Close()
		c.Write(down)
		c.(*gonet.TCPConn).CloseWrite()
		b, _ := io.ReadAll(c)
		gotUp <- b
	}()
	c, err := ourDial(t, 9000, 10*time.Second)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	got, err := io.ReadAll(c)
	if err != nil || !bytes.Equal(got, down) {
		t.Fatalf("read %d of %d bytes, equal %v, err %v", len(got), len(down), bytes.Equal(got, down), err)
	}
	if _, err := c.Write(up); err != nil {
		t.Fatalf("write: %v", err)
	}
	c.close()
	if b := <-gotUp; !bytes.Equal(b, up) {
		t.Fatalf("gVisor read %d of %d bytes", len(b), len(up))
	}
	// This side closed second (from CLOSE-WAIT): LAST-ACK, then gone.
	if err := waitLocked(10*time.Second, "close", func() bool { return !conns[c.i].used }); err != nil {
		t.Error(err)
	}
}

// A connection to a port nobody listens on is refused both ways: this
// stack answers gVisor's SYN with a reset, and takes gVisor's reset as
// ECONNREFUSED.
func TestTCPRefused(t *testing.T) {
	p := newTCPPeer(t, impairment{}, impairment{})
	_, err := gonet.DialTCP(p.s, tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testIP), Port: 81}, ipv4.ProtocolNumber)
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) && err.Error() != (&tcpip.ErrConnectionRefused{}).String() {
		var oe *net.OpError
		if !errors.As(err, &oe) || oe.Err.Error() != (&tcpip.ErrConnectionRefused{}).String() {
			t.Errorf("gVisor dialing a closed port of ours: %v, want connection refused", err)
		}
	}
	if Stats.TCPNoConn == 0 || Stats.TCPResetsOut == 0 {
		t.Errorf("stats %+v: want the SYN counted and answered with a reset", Stats)
	}
	if _, err := ourDial(t, 82, 10*time.Second); err != unix.ECONNREFUSED {
		t.Errorf("dialing gVisor's closed port: %v, want ECONNREFUSED", err)
	}
}

// Over a link that drops, duplicates, reorders and delays frames each
// way, 1 MiB still goes and comes back intact: retransmission (timeout
// and fast), duplicate and out-of-order segments all run.
func TestTCPEchoLossyLink(t *testing.T) {
	cases := []struct{ out, in impairment }{
		{impairment{dropEvery: 25}, impairment{dropEvery: 30}},
		{impairment{dupEvery: 5, reorderEvery: 9}, impairment{dupEvery: 6, reorderEvery: 4}},
		{impairment{dropEvery: 40, dupEvery: 17, reorderEvery: 5, delay: time.Millisecond}, impairment{dropEvery: 50, reorderEvery: 7, delay: time.Millisecond}},
		// Bursts that NewReno's one retransmission per RTT cannot mend
		// alone: the retransmission timer's go-back runs.
		{impairment{dropEvery: 60, burst: 4, dupEvery: 150}, impairment{dropEvery: 70, burst: 3, dupEvery: 150}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("out %v, in %v", tc.out, tc.in), func(t *testing.T) {
			echoPassive(t, tc.out, tc.in, 1<<20, 120*time.Second)
			t.Logf("stats: retransmits %d, fast %d, dup ACKs %d, out of order %d, out of window %d",
				Stats.TCPRetransmits, Stats.TCPFastRetransmits, Stats.TCPDupAcks, Stats.TCPOutOfOrder, Stats.TCPOutOfWindow)
			if tc.out.dropEvery > 0 && Stats.TCPRetransmits+Stats.TCPFastRetransmits == 0 {
				t.Errorf("frames were dropped but nothing was retransmitted")
			}
		})
	}
}

// A listener whose backlog is full drops further SYNs (gVisor's dial
// then times out) and takes connections again once accept makes room.
func TestTCPBacklogFullAndRecovers(t *testing.T) {
	p := newTCPPeer(t, impairment{}, impairment{})
	stackMu.Lock()
	l, e := ListenTCP(8081, 2, 1)
	stackMu.Unlock()
	if e != 0 {
		t.Fatal(e)
	}
	dial := func(d time.Duration) (*gonet.TCPConn, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		return gonet.DialContextTCP(ctx, p.s, tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testIP), Port: 8081}, ipv4.ProtocolNumber)
	}
	var held []*gonet.TCPConn
	for i := 0; i < 2; i++ {
		c, err := dial(10 * time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		held = append(held, c)
	}
	if _, err := dial(500 * time.Millisecond); err == nil {
		t.Fatalf("a third connection got through a backlog of 2")
	}
	if Stats.TCPListenDrops == 0 {
		t.Errorf("stats %+v: want dropped SYNs counted", Stats)
	}
	ourAccept(t, l, 5*time.Second).close()
	c, err := dial(10 * time.Second)
	if err != nil {
		t.Fatalf("after accept made room: %v", err)
	}
	c.Close()
	for _, c := range held {
		c.Close()
	}
}

// dumpConns describes every connection in use (stackMu held).
func dumpConns() string {
	s := ""
	n := Now()
	for i := range conns {
		c := &conns[i]
		if !c.used {
			continue
		}
		s += fmt.Sprintf("conn %d: state %d una %d nxt %d max %d wnd %d cwnd %d ssthresh %d rto %v rtx in %v retries %d tx %d rx %d rcvNxt %d adv %d ooo %v fin %v/%v\n",
			i, c.state, c.sndUna-c.iss, c.sndNxt-c.iss, c.sndMax-c.iss, c.sndWnd, c.cwnd, c.ssthresh, time.Duration(c.rto), time.Duration(c.rtxAt-n), c.retries, c.tx.n, c.rx.n, c.rcvNxt-c.irs, c.rcvAdv-c.rcvNxt, c.ooo[:c.nooo], c.finQueued, c.rcvFin)
	}
	return s
}

// A SYN for the identity of a connection in TIME-WAIT opens a new one
// (RFC 6191): gVisor dials again from the same port at once.
func TestTCPSynReopensTimeWait(t *testing.T) {
	p := newTCPPeer(t, impairment{}, impairment{})
	l := ourListen(t, 8082)
	from := tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testGW), Port: 41000}
	to := tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testIP), Port: 8082}
	for round := 0; round < 2; round++ {
		c, err := dialFromPort(p, from, to, 10*time.Second)
		if err != nil {
			t.Fatalf("round %d: dial: %v", round, err)
		}
		ours := ourAccept(t, l, 10*time.Second)
		// This side closes first, so it is the one in TIME-WAIT.
		ours.close()
		if _, err := io.ReadAll(c); err != nil {
			t.Fatalf("round %d: read: %v", round, err)
		}
		c.Close()
		if err := waitLocked(10*time.Second, "TIME-WAIT", func() bool { return conns[ours.i].state == TCPTimeWait }); err != nil {
			t.Fatal(err)
		}
	}
	// Taken as a new connection, the second SYN was neither answered as
	// out of the window nor cleared away by gVisor's reset.
	if Stats.TCPOutOfWindow != 0 || Stats.TCPResetsIn != 0 {
		t.Errorf("stats %+v: the SYN in TIME-WAIT went out of the window or met a reset", Stats)
	}
}

// dialFromPort dials to from the fixed local address from. gVisor closes
// second here (it got this stack's FIN first), so after Close its
// endpoint sits in LAST-ACK, holding the port, until its own goroutine
// has taken this stack's last ACK (RFC 9293 §3.6): that can be after this
// stack is already in TIME-WAIT. So a bind that finds the port in use is
// tried again until the deadline, not taken as the stack's fault.
func dialFromPort(p *tcpPeer, from, to tcpip.FullAddress, d time.Duration) (*gonet.TCPConn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	inUse := (&tcpip.ErrPortInUse{}).String()
	for {
		c, err := gonet.DialTCPWithBind(ctx, p.s, from, to, ipv4.ProtocolNumber)
		if err == nil || !strings.Contains(err.Error(), inUse) || ctx.Err() != nil {
			return c, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// With no memory for a connection's rings, a SYN is dropped and counted
// (the client retries, as for a full backlog) while the listener, which
// has no rings, stays; with memory back, the next dial gets through.
func TestTCPOutOfMemoryDropsSYN(t *testing.T) {
	p := newTCPPeer(t, impairment{}, impairment{})
	l := ourListen(t, 8083)
	stackMu.Lock()
	mapBuffers := MapBuffers
	MapBuffers = func(int32) uintptr { return 0 }
	stackMu.Unlock()
	dial := func(d time.Duration) (*gonet.TCPConn, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		return gonet.DialContextTCP(ctx, p.s, tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testIP), Port: 8083}, ipv4.ProtocolNumber)
	}
	if c, err := dial(500 * time.Millisecond); err == nil {
		c.Close()
		t.Fatal("a connection was made with no memory for its rings")
	}
	stackMu.Lock()
	MapBuffers = mapBuffers
	dropped := Stats.TCPNoMemory
	stackMu.Unlock()
	if dropped == 0 {
		t.Errorf("stats %+v: want the SYNs dropped for memory counted", Stats)
	}
	c, err := dial(10 * time.Second)
	if err != nil {
		t.Fatalf("with memory back: %v", err)
	}
	ourAccept(t, l, 5*time.Second).close()
	c.Close()
}

// An abortive close (SO_LINGER 0 s) sends a RST at once, with data
// still unsent: gVisor's read fails with a reset, not EOF, and this
// stack's connection is gone without a TIME-WAIT.
func TestTCPAbortResetsGVisor(t *testing.T) {
	p := newTCPPeer(t, impairment{}, impairment{})
	ln, err := gonet.ListenTCP(p.s, tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testGW), Port: 9001}, ipv4.ProtocolNumber)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	readErr := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			readErr <- err
			return
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = io.ReadAll(c)
		readErr <- err
	}()
	c, err := ourDial(t, 9001, 10*time.Second)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	resets := Stats.TCPResetsOut
	stackMu.Lock()
	TCPAbort(c.i)
	used := conns[c.i].used
	stackMu.Unlock()
	if used || Stats.TCPResetsOut != resets+1 {
		t.Errorf("after TCPAbort: slot used %v, resets sent %d (want 1)", used, Stats.TCPResetsOut-resets)
	}
	err = <-readErr
	if err == nil || !strings.Contains(err.Error(), (&tcpip.ErrConnectionReset{}).String()) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("gVisor's read after our abort: %v, want connection reset", err)
	}
}
