// Package pl061 drives the Arm PrimeCell GPIO (PL061), QEMU virt's GPIO
// block (its line 3 is the power button's, pulsed by QMP's
// system_powerdown): eight lines, each an input or an output, with edge
// or level interrupts. Register offsets from Arm DDI 0190B §3.3; what
// the lines mean is kernel/gpio's.
package pl061

import "github.com/gometal/gometal/drivers/cpu"

const (
	Lines = 8

	regData = 0x000 // GPIODATA: address bits [9:2] mask the lines a read or write touches
	regDir  = 0x400 // GPIODIR: 1 an output
	regIS   = 0x404 // GPIOIS: 1 level-sensitive, 0 edge
	regIBE  = 0x408 // GPIOIBE: 1 both edges
	regIEV  = 0x40c // GPIOIEV: 1 rising edge (high level)
	regIE   = 0x410 // GPIOIE: 1 the line interrupts
	regMIS  = 0x418 // GPIOMIS: the interrupts raised and enabled
	regIC   = 0x41c // GPIOIC: write 1 to clear
)

// GPIO is the block at base (a kernel address).
type GPIO struct{ base uintptr }

// Init records the block's address, with every interrupt off.
func (g *GPIO) Init(base uintptr) {
	g.base = base
	cpu.Write32(base+regIE, 0)
	cpu.Write32(base+regIC, 0xff)
}

func (g *GPIO) data(line int) uintptr { return g.base + regData + uintptr(1<<line)<<2 }

func (g *GPIO) set(reg uintptr, line int, on bool) {
	v := cpu.Read32(g.base + reg)
	if on {
		v |= 1 << line
	} else {
		v &^= 1 << line
	}
	cpu.Write32(g.base+reg, v)
}

// IsOutput says whether line drives its pin.
func (g *GPIO) IsOutput(line int) bool { return cpu.Read32(g.base+regDir)>>line&1 != 0 }

// Input makes line an input.
func (g *GPIO) Input(line int) { g.set(regDir, line, false) }

// Output drives line at high: the level, the direction, and the level
// again, as Linux's pl061_direction_output does: the block ignores a
// data write to an input line (QEMU's model too), so the first write
// only keeps a block that takes it from driving the old level.
func (g *GPIO) Output(line int, high bool) {
	g.Set(line, high)
	g.set(regDir, line, true)
	g.Set(line, high)
}

// Get reads line's level.
func (g *GPIO) Get(line int) bool { return cpu.Read32(g.data(line)) != 0 }

// Set drives line (the masked address touches no other line).
func (g *GPIO) Set(line int, high bool) {
	v := uint32(0)
	if high {
		v = 1 << line
	}
	cpu.Write32(g.data(line), v)
}

// SetEdges makes line interrupt on its rising and falling edges, or not
// at all, as pl061_irq_type does: edge-sensitive, both edges through
// GPIOIBE, one through GPIOIEV; a stale edge is cleared first.
func (g *GPIO) SetEdges(line int, rising, falling bool) {
	g.set(regIE, line, false)
	cpu.Write32(g.base+regIC, 1<<line)
	if !rising && !falling {
		return
	}
	g.set(regIS, line, false)
	g.set(regIBE, line, rising && falling)
	g.set(regIEV, line, rising)
	g.set(regIE, line, true)
}

// TakeEvents returns the lines whose edges interrupted, and clears them.
func (g *GPIO) TakeEvents() uint32 {
	v := cpu.Read32(g.base + regMIS)
	if v != 0 {
		cpu.Write32(g.base+regIC, v)
	}
	return v
}
