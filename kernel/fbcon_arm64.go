package kernel

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/fbcon"
	"github.com/gometal/gometal/kernel/klog"
	"github.com/gometal/gometal/sched"
)

// The console on the screen (kernel/fbcon): once the firmware gave a
// framebuffer, every byte the console writes to its UARTs (putc: the
// boot log, the program's output, reports) is also drawn there, so a
// Pi on a monitor shows what a serial cable would; the boot log written
// before the framebuffer existed is replayed from the kernel log first,
// as Linux replays its buffer to a console that registers late. Once the
// first program runs, the drawing waits for a frame's alarm
// (fbconFlushNanos). While a program has /dev/fb0 open or mapped the
// console keeps off the screen (Linux's
// fbcon leaves it to a program that switches the terminal to graphics
// mode; here opening the device is enough) and redraws it when the last
// description closes.

// fbBG is the screen's cleared colour: black, fbcon.Palette[0].
const fbBG = 0x00000000

var (
	console fbcon.Console
	// fbconOn says the console draws; fbconUsers counts the /dev/fb0
	// descriptions that keep it off.
	fbconOn    bool
	fbconUsers int
	// fbconBusy serialises drawing: putc runs under the kernel lock but
	// for reports from a core that does not hold it (a panic), whose
	// bytes the screen skips if it is busy rather than wait.
	fbconBusy atomic.Uint32
)

// fbSurface is fbcon.Surface over the framebuffer (Normal
// non-cacheable: fb_arm64.go): two 32-bit pixels a 64-bit store.
// Drawing costs QEMU's TCG dearly all the same: QEMU tracks the
// framebuffer's pages for its display, so every store takes its slow
// path (gometal run turns the console off: main.go).
type fbSurface struct{}

var screenSurface fbSurface

// fbPair is two pixels of row r from bit 7-i, fg where set and bg
// elsewhere, the first in the low word (little-endian).
func fbPair(r uint8, i int, fg, bg uint64) uint64 {
	lo, hi := bg, bg
	if r>>(7-i)&1 != 0 {
		lo = fg
	}
	if r>>(6-i)&1 != 0 {
		hi = fg
	}
	return lo | hi<<32
}

func (fbSurface) Cell(x, y int, rows *[fbcon.MaxCellH]uint8, h int, fg, bg uint8) {
	line := cpu.KVA(FB.PA) + uintptr(y)*uintptr(FB.Pitch) + uintptr(x)*4
	f, b := uint64(fbcon.Palette[fg&0xf]), uint64(fbcon.Palette[bg&0xf])
	for j := 0; j < h; j++ {
		r := rows[j]
		for i := 0; i < fbcon.CellW; i += 2 {
			*(*uint64)(cpu.Ptr(line + uintptr(i)*4)) = fbPair(r, i, f, b)
		}
		line += uintptr(FB.Pitch)
	}
}

func (fbSurface) Clear(y, h int) {
	if y >= int(FB.VirtualHeight) {
		return
	}
	h = min(h, int(FB.VirtualHeight)-y)
	p := cpu.KVA(FB.PA) + uintptr(y)*uintptr(FB.Pitch)
	end := p + uintptr(h)*uintptr(FB.Pitch)
	for ; p < end; p += 8 {
		*(*uint64)(cpu.Ptr(p)) = fbBG | fbBG<<32
	}
}

func (fbSurface) Pan(y int) { FBPan(0, uint32(y)) }

// initFBConsole starts the console on the screen and replays the boot
// log the console showed so far.
func initFBConsole() {
	if !FB.Present || !fbconEnabled {
		return
	}
	console.Init(&screenSurface, int(FB.Width), int(FB.Height))
	fbconOn = true
	for seq := klog.First(); seq < klog.Next(); seq++ {
		r := klog.At(seq)
		if r == nil || r.Level >= klog.ConsoleLevel {
			continue
		}
		fbconWrite("gometal: ")
		for _, c := range r.Text() {
			fbconPutc(c)
		}
		fbconPutc('\n')
	}
}

// fbconEnabled is false with the boot argument gometal.fbcon=0.
var fbconEnabled = true

func fbconWrite(s string) {
	for i := 0; i < len(s); i++ {
		fbconPutc(s[i])
	}
}

// fbconFlushNanos is how long the console's drawing waits after a write:
// a 60th of a second, a display's refresh, so that a burst of output
// draws the screen it leaves once (fbcon.Console.Defer) and the kernel
// lock is held for the drawing once a frame, not a line.
const fbconFlushNanos = 16_666_666

// fbconFlushArmed says the alarm that will draw is set.
var fbconFlushArmed bool

// fbconPutc writes c to the screen's console, unless it is off or another
// core is drawing: drawn now while the boot has no alarms to draw later
// (before the first program), else marked and drawn by AlarmFBCon.
func fbconPutc(c byte) {
	if !fbconOn || !fbconBusy.CompareAndSwap(0, 1) {
		return
	}
	console.Putc(c)
	if console.Defer && !fbconFlushArmed && sched.HoldsKernel(ThisCPU()) {
		fbconFlushArmed = true
		sched.SetAlarm(sched.AlarmFBCon, timer.Now()+timer.NanosToTicks(fbconFlushNanos), ThisCPU().ID)
	}
	fbconBusy.Store(0)
}

// FBConsoleFlush draws what the console's writes marked (AlarmFBCon's
// expiry, under the kernel lock; a panic's or the run's end, without).
func FBConsoleFlush() {
	fbconFlushArmed = false
	if !fbconOn || !fbconBusy.CompareAndSwap(0, 1) {
		return
	}
	console.Flush()
	fbconBusy.Store(0)
}

// fbconDefer makes the console's drawing wait for AlarmFBCon from now
// on: once the scheduler runs, whose timers fire alarms.
func fbconDefer() {
	if fbconOn {
		FBConsoleFlush()
		console.Defer = true
	}
}

// FBConsoleOff keeps the console off the screen while a program uses
// /dev/fb0 (one call an open description), the view back at line 0.
// Under the kernel lock.
func FBConsoleOff() {
	fbconUsers++
	if fbconOn {
		fbconOn = false
		for !fbconBusy.CompareAndSwap(0, 1) {
		}
		fbconBusy.Store(0)
		FBPan(0, 0)
	}
}

// FBConsoleOn gives the screen back to the console when the last
// description FBConsoleOff counted is closed: it redraws its text.
func FBConsoleOn() {
	if fbconUsers--; fbconUsers == 0 && FB.Present && fbconEnabled && console.Rows > 0 {
		console.Redraw()
		fbconOn = true
	}
}
