package bcm2711

import "github.com/gometal/gometal/drivers/cpu"

// The GPIO block: BCM2711 ARM Peripherals chapter 5, and Linux's
// drivers/pinctrl/bcm/pinctrl-bcm2835.c for what the manual leaves out.
// 58 pins in two banks (0-31, 32-57); each pin has a function (input,
// output, or one of six alternates), a level, a pull (the 2711's own
// GPIO_PUP_PDN_CNTRL registers, not the 2835's clocked GPPUD sequence),
// and edge and level detectors that set its bit in GPEDS and raise the
// bank's interrupt. Register access only: which pins a program may use,
// and what an event means, is kernel/gpio's.
const (
	GPIOLines = 58

	gpfsel0  = 0x00 // function select, 10 pins a register, 3 bits a pin
	gpset0   = 0x1c // write 1: drive high
	gpclr0   = 0x28 // write 1: drive low
	gplev0   = 0x34 // the pins' levels
	gpeds0   = 0x40 // event detect status, write 1 to clear
	gpren0   = 0x4c // rising edge detect enable (synchronous)
	gpfen0   = 0x58 // falling edge detect enable (synchronous)
	gppull0  = 0xe4 // GPIO_PUP_PDN_CNTRL_REG0, 16 pins a register, 2 bits a pin
	gpioBank = 4    // bytes between a bank's two registers

	fselBits  = 3
	fselPerRg = 10
	fselMask  = 7
	pullBits  = 2
	pullPerRg = 16
	pullMask  = 3
)

// The pin functions (GPFSELn's 3-bit fields).
const (
	FselInput  = 0
	FselOutput = 1
)

// The pulls (GPIO_PUP_PDN_CNTRL's 2-bit fields: the manual's table 5-9).
const (
	PullNone = 0
	PullUp   = 1
	PullDown = 2
)

// GPIO is the block at base (a kernel address).
type GPIO struct{ base uintptr }

// Init records the block's address; the pins keep what the firmware set.
func (g *GPIO) Init(base uintptr) { g.base = base }

func bankOf(pin int) (uintptr, uint32) { return uintptr(pin/32) * gpioBank, 1 << (pin % 32) }

// Function returns pin's function select.
func (g *GPIO) Function(pin int) uint32 {
	r := g.base + gpfsel0 + uintptr(pin/fselPerRg)*4
	return cpu.Read32(r) >> (pin % fselPerRg * fselBits) & fselMask
}

// SetFunction sets pin's function select (a read-modify-write: the
// register holds nine other pins; under the caller's lock).
func (g *GPIO) SetFunction(pin int, fsel uint32) {
	r := g.base + gpfsel0 + uintptr(pin/fselPerRg)*4
	shift := pin % fselPerRg * fselBits
	cpu.Write32(r, cpu.Read32(r)&^(fselMask<<shift)|fsel<<shift)
}

// Set drives pin high or low (GPSET/GPCLR: no read-modify-write, the
// other pins are untouched).
func (g *GPIO) Set(pin int, high bool) {
	off, bit := bankOf(pin)
	if high {
		cpu.Write32(g.base+gpset0+off, bit)
	} else {
		cpu.Write32(g.base+gpclr0+off, bit)
	}
}

// Level reads pin's level (GPLEV: the pin as it is, input or output).
func (g *GPIO) Level(pin int) bool {
	off, bit := bankOf(pin)
	return cpu.Read32(g.base+gplev0+off)&bit != 0
}

// SetPull sets pin's pull resistor (PullNone, PullUp, PullDown).
func (g *GPIO) SetPull(pin int, pull uint32) {
	r := g.base + gppull0 + uintptr(pin/pullPerRg)*4
	shift := pin % pullPerRg * pullBits
	cpu.Write32(r, cpu.Read32(r)&^(pullMask<<shift)|pull<<shift)
}

// SetEdges enables or disables pin's rising and falling edge detectors
// (GPREN, GPFEN: the synchronous ones, which filter glitches shorter
// than two clocks, as Linux's bcm2835_gpio_irq_config uses), clearing a
// stale event first.
func (g *GPIO) SetEdges(pin int, rising, falling bool) {
	off, bit := bankOf(pin)
	for _, e := range [2]struct {
		reg uintptr
		on  bool
	}{{gpren0, rising}, {gpfen0, falling}} {
		v := cpu.Read32(g.base + e.reg + off)
		if e.on {
			v |= bit
		} else {
			v &^= bit
		}
		cpu.Write32(g.base+e.reg+off, v)
	}
	cpu.Write32(g.base+gpeds0+off, bit)
}

// TakeEvents returns bank's latched events (GPEDS) and clears them, as
// the bank's interrupt handler must before the end of interrupt (the
// interrupt is level-triggered: GPEDS bits hold it up).
func (g *GPIO) TakeEvents(bank int) uint32 {
	r := g.base + gpeds0 + uintptr(bank)*gpioBank
	v := cpu.Read32(r)
	if v != 0 {
		cpu.Write32(r, v)
	}
	return v
}
