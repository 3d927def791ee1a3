// Command pigpio drives the GPIO character device through go-gpiocdev,
// unmodified, as a program on a Pi's Linux would (TestRPi4GPIO): the
// BCM2711's chip with its line names, an output set and read back, a
// line held twice, line info and its changes, and edge events from
// gpio-mockup's simulated chip (booted with
// gpio_mockup.gpio_mockup_ranges=-1,8 and
// gpio_mockup.gpio_mockup_named_lines), whose lines a write to
// /sys/kernel/debug/gpio-mockup/gpiochip1/N pulls, since QEMU's
// bcm2838-gpio models no input and no edge detector.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/warthog618/go-gpiocdev"
	"github.com/warthog618/go-gpiocdev/uapi"
	"golang.org/x/sys/unix"
)

const (
	ledOffset   = 42 // the Pi 4's green activity LED (STATUS_LED_G_CLK)
	mockChip    = "gpiochip1"
	mockLine    = 3
	watchedLine = 5
	eventWait   = 5 * time.Second
)

func say(format string, args ...any) { fmt.Printf("pigpio: "+format+"\n", args...) }

func fail(format string, args ...any) {
	say("FAIL: "+format, args...)
	os.Exit(1)
}

func main() {
	// /sys as an init mounts it (go-gpiocdev checks each chip's device
	// number there).
	if err := os.MkdirAll("/sys", 0o755); err != nil {
		fail("mkdir /sys: %v", err)
	}
	if err := unix.Mount("sysfs", "/sys", "sysfs", 0, ""); err != nil {
		fail("mount sysfs: %v", err)
	}
	say("chips %v", gpiocdev.Chips())
	bcm()
	mockup()
	raw()
	say("done")
}

// bcm drives the SoC's chip.
func bcm() {
	c, err := gpiocdev.NewChip("gpiochip0", gpiocdev.WithConsumer("pigpio"))
	if err != nil {
		fail("open gpiochip0: %v", err)
	}
	defer c.Close()
	say("chip %s (%s): %d lines, uAPI v%d", c.Name, c.Label, c.Lines(), c.UapiAbiVersion())
	named := 0
	for o := 0; o < c.Lines(); o++ {
		li, err := c.LineInfo(o)
		if err != nil {
			fail("line info %d: %v", o, err)
		}
		if li.Name != "" {
			named++
		}
	}
	first, _ := c.LineInfo(0)
	last, _ := c.LineInfo(c.Lines() - 1)
	say("named %d; line 0 %q, line %d %q", named, first.Name, c.Lines()-1, last.Name)
	off, err := c.FindLine("STATUS_LED_G_CLK")
	say("activity LED at %d %v", off, err)

	l, err := c.RequestLine(ledOffset, gpiocdev.AsOutput(1))
	if err != nil {
		fail("request %d: %v", ledOffset, err)
	}
	v1, err1 := l.Value()
	l.SetValue(0)
	v0, err0 := l.Value()
	say("led set 1 reads %d %v, set 0 reads %d %v", v1, err1, v0, err0)
	li, _ := c.LineInfo(ledOffset)
	say("led info used=%v consumer=%q output=%v", li.Used, li.Consumer, li.Config.Direction == gpiocdev.LineDirectionOutput)
	_, err = c.RequestLine(ledOffset, gpiocdev.AsInput)
	say("led again: %v", err)
	l.Close()
	li, _ = c.LineInfo(ledOffset)
	say("led released used=%v output=%v", li.Used, li.Config.Direction == gpiocdev.LineDirectionOutput)

	// Active low: the logical value is the level inverted.
	al, err := c.RequestLine(27, gpiocdev.AsOutput(1), gpiocdev.AsActiveLow)
	if err != nil {
		fail("request 27: %v", err)
	}
	v, _ := al.Value()
	li, _ = c.LineInfo(27)
	say("active low reads %d, info active-low=%v", v, li.Config.ActiveLow)
	al.Close()
	raw, _ := c.RequestLine(27, gpiocdev.AsIs)
	v, _ = raw.Value()
	say("line 27 level %d", v)
	raw.Close()

	in, err := c.RequestLine(17, gpiocdev.AsInput, gpiocdev.WithPullUp)
	if err != nil {
		fail("request 17: %v", err)
	}
	li, _ = c.LineInfo(17)
	say("input info bias=%v input=%v", li.Config.Bias == gpiocdev.LineBiasPullUp, li.Config.Direction == gpiocdev.LineDirectionInput)
	say("set an input: %v", in.SetValue(1))
	in.Close()

	_, err = c.RequestLine(99, gpiocdev.AsInput)
	say("line 99: %v", err)
	db, err := c.RequestLine(4, gpiocdev.AsInput, gpiocdev.WithDebounce(time.Millisecond))
	li, _ = c.LineInfo(4)
	say("debounce: %v, period %v", err, li.Config.DebouncePeriod)
	if err == nil {
		db.Close()
	}
}

// mockup watches gpio-mockup's lines for edges and info changes.
func mockup() {
	c, err := gpiocdev.NewChip(mockChip)
	if err != nil {
		fail("open %s: %v", mockChip, err)
	}
	defer c.Close()
	li, _ := c.LineInfo(mockLine)
	say("mockup %s (%s): %d lines, line %d %q", c.Name, c.Label, c.Lines(), mockLine, li.Name)

	changes := make(chan gpiocdev.LineInfoChangeEvent, 8)
	if _, err := c.WatchLineInfo(watchedLine, func(e gpiocdev.LineInfoChangeEvent) { changes <- e }); err != nil {
		fail("watch: %v", err)
	}
	events := make(chan gpiocdev.LineEvent, 8)
	l, err := c.RequestLine(mockLine, gpiocdev.WithBothEdges, gpiocdev.WithEventHandler(func(e gpiocdev.LineEvent) { events <- e }))
	if err != nil {
		fail("request mockup line: %v", err)
	}
	pull := fmt.Sprintf("/sys/kernel/debug/gpio-mockup/%s/%d", mockChip, mockLine)
	for _, v := range []string{"1", "0"} {
		if err := os.WriteFile(pull, []byte(v), 0); err != nil {
			fail("pull %s: %v", v, err)
		}
		b, _ := os.ReadFile(pull)
		say("pulled %s reads %q", v, b)
		sayEvent(events)
	}
	// A pull-up through the line's own configuration: the input follows
	// it (gpio-mockup's set_config), an edge as any other.
	if err := l.Reconfigure(gpiocdev.WithPullUp); err != nil {
		fail("reconfigure: %v", err)
	}
	sayEvent(events)
	v, _ := l.Value()
	say("value after pull-up %d", v)
	l.Close()

	w, err := c.RequestLine(watchedLine, gpiocdev.AsOutput(1), gpiocdev.WithConsumer("watched"))
	if err != nil {
		fail("request watched line: %v", err)
	}
	w.Close()
	for k := 0; k < 2; k++ {
		select {
		case e := <-changes:
			say("info change %v line %d consumer %q", e.Type, e.Info.Offset, e.Info.Consumer)
		case <-time.After(eventWait):
			fail("no info change")
		}
	}
	err = os.WriteFile(pull, []byte("2"), 0)
	say("pull 2: %v", err)
}

func sayEvent(events chan gpiocdev.LineEvent) {
	select {
	case e := <-events:
		say("event %v line %d seqno %d lineseqno %d", e.Type, e.Offset, e.Seqno, e.LineSeqno)
	case <-time.After(eventWait):
		fail("no event")
	}
}

// raw reads two of gpio-mockup's edges in one read(2) of the request's
// descriptor, through go-gpiocdev's uapi package (gpiolib-cdev's
// answers to malformed requests are TestGPIOLikeLinux's, on virt).
func raw() {
	f, err := os.Open("/dev/" + mockChip)
	if err != nil {
		fail("open: %v", err)
	}
	defer f.Close()
	lr := uapi.LineRequest{Lines: 1}
	lr.Offsets[0] = 1
	lr.Config.Flags = uapi.LineFlagV2Input | uapi.LineFlagV2EdgeBoth
	if err := uapi.GetLine(f.Fd(), &lr); err != nil {
		fail("raw request: %v", err)
	}
	fd := int(lr.Fd)
	defer unix.Close(fd)
	pull := fmt.Sprintf("/sys/kernel/debug/gpio-mockup/%s/1", mockChip)
	os.WriteFile(pull, []byte("1"), 0)
	os.WriteFile(pull, []byte("0"), 0)
	var ev [2 * 48]byte
	n, err := unix.Read(fd, ev[:])
	say("raw two events: %d bytes %v, ids %d %d", n, err, ev[8], ev[48+8])
	lv := uapi.LineValues{Mask: 1}
	err = uapi.GetLineValuesV2(uintptr(fd), &lv)
	say("raw value %d %v", lv.Bits, err)
}
