package gpio

import (
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// A request is what GPIO_V2_GET_LINE_IOCTL makes (gpiolib-cdev's struct
// linereq): lines of one chip, held for one program until its file is
// closed, and a ring of the edge events seen on them that read(2) takes.

// MaxEvents bounds a request's ring. Linux's is num_lines*16 by default
// and at most GPIO_V2_LINES_MAX*16; this one keeps the default's order
// in less memory, and a full ring drops its oldest event, as Linux's.
const MaxEvents = 256

// Event ids (GPIO_V2_LINE_EVENT_*).
const (
	EventRising  = 1
	EventFalling = 2
)

// Event is an edge event as read(2) gives it (struct gpio_v2_line_event,
// less its padding).
type Event struct {
	Nanos   uint64 // CLOCK_MONOTONIC, or CLOCK_REALTIME when the line asks
	ID      uint32
	Offset  uint32 // the line's offset on its chip
	Seq     uint32 // in the request
	LineSeq uint32 // on the line
}

// Request is a line request.
type Request struct {
	Used    bool
	Chip    int
	N       int
	Offsets [MaxLines]uint8
	Seq     uint32
	W       vfs.Waitable // readable while events wait

	ring       [MaxEvents]Event
	head, size int
	cap        int
}

// Requests are the requests open.
var Requests [MaxRequests]Request

// Config is a request's configuration, per line in request order.
type Config struct {
	Flags    [MaxLines]Flags
	Values   uint64           // the outputs' logical values, bit per line
	Debounce [MaxLines]uint32 // µs; 0: none
}

// Request takes lines offsets of chip c for consumer (NUL-padded) with
// config cfg, already validated, and an event ring of ringSize (0: the
// default, 16 per line). It answers as linereq_create: EINVAL for an
// offset past the chip's lines, EBUSY for a line held already (by this
// request too), ENOMEM with every request slot in use.
func NewRequest(c int, offsets []uint32, consumer *[NameLen]byte, cfg *Config, ringSize int) (int, unix.Errno) {
	ch := &Chips[c]
	for k, o := range offsets {
		if int(o) >= ch.NLines {
			return -1, unix.EINVAL
		}
		if ch.Lines[o].Req != 0 {
			return -1, unix.EBUSY
		}
		for _, p := range offsets[:k] {
			if p == o {
				return -1, unix.EBUSY
			}
		}
	}
	r := -1
	for k := range Requests {
		if !Requests[k].Used {
			r = k
			break
		}
	}
	if r < 0 {
		return -1, unix.ENOMEM
	}
	if ringSize == 0 {
		ringSize = 16 * len(offsets)
	}
	q := &Requests[r]
	*q = Request{Used: true, Chip: c, N: len(offsets), cap: min(ringSize, MaxEvents)}
	for k, o := range offsets {
		q.Offsets[k] = uint8(o)
		l := &ch.Lines[o]
		*l = Line{Req: int8(r + 1), Consumer: *consumer}
		configure(c, int(o), cfg.Flags[k], cfg.Values>>k&1 != 0, cfg.Debounce[k])
		changed(c, int(o), ChangedRequested)
	}
	return r, 0
}

// Reconfigure applies cfg to request r's lines (linereq_set_config): the
// lines stay held, a line info change is reported for each.
func Reconfigure(r int, cfg *Config) {
	q := &Requests[r]
	for k := 0; k < q.N; k++ {
		configure(q.Chip, int(q.Offsets[k]), cfg.Flags[k], cfg.Values>>k&1 != 0, cfg.Debounce[k])
		changed(q.Chip, int(q.Offsets[k]), ChangedConfig)
	}
}

// Release frees request r and its lines (linereq_free).
func Release(r int) {
	q := &Requests[r]
	for k := 0; k < q.N; k++ {
		release(q.Chip, int(q.Offsets[k]))
		changed(q.Chip, int(q.Offsets[k]), ChangedReleased)
	}
	q.Used = false
	vfs.Notify(&q.W, unix.EPOLLIN|unix.EPOLLHUP)
}

// Values reads the logical values of request r's lines in mask (bit k:
// the request's line k).
func Values(r int, mask uint64) uint64 {
	q := &Requests[r]
	var bits uint64
	for k := 0; k < q.N; k++ {
		if mask>>k&1 != 0 && Value(q.Chip, int(q.Offsets[k])) {
			bits |= 1 << k
		}
	}
	return bits
}

// SetValues drives the lines of request r in mask to bits: EPERM, and
// nothing set, when one of them is not an output
// (linereq_set_values_unlocked).
func SetValues(r int, mask, bits uint64) unix.Errno {
	q := &Requests[r]
	ch := &Chips[q.Chip]
	for k := 0; k < q.N; k++ {
		if mask>>k&1 != 0 && !ch.Lines[q.Offsets[k]].Out {
			return unix.EPERM
		}
	}
	for k := 0; k < q.N; k++ {
		if mask>>k&1 != 0 {
			SetValue(q.Chip, int(q.Offsets[k]), bits>>k&1 != 0)
		}
	}
	return 0
}

// Pending says how many events request r holds.
func Pending(r int) int { return Requests[r].size }

// Peek returns request r's oldest event.
func Peek(r int) Event {
	q := &Requests[r]
	return q.ring[q.head]
}

// Take removes request r's oldest event.
func Take(r int) Event {
	q := &Requests[r]
	e := q.ring[q.head]
	q.head = (q.head + 1) % len(q.ring)
	q.size--
	return e
}

// Edge reports an edge the hardware detected on line of chip c, whose
// level is now high (physical) when high: its request gets an event,
// as edge_irq_thread makes it: rising or falling as the line's logical
// value now is when it watches both edges, the one edge it watches
// otherwise (the detector fired for nothing else, however short the
// pulse). A debounced line's edge only restarts its wait (debounce.go).
// A line no request watches is ignored.
func Edge(c, line int, high bool) {
	l := &Chips[c].Lines[line]
	if l.Req == 0 || l.Flags&Edges == 0 && l.Debounce == 0 {
		return
	}
	if l.Debounce != 0 {
		debounceEdge(c, line)
		return
	}
	// lab:gpio begin
	rising := l.Flags&EdgeRising != 0
	if l.Flags&Edges == Edges {
		rising = high != (l.Flags&ActiveLow != 0)
	}
	put(c, line, rising)
	// lab:gpio stub
	// // TODO(lab gpio): the edge's direction: by the logical level
	// // (high, inverted on an active-low line) when both edges are
	// // watched, else the one edge the line watches; then put it.
	// _ = high
	// lab:gpio end
}

// put makes a rising or falling edge of line of chip c an event in its
// request's ring (linereq_put_event).
func put(c, line int, rising bool) {
	l := &Chips[c].Lines[line]
	q := &Requests[l.Req-1]
	// lab:gpio begin
	id := uint32(EventFalling)
	if rising {
		id = EventRising
	}
	now := uint64(clock.Monotonic())
	if l.Flags&EventClockRealtime != 0 {
		now = uint64(clock.Realtime())
	}
	l.Seq++
	e := Event{Nanos: now, ID: id, Offset: uint32(line), LineSeq: l.Seq}
	if q.N == 1 {
		e.Seq = l.Seq // one line: the request's count is the line's (linereq_put_event's caller)
	} else {
		q.Seq++
		e.Seq = q.Seq
	}
	if q.size == q.cap { // full: the oldest goes (linereq_put_event)
		q.head = (q.head + 1) % len(q.ring)
		q.size--
	}
	q.ring[(q.head+q.size)%len(q.ring)] = e
	q.size++
	vfs.Notify(&q.W, unix.EPOLLIN)
	// lab:gpio stub
	// // TODO(lab gpio): the Event in q's ring: its id, its timestamp
	// // (clock.Monotonic, or clock.Realtime with EventClockRealtime),
	// // its offset, the line's sequence number and the request's (the
	// // line's own when the request has one line); drop the oldest event
	// // when the ring holds cap; then wake the request's readers and
	// // epoll (vfs.Notify on q.W, EPOLLIN).
	// _, _, _ = l, q, clock.Monotonic
	// lab:gpio end
}
