package inet

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
	"golang.org/x/sys/unix"
)

// TCP (RFC 9293, which gathers RFC 793 and its corrections): the
// connection table, sequence arithmetic and the constants every part of
// the protocol shares. A connection is a slot of a fixed table; its two
// byte rings are pages the kernel maps for the slot while it is in use
// (MapBuffers); the socket layer above names it by index.
// tcp_input.go is "SEGMENT ARRIVES" (RFC 9293 §3.10.7), tcp_output.go
// what leaves, tcp_timer.go the timers, tcp_socket.go the calls the
// socket layer makes.

const (
	ipProtoTCP   = 6
	tcpHeaderLen = 20 // without options

	// Header flags (RFC 9293 §3.1, "Control bits").
	tcpFIN = 0x01
	tcpSYN = 0x02
	tcpRST = 0x04
	tcpPSH = 0x08
	tcpACK = 0x10
	tcpURG = 0x20

	// Options (RFC 9293 §3.2; the kinds in IANA's registry).
	tcpOptEnd    = 0
	tcpOptNOP    = 1
	tcpOptMSS    = 2
	tcpOptMSSLen = 4
	// Window scale (RFC 7323 §2.2): kind 3, length 3, the shift count;
	// sent after a NOP so the header stays a multiple of 4 bytes (§2.2's
	// own example, "1,3,3,S").
	tcpOptWS    = 3
	tcpOptWSLen = 3
	// tcpMaxShift is the largest shift a peer may name; a larger one is
	// taken as 14 (RFC 7323 §2.3).
	tcpMaxShift = 14

	// MaxConns bounds the connections: listeners, and connections in
	// every state but CLOSED (TIME-WAIT included, until reused). A slot
	// costs its table entry always and its rings only while in use.
	MaxConns = 1024
	// tcpRxSize and tcpTxSize are each connection's receive and send
	// rings. The receive window is what the receive ring has free. Its
	// field holds at most tcpMaxWnd; with window scaling agreed (RFC
	// 7323 §2: both SYNs carried the option) it is the window shifted
	// right by tcpRcvShift, the least shift that lets the whole ring be
	// offered (TestWindowShiftFitsRing checks it against tcpRxSize).
	tcpRxSize   = 64 << 10
	tcpTxSize   = 32 << 10
	tcpMaxWnd   = 65535
	tcpRcvShift = 1
	// TCPBufBytes is a connection's two rings, receive then send: what
	// MapBuffers maps for a slot.
	TCPBufBytes = tcpRxSize + tcpTxSize

	// tcpMSS is what this stack receives in one segment: the Ethernet
	// MTU less option-less IPv4 and TCP headers (RFC 9293 §3.7.1).
	tcpMSS = maxIPPayload - tcpHeaderLen
	// tcpDefaultMSS is the peer's when its SYN names none (RFC 9293
	// §3.7.1: 536 for IPv4).
	tcpDefaultMSS = 536

	// Retransmission timeout (RFC 6298): the first is 1 s (§2.1); the
	// floor is Linux's TCP_RTO_MIN, 200 ms, lower than §2.4's 1 s as
	// every current stack's is; the ceiling Linux's TCP_RTO_MAX.
	tcpInitRTO = 1e9
	tcpMinRTO  = 200e6
	tcpMaxRTO  = 120e9
	// Retries before a connection gives up (Linux's defaults:
	// tcp_syn_retries, tcp_synack_retries, tcp_retries2).
	tcpSynRetries    = 6
	tcpSynAckRetries = 5
	tcpDataRetries   = 15
	// tcpDelayedAck is how long an ACK may wait for data to ride on:
	// RFC 1122 §4.2.3.2 allows up to 500 ms; Linux's TCP_DELACK_MIN.
	tcpDelayedAck = 40e6
	// tcpTimeWait is 2·MSL (RFC 9293 §3.4.2), as Linux's
	// TCP_TIMEWAIT_LEN; tcpFinTimeout bounds an orphaned FIN-WAIT-2
	// (Linux's tcp_fin_timeout).
	tcpTimeWait   = 60e9
	tcpFinTimeout = 60e9
	// tcpInitCwnd is the initial congestion window in segments (RFC
	// 6928).
	tcpInitCwnd = 10
	// Keep-alive defaults (RFC 1122 §4.2.3.6: off unless asked, idle at
	// least two hours by default, which Linux keeps; Go asks for 15 s).
	tcpKeepIdle  = 7200e9
	tcpKeepIntvl = 75e9
	tcpKeepCnt   = 9
	// The keep-alive defaults as the socket layer reports them
	// (getsockopt of an option never set).
	TCPKeepIdleDefault  = tcpKeepIdle
	TCPKeepIntvlDefault = tcpKeepIntvl
	TCPKeepCntDefault   = tcpKeepCnt
	// TCPBacklogMax is the longest listen queue: listen(2)'s backlog is
	// cut to it, as Linux cuts it to net.core.somaxconn.
	TCPBacklogMax = 128
)

// TCPState is a connection's state (RFC 9293 §3.3.2).
type TCPState uint8

const (
	TCPClosed TCPState = iota
	TCPListen
	TCPSynSent
	TCPSynRcvd
	TCPEstablished
	TCPFinWait1
	TCPFinWait2
	TCPCloseWait
	TCPClosing
	TCPLastAck
	TCPTimeWait
)

// String is the state's name as RFC 9293 writes it.
func (s TCPState) String() string {
	switch s {
	case TCPClosed:
		return "CLOSED"
	case TCPListen:
		return "LISTEN"
	case TCPSynSent:
		return "SYN-SENT"
	case TCPSynRcvd:
		return "SYN-RECEIVED"
	case TCPEstablished:
		return "ESTABLISHED"
	case TCPFinWait1:
		return "FIN-WAIT-1"
	case TCPFinWait2:
		return "FIN-WAIT-2"
	case TCPCloseWait:
		return "CLOSE-WAIT"
	case TCPClosing:
		return "CLOSING"
	case TCPLastAck:
		return "LAST-ACK"
	case TCPTimeWait:
		return "TIME-WAIT"
	}
	return "?"
}

// ring is a byte ring over a connection's buffer: n bytes from head.
type ring struct{ head, n uint32 }

// tcpConn is one connection: its transmission control block (RFC 9293
// §3.3.1) and what the socket above it sees.
type tcpConn struct {
	used  bool
	state TCPState
	lport uint16
	rport uint16
	rip   [4]byte
	rmac  [6]byte // the neighbour segments go to (the peer, or the gateway)
	macOK bool

	// owner is the socket's index for Wake, -1 once the app has closed
	// it (an orphan finishing its close) or before accept gives it one.
	owner int32
	// parent is the listener a passive open came from, until accept
	// takes it; queued says it is established and waits for accept, in
	// the order of order.
	parent int32
	queued bool
	order  uint32
	// A listener's backlog and how many children count against it.
	backlog, children int

	err       unix.Errno // pending error (SO_ERROR), reported once
	nodelay   bool       // TCP_NODELAY: no Nagle
	keepalive bool       // SO_KEEPALIVE
	keepIdle  int64
	keepIntvl int64
	keepCnt   int

	// Send sequence space (RFC 9293 §3.3.1, Figure 3). sndMax is the
	// highest sequence sent: a retransmission moves sndNxt back.
	iss, sndUna, sndNxt, sndMax, sndWnd, sndWl1, sndWl2 uint32
	maxWnd                                              uint32 // the largest window the peer offered
	mss                                                 uint32 // the peer's
	// Window scaling (RFC 7323 §2): sndShift scales the peer's window
	// fields, rcvShift ours; both 0 unless both SYNs carried the
	// option. wsOffered: the peer's SYN did, so our SYN-ACK does too.
	sndShift, rcvShift uint8
	wsOffered          bool
	txSeq              uint32 // sequence of tx's first byte
	finQueued          bool   // the app is done sending: FIN after tx
	shutRd             bool

	// Receive sequence space.
	irs, rcvNxt, rcvAdv uint32 // rcvAdv: the window's right edge as last advertised
	rcvFin              bool
	ooo                 [tcpOOORanges]seqRange // data kept past a hole (tcp_reassembly.go)
	nooo                uint8

	// Congestion control (RFC 5681; NewReno recovery, RFC 6582).
	cwnd, ssthresh, recover uint32
	dupAcks                 int
	inRecovery              bool

	// Round-trip time (RFC 6298): one segment timed at a time, none that
	// was retransmitted (Karn's algorithm, §3).
	srtt, rttvar, rto int64
	rttSeq            uint32
	rttAt             int64

	// Timers, as times in ns (0: not armed). rtxAt is retransmission,
	// the SYN's and the zero-window probe's (persist) alike.
	rtxAt, ackAt, waitAt, keepAt int64
	retries, probes              int
	unacked                      int  // segments received since our last ACK
	ackNow                       bool // an ACK is owed once the segment is processed
	lastHeard                    int64

	rx, tx ring
	// bufs is where the slot's rings are mapped (MapBuffers), receive
	// then send; 0 for a listener, which has none.
	bufs uintptr
}

var (
	conns [MaxConns]tcpConn
	// acceptOrder numbers children as they become established, so
	// accept takes the oldest.
	acceptOrder uint32
	// ISNSecret keys the initial sequence numbers (RFC 6528); the
	// kernel sets it from its entropy source at boot.
	ISNSecret uint64
)

// Wake is set by the socket layer: conn's owner's readiness changed
// (events: what it is now). It takes scalars: a hook passes no pointers.
var Wake func(owner int32, events uint32)

// MapBuffers is set by the kernel: map TCPBufBytes of zeroed memory
// for slot's rings and return where (0: out of memory). Slots are the
// TCP table's, then the UDP endpoints' (MaxConns + endpoint). The same slot
// gets the same address each time. UnmapBuffers gives them back.
// Scalars only: a hook passes no pointers.
var (
	MapBuffers   func(slot int32) uintptr
	UnmapBuffers func(slot int32)
)

// ArmTimer is set by the kernel: call Tick at when (ns), or earlier.
var ArmTimer func(when int64)

// Now is set by the kernel: the monotonic time in ns, as Input's now.
var Now func() int64

// Sequence numbers compare modulo 2^32 (RFC 9293 §3.4).
func seqLT(a, b uint32) bool { return int32(a-b) < 0 }
func seqLE(a, b uint32) bool { return int32(a-b) <= 0 }
func seqGT(a, b uint32) bool { return int32(a-b) > 0 }
func seqGE(a, b uint32) bool { return int32(a-b) >= 0 }

func min32(a, b uint32) uint32 {
	if a < b {
		return a
	}
	return b
}

func max32(a, b uint32) uint32 {
	if a > b {
		return a
	}
	return b
}

// connAt returns connection i, or nil for an index out of range or free.
func connAt(i int32) *tcpConn {
	if i < 0 || i >= MaxConns || !conns[i].used {
		return nil
	}
	return &conns[i]
}

func connIndex(c *tcpConn) int32 {
	return int32((uintptr(unsafe.Pointer(c)) - uintptr(unsafe.Pointer(&conns[0]))) / unsafe.Sizeof(conns[0]))
}

// ringBytes is n bytes at a buffer slot's address (MapBuffers).
func ringBytes(at uintptr, n int) []byte { return unsafe.Slice((*byte)(cpu.Ptr(at)), n) }

// rxBuf and txBuf are c's rings, in the pages mapped for its slot.
func (c *tcpConn) rxBuf() []byte { return ringBytes(c.bufs, tcpRxSize) }

func (c *tcpConn) txBuf() []byte { return ringBytes(c.bufs+tcpRxSize, tcpTxSize) }

// newConn takes a free slot, or the TIME-WAIT connection closest to its
// end when none is free: a full table drops TIME-WAIT early, as Linux
// does past net.ipv4.tcp_max_tw_buckets. A connection that carries data
// (not a listener: rings is false) gets its rings; out of memory, it is
// not made (Stats.TCPNoMemory).
func newConn(rings bool) *tcpConn {
	var tw *tcpConn
	var c *tcpConn
	for i := range conns {
		if !conns[i].used {
			c = &conns[i]
			break
		}
		if conns[i].state == TCPTimeWait && (tw == nil || conns[i].waitAt < tw.waitAt) {
			tw = &conns[i]
		}
	}
	if c == nil && tw != nil {
		Stats.TCPTimeWaitReused++
		c = tw
	}
	if c == nil {
		return nil
	}
	bufs := c.bufs
	switch {
	case rings && bufs == 0:
		if MapBuffers != nil {
			bufs = MapBuffers(connIndex(c))
		}
		if bufs == 0 {
			Stats.TCPNoMemory++
			c.release()
			return nil
		}
	case !rings && bufs != 0:
		c.release()
		bufs = 0
	}
	*c = tcpConn{used: true, owner: -1, parent: -1, mss: tcpDefaultMSS, rto: tcpInitRTO,
		keepIdle: tcpKeepIdle, keepIntvl: tcpKeepIntvl, keepCnt: tcpKeepCnt, bufs: bufs}
	return c
}

// release gives back c's slot, and its rings.
func (c *tcpConn) release() {
	if c.bufs != 0 && UnmapBuffers != nil {
		UnmapBuffers(connIndex(c))
	}
	*c = tcpConn{state: TCPClosed}
}

// free gives c's slot back; its owner, if any, has let go of it.
func (c *tcpConn) free() { c.release() }

// lookup finds the connection a segment from rip:rport to lport belongs
// to: an exact match first, else a listener on lport (RFC 9293 §3.10.7).
func lookup(lport uint16, rip [4]byte, rport uint16) *tcpConn {
	var l *tcpConn
	for i := range conns {
		c := &conns[i]
		if !c.used || c.lport != lport || c.state == TCPClosed {
			continue
		}
		if c.state == TCPListen {
			l = c
			continue
		}
		if c.rport == rport && c.rip == rip {
			return c
		}
	}
	return l
}

// isn chooses an initial sequence number as RFC 6528 §3 does: a clock
// ticking every 4 µs plus a keyed hash of the connection's identity, so
// that a new incarnation starts above an old one's sequence numbers and
// an off-path attacker cannot guess it. The hash is a 64-bit mix
// (SplitMix64's finalizer) over the key, not the RFC's cryptographic
// PRF: it keeps sequence numbers apart, not secret against a determined
// attacker.
func isn(lport uint16, rip [4]byte, rport uint16, now int64) uint32 {
	x := ISNSecret ^ uint64(lport)<<48 ^ uint64(rport)<<32 ^ uint64(rip[0])<<24 ^ uint64(rip[1])<<16 ^ uint64(rip[2])<<8 ^ uint64(rip[3])
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return uint32(now/4000) + uint32(x)
}

// wake tells c's owner its readiness changed.
func (c *tcpConn) wake() {
	if c.owner >= 0 && Wake != nil {
		Wake(c.owner, c.poll())
	}
}

// armAt arms one of c's timers for when and makes sure Tick runs by
// then.
func armAt(t *int64, when int64) {
	*t = when
	if when != 0 && (tcpTimerAt == 0 || when < tcpTimerAt) {
		tcpTimerAt = when
		if ArmTimer != nil {
			ArmTimer(when)
		}
	}
}

// tcpTimerAt is when Tick was last asked for (0: not asked).
var tcpTimerAt int64

// resetTCP empties the connection table (host tests).
func resetTCP() {
	for i := range conns {
		if conns[i].used || conns[i].bufs != 0 {
			conns[i].release()
		}
	}
	tcpTimerAt = 0
	acceptOrder = 0
}
