package kernel

import (
	"math/bits"
	"unsafe"

	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/gic"
	"github.com/gometal/gometal/kernel/gpio"
)

// The machine's GPIO chips (docs/ARCHITECTURE.md, "The Raspberry Pi's
// devices"): the BCM2711's block when the device tree has it, as
// gpiochip0 with the tree's gpio-line-names and its bank interrupts;
// then, when the boot argument asks (gpio_mockup.gpio_mockup_ranges,
// Linux's own), a gpio-mockup chip of simulated lines. kernel/gpio owns
// the lines; this file is the driver's side: the hardware's calls, and
// the interrupt that turns the block's latched edges into events.

// bcmGPIOLabel is the chip's label, as Linux's pinctrl-bcm2835 names
// the BCM2711's (its gpio_chip's label is the driver's name).
const bcmGPIOLabel = "pinctrl-bcm2711"

// maxGPIOIRQs bounds the block's interrupts: the device tree lists four
// (banks 0, 1, 2 and all pins: BCM2711 ARM Peripherals §6.2.4,
// gpio_int[0..3], GIC SPIs 113-116).
const maxGPIOIRQs = 4

var (
	bcmGPIO   bcm2711.GPIO
	bcmLines  bcmChip
	bcmChipNo = -1
	gpioIRQs  [maxGPIOIRQs]uint32
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

func initGPIO() {
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
		for k := range gpioIRQs {
			typ, num, _, ok := dtb.Interrupt(n, k)
			if ok && typ == dtIRQSPI {
				gpioIRQs[k] = num + spiBase
				gic.Enable(ThisCPU().ID, gpioIRQs[k])
			}
		}
		break
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

// gpioInterrupt handles the block's bank interrupts: every latched edge
// (GPEDS, both banks: whichever bank's line fired, draining both keeps
// the level-triggered lines low) becomes kernel/gpio's edge, with the
// pin's level now. Under the kernel lock.
func gpioInterrupt(id uint32) bool {
	hit := false
	for _, irq := range gpioIRQs {
		hit = hit || irq != 0 && irq == id
	}
	if !hit {
		return false
	}
	for bank := 0; bank*32 < bcm2711.GPIOLines; bank++ {
		ev := bcmGPIO.TakeEvents(bank)
		for ev != 0 {
			bit := bits.TrailingZeros32(ev)
			ev &^= 1 << bit
			pin := bank*32 + bit
			gpio.Edge(bcmChipNo, pin, bcmGPIO.Level(pin))
		}
	}
	return true
}
