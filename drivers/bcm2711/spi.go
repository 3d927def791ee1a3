package bcm2711

import "github.com/gometal/gometal/drivers/cpu"

// The SPI masters SPI0 and SPI3-6 (BCM2711 ARM Peripherals chapter 9,
// and Linux's drivers/spi/spi-bcm2835.c, whose polled mode this
// follows): a transfer clocks bytes out of and into a 64-byte FIFO each
// way while TA holds the chip select asserted, which stays so across
// the transfers of one message until End.
const (
	spiCS   = 0x00 // control and status
	spiFIFO = 0x04
	spiCLK  = 0x08 // the core clock's divider (even; 0 is 65536)

	spiCPHA     = 1 << 2
	spiCPOL     = 1 << 3
	spiClearTx  = 1 << 4
	spiClearRx  = 1 << 5
	spiCSPOL    = 1 << 6 // the chip selects are active high
	spiActive   = 1 << 7 // TA
	spiDone     = 1 << 16
	spiRXD      = 1 << 17 // the receive FIFO holds data
	spiTXD      = 1 << 18 // the transmit FIFO has room
	spiFIFOSize = 64

	// The modes' bits as Linux's spi.h numbers them (SPI_CPHA,
	// SPI_CPOL, SPI_CS_HIGH), which the register's bits are not.
	SPIModeCPHA   = 0x01
	SPIModeCPOL   = 0x02
	SPIModeCSHigh = 0x04
)

// SPI is one controller at base (a kernel address), clocked from coreHz.
type SPI struct {
	base   uintptr
	coreHz uint32
	cs     uint32 // the CS register's mode bits for the message under way
}

// Init sets the controller at base up; nothing is selected.
func (s *SPI) Init(base uintptr, coreHz uint32) {
	*s = SPI{base: base, coreHz: coreHz}
	cpu.Write32(base+spiCS, spiClearTx|spiClearRx)
}

// Rate is the bus clock a request for hz gets: the core clock over an
// even divider no smaller than it needs (spi-bcm2835's
// bcm2835_spi_transfer_one: the next even one, never faster than asked).
func (s *SPI) Rate(hz uint32) (rate, div uint32) {
	if hz == 0 || hz >= s.coreHz/2 {
		return s.coreHz / 2, 2
	}
	div = (s.coreHz + hz - 1) / hz
	div += div & 1
	if div >= 65536 {
		return s.coreHz / 65536, 0
	}
	return s.coreHz / div, div
}

// Begin selects chip select cs with mode (SPIMode* bits) at hz, emptied
// FIFOs, for the transfers of one message.
func (s *SPI) Begin(cs int, mode uint8, hz uint32) {
	_, div := s.Rate(hz)
	cpu.Write32(s.base+spiCLK, div)
	c := uint32(cs & 3)
	if mode&SPIModeCPHA != 0 {
		c |= spiCPHA
	}
	if mode&SPIModeCPOL != 0 {
		c |= spiCPOL
	}
	if mode&SPIModeCSHigh != 0 {
		c |= spiCSPOL
	}
	s.cs = c
	cpu.Write32(s.base+spiCS, c|spiClearTx|spiClearRx)
	cpu.Write32(s.base+spiCS, c|spiActive)
}

// Transfer clocks len(rx) (or len(tx)) bytes: tx's out (zeros when tx
// is nil), what comes in into rx (dropped when rx is nil), polling the
// FIFOs until the last byte came back or the deadline (a counter
// value) passed: false then.
func (s *SPI) Transfer(tx, rx []byte, n int, deadline uint64) bool {
	sent, got := 0, 0
	for got < n {
		st := cpu.Read32(s.base + spiCS)
		// Keep no more than a FIFO's worth in flight, so the receive
		// FIFO never overflows while this loop is elsewhere.
		for sent < n && sent-got < spiFIFOSize && st&spiTXD != 0 {
			var b byte
			if tx != nil {
				b = tx[sent]
			}
			cpu.Write32(s.base+spiFIFO, uint32(b))
			sent++
			st = cpu.Read32(s.base + spiCS)
		}
		for got < sent && st&spiRXD != 0 {
			b := byte(cpu.Read32(s.base + spiFIFO))
			if rx != nil {
				rx[got] = b
			}
			got++
			st = cpu.Read32(s.base + spiCS)
		}
		if got < n && cpu.ReadCNTVCT() > deadline {
			return false
		}
	}
	return true
}

// End waits for the last bit to leave and deselects the chip (TA off).
func (s *SPI) End(deadline uint64) {
	for cpu.Read32(s.base+spiCS)&spiDone == 0 && cpu.ReadCNTVCT() <= deadline {
	}
	cpu.Write32(s.base+spiCS, s.cs|spiClearTx|spiClearRx)
}
