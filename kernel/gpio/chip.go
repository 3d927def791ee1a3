// Package gpio owns the machine's GPIO lines: the chips (the Pi's
// BCM2711 block, and gpio-mockup's simulated chip on any board), which
// program holds which line and how it configured it, the edge events a
// request has not read yet, and the line-info changes a chip's watchers
// wait for. It is the object layer under Linux's GPIO character device
// (drivers/gpio/gpiolib.c and gpiolib-cdev.c): its flags are uAPI v2's
// (include/uapi/linux/gpio.h) bit for bit, so the Linux layer
// (kernel/linux/gpiocdev_arm64.go) only copies structures in and out.
// Everything here runs under the kernel lock, as the file layer does;
// a chip's interrupt takes it too. Builds on the host: go test
// ./kernel/gpio.
package gpio

import (
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Bounds.
const (
	MaxChips    = 2  // the SoC's, and a gpio-mockup chip
	MaxLines    = 64 // lines a chip has, and a request holds (GPIO_V2_LINES_MAX)
	NameLen     = 32 // GPIO_MAX_NAME_SIZE: a name, label or consumer, NUL included
	MaxRequests = 32 // line requests open at once, system-wide
	MaxWatchers = 16 // chip descriptions watching line info at once
)

// Flags are a line's configuration, with uAPI v2's values
// (GPIO_V2_LINE_FLAG_*).
type Flags uint64

const (
	Used               Flags = 1 << 0
	ActiveLow          Flags = 1 << 1
	Input              Flags = 1 << 2
	Output             Flags = 1 << 3
	EdgeRising         Flags = 1 << 4
	EdgeFalling        Flags = 1 << 5
	OpenDrain          Flags = 1 << 6
	OpenSource         Flags = 1 << 7
	BiasPullUp         Flags = 1 << 8
	BiasPullDown       Flags = 1 << 9
	BiasDisabled       Flags = 1 << 10
	EventClockRealtime Flags = 1 << 11
	EventClockHTE      Flags = 1 << 12

	Direction = Input | Output
	Edges     = EdgeRising | EdgeFalling
	Drive     = OpenDrain | OpenSource
	Bias      = BiasPullUp | BiasPullDown | BiasDisabled
	// Valid are the flags a request may set (GPIO_V2_LINE_VALID_FLAGS).
	Valid = ActiveLow | Direction | Edges | Drive | Bias | EventClockRealtime | EventClockHTE
	// kept are what a line remembers of its request's flags: the
	// direction is the hardware's.
	kept = ActiveLow | Edges | Drive | Bias | EventClockRealtime
)

// Validate answers a line's requested flags as gpiolib-cdev's
// gpio_v2_line_flags_validate does: EINVAL for a flag it does not know
// or a contradiction (input and output; edges without input; a drive
// without output; bias without a direction; two biases, or two drives),
// EOPNOTSUPP for the hardware timestamp engine this kernel lacks
// (CONFIG_HTE off).
func Validate(f Flags) unix.Errno {
	// lab:gpio begin
	switch {
	case f&^Valid != 0:
		return unix.EINVAL
	case f&EventClockHTE != 0:
		return unix.EOPNOTSUPP
	case f&Direction == Direction:
		return unix.EINVAL
	case f&Edges != 0 && f&Input == 0:
		return unix.EINVAL
	case f&Drive == Drive:
		return unix.EINVAL
	case f&Drive != 0 && f&Output == 0:
		return unix.EINVAL
	case f&Bias != 0 && f&Direction == 0:
		return unix.EINVAL
	case f&BiasDisabled != 0 && f&(BiasPullUp|BiasPullDown) != 0,
		f&(BiasPullUp|BiasPullDown) == BiasPullUp|BiasPullDown:
		return unix.EINVAL
	}
	return 0
	// lab:gpio stub
	// // TODO(lab gpio): gpiolib-cdev's gpio_v2_line_flags_validate: EINVAL
	// // for a flag outside Valid or a contradiction, EOPNOTSUPP for
	// // EventClockHTE (this kernel has no timestamp engine).
	// return 0
	// lab:gpio end
}

// Hardware is what a chip's driver does with a line, in the line's
// physical levels (active-low is this package's).
type Hardware interface {
	IsOutput(line int) bool
	Input(line int)
	Output(line int, high bool)
	Get(line int) bool
	Set(line int, high bool)
	// SetBias sets the line's pull: BiasPullUp, BiasPullDown or
	// BiasDisabled.
	SetBias(line int, bias Flags)
	// SetEdges turns the line's edge detection on or off (physical
	// edges).
	SetEdges(line int, rising, falling bool)
}

// Line is a line's state beyond the hardware's.
type Line struct {
	Req      int8  // the request holding it, 1 + index; 0: free
	Flags    Flags // the request's flags the line keeps (kept)
	Out      bool  // requested as an output (open drain may leave it an input)
	Seq      uint32
	Consumer [NameLen]byte
	// Debounce is the period in microseconds a debounced input holds
	// still before its level counts (0: not debounced); level is the
	// last level taken (physical), deadline when the wait for the next
	// ends (monotonic nanoseconds; 0: none).
	Debounce uint32
	level    bool
	deadline int64
}

// Chip is a GPIO chip: its lines, their names, and its driver.
type Chip struct {
	Present bool
	Label   string
	NLines  int
	Names   [MaxLines]string
	HW      Hardware
	Lines   [MaxLines]Line
	// W is where the chip's descriptions wait for line info changes:
	// one queue for them all (a description need not watch to be
	// polled), each asking its own watcher whether it is ready.
	W vfs.Waitable
}

// Chips are the machine's chips, gpiochipN at index N.
var Chips [MaxChips]Chip

// NChips counts the chips registered.
var NChips int

// Register adds a chip of n lines driven by hw, named label, and returns
// its number (-1: the table is full).
func Register(label string, n int, hw Hardware) int {
	if NChips == MaxChips || n > MaxLines {
		return -1
	}
	c := &Chips[NChips]
	*c = Chip{Present: true, Label: label, NLines: n, HW: hw}
	NChips++
	return NChips - 1
}

// Info is what line info says of a line (gpio_desc_to_lineinfo).
type Info struct {
	Flags    Flags
	Consumer [NameLen]byte
	Debounce uint32 // µs; 0: not debounced
}

// LineInfo describes line of chip c: Used and its consumer while a
// request holds it, its direction as the hardware has it (or as
// requested), and the flags its request set.
func LineInfo(c, line int) Info {
	ch := &Chips[c]
	l := &ch.Lines[line]
	var in Info
	out := ch.HW.IsOutput(line)
	if l.Req != 0 {
		in.Flags = Used | l.Flags
		in.Consumer = l.Consumer
		in.Debounce = l.Debounce
		out = l.Out
	}
	if out {
		in.Flags |= Output
	} else {
		in.Flags |= Input
	}
	return in
}

// Value reads line's logical value (its level, inverted when
// active-low; a debounced line's, the last level its debounce took).
func Value(c, line int) bool {
	ch := &Chips[c]
	l := &ch.Lines[line]
	level := ch.HW.Get(line)
	if l.Debounce != 0 {
		level = l.level
	}
	return level != (l.Flags&ActiveLow != 0)
}

// SetValue drives output line to logical value v, emulating open drain
// and open source as gpiolib does for a chip that has neither
// (gpio_set_open_drain_value_commit): open drain lets the line float
// (an input) for a high, open source for a low.
func SetValue(c, line int, v bool) {
	ch := &Chips[c]
	l := &ch.Lines[line]
	high := v != (l.Flags&ActiveLow != 0)
	switch {
	case l.Flags&OpenDrain != 0 && high, l.Flags&OpenSource != 0 && !high:
		ch.HW.Input(line)
	case l.Flags&Drive != 0:
		ch.HW.Output(line, high)
	default:
		ch.HW.Set(line, high)
	}
}

// configure applies flags f to line as gpiolib-cdev's linereq_create
// and linereq_set_config do: the bias, then the direction (an output at
// logical value v), then the edge detectors, physical edges being the
// logical ones swapped on an active-low line; an input debounced for
// debounce µs watches both (debounce.go).
func configure(c, line int, f Flags, v bool, debounce uint32) {
	ch := &Chips[c]
	l := &ch.Lines[line]
	l.Flags = f & kept
	l.Debounce, l.deadline = 0, 0
	if f&Bias != 0 {
		ch.HW.SetBias(line, f&Bias)
	}
	switch {
	case f&Output != 0:
		l.Out = true
		high := v != (f&ActiveLow != 0)
		switch {
		case f&OpenDrain != 0 && high, f&OpenSource != 0 && !high:
			ch.HW.Input(line)
		default:
			ch.HW.Output(line, high)
		}
	case f&Input != 0:
		l.Out = false
		ch.HW.Input(line)
	default:
		l.Out = ch.HW.IsOutput(line) // "as is"
	}
	rising, falling := f&EdgeRising != 0, f&EdgeFalling != 0
	if f&ActiveLow != 0 {
		rising, falling = falling, rising
	}
	if debounce != 0 && f&Input != 0 {
		l.Debounce, l.level = debounce, ch.HW.Get(line)
		rising, falling = true, true
	}
	ch.HW.SetEdges(line, rising, falling)
}

// release frees line: its edge detection off, its request's flags
// forgotten (gpiod_free_commit); the hardware keeps its direction and
// level, as Linux leaves them.
func release(c, line int) {
	ch := &Chips[c]
	ch.HW.SetEdges(line, false, false)
	ch.Lines[line] = Line{}
}
