package kernel

import (
	"math/bits"
	"unsafe"

	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/fdt"
	"github.com/gometal/gometal/drivers/gic"
	"github.com/gometal/gometal/drivers/pl061"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/gpio"
	"github.com/gometal/gometal/sched"
)

// The machine's GPIO chips (docs/ARCHITECTURE.md, "The Raspberry Pi's
// devices"): the BCM2711's block when the device tree has it, as
// gpiochip0 with the tree's gpio-line-names and its bank interrupts;
// QEMU virt's PL061 (its line 3 the power button's); then, when the
// boot argument asks (gpio_mockup.gpio_mockup_ranges, Linux's own), a
// gpio-mockup chip of simulated lines. kernel/gpio owns the lines; this
// file is the drivers' side: the hardware's calls, and the interrupts
// that turn latched edges into events.

// bcmGPIOLabel is the chip's label, as Linux's pinctrl-bcm2835 names
// the BCM2711's (its gpio_chip's label is the driver's name).
const bcmGPIOLabel = "pinctrl-bcm2711"

// maxGPIOIRQs bounds the chips' interrupts: the BCM2711's device tree
// lists four (banks 0, 1, 2 and all pins: BCM2711 ARM Peripherals
// §6.2.4, gpio_int[0..3], GIC SPIs 113-116), a PL061 one.
const maxGPIOIRQs = 4

var (
	bcmGPIO   bcm2711.GPIO
	bcmLines  bcmChip
	bcmChipNo = -1
	plGPIO    pl061.GPIO
	plLines   plChip
	plChipNo  = -1
	// plLabel is the PL061's label, as Linux names an AMBA device
	// (of_device_make_bus_id: its address in hex, a dot, the node's
	// name): "9030000.pl061" on virt.
	plLabel [24]byte
	// gpioIRQs are the interrupts of the chip gpioIRQChip says.
	gpioIRQs    [maxGPIOIRQs]uint32
	gpioIRQChip [maxGPIOIRQs]int
	// gpioMockupArg and gpioMockupNamed are the boot arguments
	// gpio_mockup.gpio_mockup_ranges and gpio_mockup.gpio_mockup_named_lines.
	gpioMockupArg   []byte
	gpioMockupNamed bool
)

// bcmChip is gpio.Hardware over the BCM2711's block.
type bcmChip struct{}

func (bcmChip) IsOutput(line int) bool { return bcmGPIO.Function(line) == bcm2711.FselOutput }
func (bcmChip) Input(line int)         { bcmGPIO.SetFunction(line, bcm2711.FselInput) }

// Output sets the level before the function, so the pin never drives
// the old level (pinctrl-bcm2835's direction_output does the same).
func (bcmChip) Output(line int, high bool) {
	bcmGPIO.Set(line, high)
	bcmGPIO.SetFunction(line, bcm2711.FselOutput)
}
func (bcmChip) Get(line int) bool       { return bcmGPIO.Level(line) }
func (bcmChip) Set(line int, high bool) { bcmGPIO.Set(line, high) }
func (bcmChip) SetBias(line int, bias gpio.Flags) {
	pull := uint32(bcm2711.PullNone)
	switch bias {
	case gpio.BiasPullUp:
		pull = bcm2711.PullUp
	case gpio.BiasPullDown:
		pull = bcm2711.PullDown
	}
	bcmGPIO.SetPull(line, pull)
}
func (bcmChip) SetEdges(line int, rising, falling bool) { bcmGPIO.SetEdges(line, rising, falling) }

// plChip is gpio.Hardware over the PL061, which has no pull resistors:
// a bias is the line's flag only (gpiolib ignores a chip's ENOTSUPP for
// one).
type plChip struct{}

func (plChip) IsOutput(line int) bool                  { return plGPIO.IsOutput(line) }
func (plChip) Input(line int)                          { plGPIO.Input(line) }
func (plChip) Output(line int, high bool)              { plGPIO.Output(line, high) }
func (plChip) Get(line int) bool                       { return plGPIO.Get(line) }
func (plChip) Set(line int, high bool)                 { plGPIO.Set(line, high) }
func (plChip) SetBias(line int, bias gpio.Flags)       {}
func (plChip) SetEdges(line int, rising, falling bool) { plGPIO.SetEdges(line, rising, falling) }

// armDebounce is gpio.ArmDebounce: the debouncer's alarm at monotonic
// time when, on this core (under the kernel lock, as every GPIO call).
func armDebounce(when int64) {
	now := clock.Monotonic()
	d := int64(0)
	if when > now {
		d = when - now
	}
	sched.SetAlarm(sched.AlarmGPIO, timer.Now()+timer.NanosToTicks(d), ThisCPU().ID)
}

func initGPIO() {
	gpio.ArmDebounce = armDebounce
	for _, compat := range [...]string{"brcm,bcm2711-gpio", "brcm,bcm2835-gpio"} {
		n := dtb.FindCompatible(-1, compat)
		if n < 0 {
			continue
		}
		addr, ok := enabledDevice(n)
		if !ok {
			continue
		}
		bcmGPIO.Init(cpu.KVA(addr))
		c := gpio.Register(bcmGPIOLabel, bcm2711.GPIOLines, &bcmLines)
		if c < 0 {
			break
		}
		bcmChipNo = c
		if names, ok := dtb.Prop(n, "gpio-line-names"); ok {
			lineNames(&gpio.Chips[c], names)
		}
		gpioInterrupts(n, c)
		break
	}
	if n := dtb.FindCompatible(-1, "arm,pl061"); n >= 0 {
		if addr, ok := enabledDevice(n); ok {
			plGPIO.Init(cpu.KVA(addr))
			l := putHexTo(plLabel[:], uint64(addr))
			l += copy(plLabel[l:], ".pl061")
			if c := gpio.Register(unsafe.String(&plLabel[0], l), pl061.Lines, &plLines); c >= 0 {
				plChipNo = c
				if names, ok := dtb.Prop(n, "gpio-line-names"); ok {
					lineNames(&gpio.Chips[c], names)
				}
				gpioInterrupts(n, c)
			}
		}
	}
	if len(gpioMockupArg) > 0 {
		initGPIOMockup()
	}
	if gpio.NChips > 0 && Info("gpio:") {
		for c := 0; c < gpio.NChips; c++ {
			Puts(" gpiochip")
			PutDec(int64(c))
			Puts(" (")
			Puts(gpio.Chips[c].Label)
			Puts(", ")
			PutDec(int64(gpio.Chips[c].NLines))
			Puts(" lines)")
		}
		InfoEnd()
	}
}

// gpioInterrupts enables node n's interrupts (GIC SPIs) for chip c.
func gpioInterrupts(n fdt.Node, c int) {
	for k := 0; k < maxGPIOIRQs; k++ {
		typ, num, _, ok := dtb.Interrupt(n, k)
		if !ok {
			return
		}
		if typ != dtIRQSPI {
			continue
		}
		for j := range gpioIRQs {
			if gpioIRQs[j] == 0 {
				gpioIRQs[j], gpioIRQChip[j] = num+spiBase, c
				gic.Enable(ThisCPU().ID, gpioIRQs[j])
				break
			}
		}
	}
}

// putHexTo writes v in lower-case hex, no leading zeros, into b and
// returns the length.
func putHexTo(b []byte, v uint64) int {
	n := 1
	for x := v >> 4; x != 0; x >>= 4 {
		n++
	}
	for k := n - 1; k >= 0; k-- {
		b[k] = "0123456789abcdef"[v&0xf]
		v >>= 4
	}
	return n
}

// lineNames gives chip c's lines the names of a gpio-line-names list
// (NUL-separated strings, in line order; the strings stay in the
// device tree, which the kernel keeps).
func lineNames(c *gpio.Chip, names []byte) {
	line, start := 0, 0
	for k := 0; k < len(names) && line < c.NLines; k++ {
		if names[k] == 0 {
			if k > start {
				c.Names[line] = unsafe.String(&names[start], k-start)
			}
			line++
			start = k + 1
		}
	}
}

// initGPIOMockup makes the mockup chip gpio_mockup_ranges asks for:
// "-1,N", a chip of N lines whose base gpiolib picks (the only form
// here; a fixed base belongs to the legacy sysfs numbering).
func initGPIOMockup() {
	a := gpioMockupArg
	if len(a) < 4 || a[0] != '-' || a[1] != '1' || a[2] != ',' {
		logLine("gpio: gpio_mockup_ranges takes -1,N (N lines, at most 64); ignored")
		return
	}
	n, ok := parseSize(a[3:], 0)
	if !ok || n <= 0 || n > gpio.MaxLines || gpio.RegisterMockup(int(n), gpioMockupNamed) < 0 {
		logLine("gpio: gpio_mockup_ranges takes -1,N (N lines, at most 64); ignored")
	}
}

// gpioInterrupt handles the chips' interrupts: every latched edge
// becomes kernel/gpio's edge, with the line's level now. The BCM2711's
// banks drain both GPEDS registers, whichever bank's line fired
// (draining both keeps the level-triggered lines low); the PL061's
// GPIOMIS. Under the kernel lock.
func gpioInterrupt(id uint32) bool {
	c := -1
	for k, irq := range gpioIRQs {
		if irq != 0 && irq == id {
			c = gpioIRQChip[k]
		}
	}
	switch {
	case c < 0:
		return false
	case c == bcmChipNo:
		for bank := 0; bank*32 < bcm2711.GPIOLines; bank++ {
			gpioEdges(c, bank*32, bcmGPIO.TakeEvents(bank))
		}
	case c == plChipNo:
		gpioEdges(c, 0, plGPIO.TakeEvents())
	}
	return true
}

// gpioEdges reports chip c's edges: bit k of ev is line first+k.
func gpioEdges(c, first int, ev uint32) {
	hw := gpio.Chips[c].HW
	for ev != 0 {
		bit := bits.TrailingZeros32(ev)
		ev &^= 1 << bit
		gpio.Edge(c, first+bit, hw.Get(first+bit))
	}
}
