package gpio

import (
	"testing"

	"golang.org/x/sys/unix"
)

// reset empties the tables and registers a mockup chip of n lines.
func reset(t *testing.T, n int) int {
	t.Helper()
	Chips, NChips, Requests, Watchers, Mock = [MaxChips]Chip{}, 0, [MaxRequests]Request{}, [MaxWatchers]Watcher{}, Mockup{}
	c := RegisterMockup(n, true)
	if c != 0 {
		t.Fatalf("RegisterMockup = %d", c)
	}
	return c
}

func request(t *testing.T, c int, offsets []uint32, flags ...Flags) int {
	t.Helper()
	var cfg Config
	for k, f := range flags {
		cfg.Flags[k] = f
	}
	consumer := [NameLen]byte{'t'}
	r, e := NewRequest(c, offsets, &consumer, &cfg, 0)
	if e != 0 {
		t.Fatalf("NewRequest(%v): %v", offsets, e)
	}
	return r
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		f    Flags
		want unix.Errno
	}{
		{0, 0},
		{Input, 0},
		{Output | OpenDrain | BiasPullUp | ActiveLow, 0},
		{Input | Edges | BiasDisabled | EventClockRealtime, 0},
		{Used | Input, unix.EINVAL},
		{Input | Output, unix.EINVAL},
		{EdgeRising, unix.EINVAL},
		{Output | EdgeFalling, unix.EINVAL},
		{Input | OpenDrain, unix.EINVAL},
		{Output | Drive, unix.EINVAL},
		{BiasPullUp, unix.EINVAL},
		{Input | BiasPullUp | BiasPullDown, unix.EINVAL},
		{Input | BiasDisabled | BiasPullDown, unix.EINVAL},
		{Input | EventClockHTE, unix.EOPNOTSUPP},
		{1 << 13, unix.EINVAL},
	} {
		if got := Validate(tc.f); got != tc.want {
			t.Errorf("Validate(%#x) = %v, want %v", uint64(tc.f), got, tc.want)
		}
	}
}

func TestRequestHoldsLines(t *testing.T) {
	c := reset(t, 8)
	r := request(t, c, []uint32{1, 2}, Output, Input)
	var cfg Config
	consumer := [NameLen]byte{'x'}
	for _, offsets := range [][]uint32{{2}, {3, 3}} {
		if _, e := NewRequest(c, offsets, &consumer, &cfg, 0); e != unix.EBUSY {
			t.Errorf("NewRequest(%v) = %v, want EBUSY", offsets, e)
		}
	}
	if _, e := NewRequest(c, []uint32{8}, &consumer, &cfg, 0); e != unix.EINVAL {
		t.Errorf("offset past the chip: %v, want EINVAL", e)
	}
	in := LineInfo(c, 1)
	if in.Flags != Used|Output || in.Consumer[0] != 't' {
		t.Errorf("line 1 info %#x %q", uint64(in.Flags), in.Consumer[:1])
	}
	if e := SetValues(r, 0b11, 0b11); e != unix.EPERM {
		t.Errorf("setting an input: %v, want EPERM", e)
	}
	if e := SetValues(r, 0b01, 0b01); e != 0 || Values(r, 0b11) != 0b01 {
		t.Errorf("set line 1: %v, values %b", e, Values(r, 0b11))
	}
	Release(r)
	if in := LineInfo(c, 1); in.Flags != Output {
		t.Errorf("released line 1 info %#x, want an unused output", uint64(in.Flags))
	}
	request(t, c, []uint32{2})
}

func TestActiveLowAndOpenDrain(t *testing.T) {
	c := reset(t, 4)
	r := request(t, c, []uint32{0, 1}, Output|ActiveLow, Output|OpenDrain)
	SetValues(r, 0b11, 0b11)
	if Mock.Get(0) || Mock.IsOutput(1) {
		t.Errorf("active-low 1 drives %v; open-drain 1 output %v (want low, floating)", Mock.Get(0), Mock.IsOutput(1))
	}
	if got := Values(r, 0b01); got != 0b01 {
		t.Errorf("active-low value %b, want 1", got)
	}
	SetValues(r, 0b10, 0)
	if !Mock.IsOutput(1) || Mock.Get(1) {
		t.Errorf("open-drain 0: output %v level %v, want driven low", Mock.IsOutput(1), Mock.Get(1))
	}
}

func TestEdgeEvents(t *testing.T) {
	c := reset(t, 4)
	r := request(t, c, []uint32{2, 3}, Input|Edges, Input|EdgeRising|ActiveLow)
	Mock.Pull(2, true)
	Mock.Pull(2, false)
	Mock.Pull(3, true)  // a physical rise is a logical fall: not watched
	Mock.Pull(3, false) // a logical rise
	Mock.Pull(0, true)  // no request
	want := []Event{{ID: EventRising, Offset: 2, Seq: 1, LineSeq: 1}, {ID: EventFalling, Offset: 2, Seq: 2, LineSeq: 2},
		{ID: EventRising, Offset: 3, Seq: 3, LineSeq: 1}}
	if Pending(r) != len(want) {
		t.Fatalf("%d events, want %d", Pending(r), len(want))
	}
	var last uint64
	for _, w := range want {
		e := Take(r)
		if e.Nanos < last {
			t.Errorf("timestamps go back: %d after %d", e.Nanos, last)
		}
		last = e.Nanos
		e.Nanos = 0
		if e != w {
			t.Errorf("event %+v, want %+v", e, w)
		}
	}
}

func TestEventRingDropsOldest(t *testing.T) {
	c := reset(t, 1)
	var cfg Config
	cfg.Flags[0] = Input | Edges
	consumer := [NameLen]byte{'t'}
	r, _ := NewRequest(c, []uint32{0}, &consumer, &cfg, 4)
	for k := 0; k < 6; k++ {
		Mock.Pull(0, k%2 == 0)
	}
	if Pending(r) != 4 || Peek(r).LineSeq != 3 {
		t.Errorf("%d events, oldest %d; want 4 from the 3rd", Pending(r), Peek(r).LineSeq)
	}
}

func TestWatchers(t *testing.T) {
	c := reset(t, 4)
	w := NewWatcher(c)
	if e := Watch(w, 1, true); e != 0 {
		t.Fatal(e)
	}
	if e := Watch(w, 1, true); e != unix.EBUSY {
		t.Errorf("watching twice: %v, want EBUSY", e)
	}
	if e := Watch(w, 2, false); e != unix.EBUSY {
		t.Errorf("unwatching an unwatched line: %v, want EBUSY", e)
	}
	r := request(t, c, []uint32{1, 2}, Output, Output)
	var cfg Config
	cfg.Flags[0], cfg.Flags[1] = Input|BiasPullUp, Input
	Reconfigure(r, &cfg)
	Release(r)
	var types []uint32
	for Changes(w) > 0 {
		ch := TakeChange(w)
		if ch.Offset != 1 {
			t.Errorf("a change of unwatched line %d", ch.Offset)
		}
		types = append(types, ch.Type)
		if ch.Type == ChangedConfig && ch.Info.Flags != Used|Input|BiasPullUp {
			t.Errorf("config change info %#x", uint64(ch.Info.Flags))
		}
	}
	if len(types) != 3 || types[0] != ChangedRequested || types[1] != ChangedConfig || types[2] != ChangedReleased {
		t.Errorf("changes %v, want requested, config, released", types)
	}
}

// TestSoftwareDebounce: a debounced input's edges only restart its
// wait; once it has held still for the period its level counts, an
// event if it changed (a glitch that came back is none), and its value
// is the last level taken meanwhile.
func TestSoftwareDebounce(t *testing.T) {
	c := reset(t, 2)
	var armed int64
	ArmDebounce = func(when int64) { armed = when }
	defer func() { ArmDebounce = nil }()
	var cfg Config
	cfg.Flags[0], cfg.Debounce[0] = Input|Edges, 1000
	consumer := [NameLen]byte{'t'}
	r, e := NewRequest(c, []uint32{0}, &consumer, &cfg, 0)
	if e != 0 {
		t.Fatal(e)
	}
	if in := LineInfo(c, 0); in.Debounce != 1000 {
		t.Errorf("line info debounce %d, want 1000", in.Debounce)
	}
	Mock.Pull(0, true)
	Mock.Pull(0, false)
	Mock.Pull(0, true)
	if Pending(r) != 0 || armed == 0 {
		t.Fatalf("%d events before the period ended, timer armed %v", Pending(r), armed != 0)
	}
	if Values(r, 1) != 0 {
		t.Error("the value changed before the period ended")
	}
	Debounced(armed - 1)
	if Pending(r) != 0 {
		t.Fatal("an event before the period ended")
	}
	Debounced(armed)
	if Pending(r) != 1 || Peek(r).ID != EventRising || Values(r, 1) != 1 {
		t.Fatalf("%d events, value %d; want one rising, value 1", Pending(r), Values(r, 1))
	}
	Take(r)
	Mock.Pull(0, false) // a glitch that comes back
	Mock.Pull(0, true)
	Debounced(armed + 10_000_000)
	if Pending(r) != 0 {
		t.Errorf("a glitch made %d events", Pending(r))
	}
	Mock.Pull(0, false)
	Debounced(armed + 20_000_000)
	if Pending(r) != 1 || Peek(r).ID != EventFalling || Peek(r).LineSeq != 2 {
		t.Errorf("%d events; want one falling, the line's second", Pending(r))
	}
}
