package gpio

import "unsafe"

// gpio-mockup (Linux's drivers/gpio/gpio-mockup.c,
// Documentation/admin-guide/gpio/gpio-mockup.rst): a chip of simulated
// lines for testing programs that use GPIO, with no hardware. Each line
// has a pull a test sets by writing "0" or "1" to its debugfs file
// (/sys/kernel/debug/gpio-mockup/gpiochipN/OFFSET); an input line
// follows its pull, and a change the line's edge detection watches is
// an edge event, as the simulated interrupt (irq_sim) makes it. It is
// how gpiolib-cdev's events are tested where the hardware cannot make
// an edge (QEMU's bcm2838-gpio models no input and no event detector).
// The boot argument gpio_mockup.gpio_mockup_ranges=-1,N makes one chip
// of N lines; gpio_mockup.gpio_mockup_named_lines names them
// gpio-mockup-A-0 and on.

// MockupLabel is the chip's label (gpio-mockup's "gpio-mockup-A": the
// first chip).
const MockupLabel = "gpio-mockup-A"

// Mockup is the simulated chip's lines.
type Mockup struct {
	out, value, pull uint64 // a bit per line
	rising, falling  uint64 // edge detection, physical
	chip             int
	names            [MaxLines][len(MockupLabel) + 4]byte
}

// Mock is the one mockup chip.
var Mock Mockup

// RegisterMockup adds a mockup chip of n lines, named when named, and
// returns its number, or -1.
func RegisterMockup(n int, named bool) int {
	if n <= 0 || n > MaxLines {
		return -1
	}
	c := Register(MockupLabel, n, &Mock)
	if c < 0 {
		return -1
	}
	Mock.chip = c
	if named {
		for k := 0; k < n; k++ {
			b := &Mock.names[k]
			l := copy(b[:], MockupLabel)
			b[l] = '-'
			l++
			if k >= 10 {
				b[l] = byte('0' + k/10)
				l++
			}
			b[l] = byte('0' + k%10)
			Chips[c].Names[k] = unsafe.String(&b[0], l+1) // no copy: the kernel has no heap
		}
	}
	return c
}

func (m *Mockup) IsOutput(line int) bool { return m.out>>line&1 != 0 }
func (m *Mockup) Get(line int) bool      { return m.value>>line&1 != 0 }
func (m *Mockup) Input(line int) {
	m.out &^= 1 << line
	m.setValue(line, m.pull>>line&1 != 0) // an input follows its pull
}
func (m *Mockup) Output(line int, high bool) {
	m.out |= 1 << line
	m.setValue(line, high)
}
func (m *Mockup) Set(line int, high bool) {
	if m.IsOutput(line) {
		m.setValue(line, high)
	}
}

// SetBias is gpio_mockup_set_config: a pull up or down is the line's
// pull, as the debugfs file sets it; no pull leaves it.
func (m *Mockup) SetBias(line int, bias Flags) {
	switch bias {
	case BiasPullUp:
		m.Pull(line, true)
	case BiasPullDown:
		m.Pull(line, false)
	}
}

func (m *Mockup) SetEdges(line int, rising, falling bool) {
	bit := uint64(1) << line
	m.rising &^= bit
	m.falling &^= bit
	if rising {
		m.rising |= bit
	}
	if falling {
		m.falling |= bit
	}
}

// Pull sets line's pull (gpio_mockup_apply_pull): an input follows it;
// an output the program drives does not.
func (m *Mockup) Pull(line int, high bool) {
	if high {
		m.pull |= 1 << line
	} else {
		m.pull &^= 1 << line
	}
	if !m.IsOutput(line) {
		m.setValue(line, high)
	}
}

// setValue changes line's value, and reports an edge its detection
// watches.
func (m *Mockup) setValue(line int, high bool) {
	bit := uint64(1) << line
	was := m.value&bit != 0
	if high {
		m.value |= bit
	} else {
		m.value &^= bit
	}
	if was != high && (high && m.rising&bit != 0 || !high && m.falling&bit != 0) {
		Edge(m.chip, line, high)
	}
}
