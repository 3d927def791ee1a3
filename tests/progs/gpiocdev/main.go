// Command gpiocdev drives QEMU virt's PL061 GPIO block through Linux's
// GPIO character device with go-gpiocdev, as init (it mounts /sys), and
// prints lines that are the same on Debian's Linux 6.1 and on gometal
// (TestGPIOLikeLinux; tests/testdata/gpiocdev-linux.txt): the chip and
// its lines' info, an output set and read back, a line held twice, an
// input not settable, a bias a chip without pulls keeps in the line's
// info, line info changes, gpiolib-cdev's answers to malformed requests
// (through go-gpiocdev's uapi package), and then the edges of the power
// button on line 3, which the test presses through QMP's
// system_powerdown (QEMU's gpio-key pulses the line for 100 ms), and
// again once the line is debounced (in software on both kernels).
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"
	"github.com/warthog618/go-gpiocdev"
	"github.com/warthog618/go-gpiocdev/uapi"
	"golang.org/x/sys/unix"
)

const (
	chip        = "gpiochip0"
	buttonLine  = 3 // virt's power button (its device tree's gpio-keys)
	outLine     = 0
	watchedLine = 5
	buttonWait  = 30 * time.Second // the test presses at once; a lab's stub must fail fast
	debounce    = 20 * time.Millisecond
)

func say(format string, args ...any) { fmt.Printf("gpiocdev: "+format+"\n", args...) }

func fail(format string, args ...any) {
	say("FAIL: "+format, args...)
	os.Exit(1)
}

func main() {
	guest.LinuxDev() // Linux's /dev, when the reference run has none
	os.MkdirAll("/sys", 0o755)
	if err := unix.Mount("sysfs", "/sys", "sysfs", 0, ""); err != nil {
		fail("mount sysfs: %v", err)
	}
	say("chips %v", gpiocdev.Chips())
	c, err := gpiocdev.NewChip(chip)
	if err != nil {
		fail("open: %v", err)
	}
	defer c.Close()
	say("%s (%s): %d lines, uAPI v%d", c.Name, c.Label, c.Lines(), c.UapiAbiVersion())
	for o := 0; o < c.Lines(); o++ {
		li, err := c.LineInfo(o)
		say("line %d: name %q used %v consumer %q input %v %v", o, li.Name, li.Used, li.Consumer,
			li.Config.Direction == gpiocdev.LineDirectionInput, err)
	}

	l, err := c.RequestLine(outLine, gpiocdev.AsOutput(1))
	if err != nil {
		fail("request %d: %v", outLine, err)
	}
	v1, _ := l.Value()
	l.SetValue(0)
	v0, _ := l.Value()
	li, _ := c.LineInfo(outLine)
	say("output reads %d then %d; used %v consumer %q output %v", v1, v0, li.Used, li.Consumer,
		li.Config.Direction == gpiocdev.LineDirectionOutput)
	_, err = c.RequestLine(outLine, gpiocdev.AsInput)
	say("held twice: %v", err)
	l.Close()

	in, err := c.RequestLine(1, gpiocdev.AsInput, gpiocdev.WithPullUp, gpiocdev.AsActiveLow)
	if err != nil {
		fail("request 1: %v", err)
	}
	li, _ = c.LineInfo(1)
	say("input bias pull-up %v active-low %v; set: %v", li.Config.Bias == gpiocdev.LineBiasPullUp,
		li.Config.ActiveLow, in.SetValue(1))
	in.Close()

	changes := make(chan gpiocdev.LineInfoChangeEvent, 8)
	if _, err := c.WatchLineInfo(watchedLine, func(e gpiocdev.LineInfoChangeEvent) { changes <- e }); err != nil {
		fail("watch: %v", err)
	}
	w, err := c.RequestLine(watchedLine, gpiocdev.AsOutput(0), gpiocdev.WithConsumer("watched"))
	if err != nil {
		fail("request %d: %v", watchedLine, err)
	}
	w.Reconfigure(gpiocdev.AsInput)
	w.Close()
	for k := 0; k < 3; k++ {
		select {
		case e := <-changes:
			say("info change %v line %d consumer %q used %v", e.Type, e.Info.Offset, e.Info.Consumer, e.Info.Used)
		case <-time.After(10 * time.Second):
			fail("no info change")
		}
	}
	c.UnwatchLineInfo(watchedLine)

	raw()

	events := make(chan gpiocdev.LineEvent, 8)
	b, err := c.RequestLine(buttonLine, gpiocdev.WithBothEdges, gpiocdev.WithEventHandler(func(e gpiocdev.LineEvent) { events <- e }))
	if err != nil {
		fail("request the button: %v", err)
	}
	defer b.Close()
	say("waiting for the power button")
	var got []gpiocdev.LineEvent
	for len(got) < 2 {
		select {
		case e := <-events:
			got = append(got, e)
		case <-time.After(buttonWait):
			fail("no edge in %v", buttonWait)
		}
	}
	for _, e := range got {
		say("edge %v line %d seqno %d lineseqno %d", e.Type, e.Offset, e.Seqno, e.LineSeqno)
	}
	apart := got[1].Timestamp - got[0].Timestamp
	say("the press lasted between 50 ms and 2 s: %v", apart > 50*time.Millisecond && apart < 2*time.Second)

	// Debounced: no chip here debounces, so the kernel does it in
	// software (gpiolib's fallback); a 100 ms press outlasts 20 ms.
	if err := b.Reconfigure(gpiocdev.WithBothEdges, gpiocdev.WithDebounce(debounce)); err != nil {
		fail("debounce: %v", err)
	}
	li, _ = c.LineInfo(buttonLine)
	say("debounced %v, period %v", li.Config.Debounced, li.Config.DebouncePeriod)
	say("waiting for the power button again")
	for k := 0; k < 2; k++ {
		select {
		case e := <-events:
			say("debounced edge %v line %d seqno %d lineseqno %d", e.Type, e.Offset, e.Seqno, e.LineSeqno)
		case <-time.After(buttonWait):
			fail("no debounced edge in %v", buttonWait)
		}
	}
	say("done")
}

// raw asks through go-gpiocdev's uapi package, past the library's own
// checks: the answers are the kernel's.
func raw() {
	f, err := os.Open("/dev/" + chip)
	if err != nil {
		fail("open: %v", err)
	}
	defer f.Close()
	try := func(what string, offset uint32, flags uapi.LineFlagV2) int32 {
		lr := uapi.LineRequest{Lines: 1}
		lr.Offsets[0] = offset
		lr.Config.Flags = flags
		err := uapi.GetLine(f.Fd(), &lr)
		say("raw %s: %v", what, err)
		if err != nil {
			return -1
		}
		return lr.Fd
	}
	try("offset past the lines", 8, uapi.LineFlagV2Input)
	try("edge without input", 2, uapi.LineFlagV2EdgeRising)
	try("input and output", 2, uapi.LineFlagV2Input|uapi.LineFlagV2Output)
	try("open drain input", 2, uapi.LineFlagV2Input|uapi.LineFlagV2OpenDrain)
	try("bias without direction", 2, uapi.LineFlagV2BiasPullUp)
	try("two biases", 2, uapi.LineFlagV2Input|uapi.LineFlagV2BiasPullUp|uapi.LineFlagV2BiasPullDown)
	try("unknown flag", 2, uapi.LineFlagV2Input|1<<20)
	try("used flag", 2, uapi.LineFlagV2Input|uapi.LineFlagV2Used)
	lr := uapi.LineRequest{Lines: 0}
	say("raw no lines: %v", uapi.GetLine(f.Fd(), &lr))
	lr = uapi.LineRequest{Lines: 2}
	lr.Offsets[0], lr.Offsets[1] = 2, 2
	lr.Config.Flags = uapi.LineFlagV2Input
	say("raw a line twice in one request: %v", uapi.GetLine(f.Fd(), &lr))
	lr = uapi.LineRequest{Lines: 1}
	lr.Padding[0] = 1
	say("raw padding: %v", uapi.GetLine(f.Fd(), &lr))
	var info uapi.LineInfoV2
	info.Offset = 9
	_, err = uapi.GetLineInfoV2(f.Fd(), int(info.Offset))
	say("raw info past the lines: %v", err)
	say("raw unwatch an unwatched line: %v", uapi.UnwatchLineInfo(f.Fd(), 2))

	fd := try("edges", 2, uapi.LineFlagV2Input|uapi.LineFlagV2EdgeBoth)
	if fd < 0 {
		return
	}
	defer unix.Close(int(fd))
	var small [16]byte
	_, err = unix.Read(int(fd), small[:])
	say("raw short read: %v", err)
	unix.SetNonblock(int(fd), true)
	var ev [48]byte
	_, err = unix.Read(int(fd), ev[:])
	say("raw empty read: %v", err)
	var lv uapi.LineValues
	say("raw empty mask: %v", uapi.GetLineValuesV2(uintptr(fd), &lv))
	lv.Mask = 1 << 5
	say("raw mask past the lines: %v", uapi.GetLineValuesV2(uintptr(fd), &lv))
	lv = uapi.LineValues{Mask: 1, Bits: 1}
	say("raw set an input: %v", uapi.SetLineValuesV2(uintptr(fd), lv))
	var lc uapi.LineConfig
	lc.Flags = uapi.LineFlagV2Output | uapi.LineFlagV2EdgeRising
	say("raw reconfigure to edges on an output: %v", uapi.SetLineConfigV2(uintptr(fd), &lc))
	_, err = unix.Write(int(fd), []byte{1})
	say("raw write: %v", err)
}
