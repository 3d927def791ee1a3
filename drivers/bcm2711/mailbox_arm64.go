package bcm2711

import (
	"sync/atomic"
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
)

// The mailbox's property channel: how the ARM asks the VideoCore's
// firmware about the board (its revision, serial, MAC address, memory
// split, clock rates, the SoC's temperature). Registers as Linux's
// drivers/mailbox/bcm2835-mailbox.c names them (mailbox 0 is the
// VideoCore's to the ARM, mailbox 1 the ARM's to the VideoCore); the
// buffer's layout and the tags are the firmware's "Mailbox property
// interface" (raspberrypi/firmware wiki) and Linux's
// include/soc/bcm2835/raspberrypi-firmware.h.
const (
	mail0Read   = 0x00 // the answer: the buffer's bus address | channel
	mail0Status = 0x18
	mail1Write  = 0x20 // a request: the buffer's bus address | channel
	mail1Status = 0x38

	mailFull  = 1 << 31
	mailEmpty = 1 << 30

	// ChannelProperty is the ARM-to-VideoCore property channel.
	ChannelProperty = 8

	// busAlias is how the VideoCore addresses the ARM's RAM below 1 GiB
	// (uncached, the "0xC" alias: BCM2711 ARM Peripherals §1.2).
	busAlias = 0xC0000000

	propRequest  = 0
	propOK       = 0x80000000 // the buffer's code when the firmware answered
	propTagReply = 1 << 31    // a tag's request/response word once answered

	// PropWords is the most value words one tag carries here.
	PropWords = 8
	// pollLimit bounds the status polls of one request (each an MMIO
	// read, well under a second in all): a firmware that does not
	// answer is an error, not a hang.
	pollLimit = 1 << 22
)

// Tags (raspberrypi-firmware.h, enum rpi_firmware_property_tag).
const (
	TagBoardModel     = 0x00010001
	TagBoardRevision  = 0x00010002
	TagMACAddress     = 0x00010003
	TagBoardSerial    = 0x00010004
	TagARMMemory      = 0x00010005
	TagVCMemory       = 0x00010006
	TagClockRate      = 0x00030002
	TagTemperature    = 0x00030006
	TagMaxTemperature = 0x0003000a

	// The framebuffer's (RPI_FIRMWARE_FRAMEBUFFER_*): allocate (the
	// alignment in; the bus address and size out), the display's
	// size, the buffer's physical and virtual sizes, its depth and
	// pixel order (0: BGR, 1: RGB), its pitch, and the virtual offset
	// shown (panning).
	TagFBAllocate      = 0x00040001
	TagFBGetPhysSize   = 0x00040003
	TagFBSetPhysSize   = 0x00048003
	TagFBSetVirtSize   = 0x00048004
	TagFBSetDepth      = 0x00048005
	TagFBSetPixelOrder = 0x00048006
	TagFBGetPitch      = 0x00040008
	TagFBSetVirtOffset = 0x00048009
)

// Clock ids for TagClockRate (raspberrypi-firmware.h).
const (
	ClockEMMC = 1
	ClockUART = 2
	ClockARM  = 3
	ClockCore = 4
)

// A Mailbox is the property channel of the mailbox at base (a kernel
// address), asking through buf: at least 16-byte aligned, below 1 GiB,
// (PropWords+6)*4 bytes, and its physical address bufPA.
type Mailbox struct {
	base  uintptr
	buf   *[PropWords + 6]uint32
	bufPA uintptr
	busy  atomic.Uint32
}

// Init sets the mailbox up; it asks nothing yet.
func (m *Mailbox) Init(base uintptr, buf *[PropWords + 6]uint32, bufPA uintptr) {
	*m = Mailbox{base: base, buf: buf, bufPA: bufPA}
}

// Property asks the firmware for one tag: value holds the request's
// words (room bytes of it for the answer, at most PropWords*4) and gets
// the answer's. It returns the answer's length in bytes, and false when
// the firmware did not answer in time, refused the buffer or did not
// know the tag.
func (m *Mailbox) Property(tag uint32, value *[PropWords]uint32, room uint32) (uint32, bool) {
	if m.base == 0 || room > PropWords*4 {
		return 0, false
	}
	// One exchange at a time: the kernel lock serialises its callers
	// but for the screen's console drawn by a core reporting a panic
	// without it. A mailbox held past the poll limit is an error, not a
	// wait forever.
	for n := 0; !m.busy.CompareAndSwap(0, 1); n++ {
		if n > pollLimit {
			return 0, false
		}
	}
	got, ok := m.exchange(tag, value, room)
	m.busy.Store(0)
	return got, ok
}

// exchange is Property's request and answer, the mailbox held.
func (m *Mailbox) exchange(tag uint32, value *[PropWords]uint32, room uint32) (uint32, bool) {
	b := m.buf
	words := 6 + room/4
	b[0], b[1] = words*4, propRequest
	b[2], b[3], b[4] = tag, room, 0
	copy(b[5:5+PropWords], value[:])
	b[5+room/4] = 0 // the end tag
	va := uintptr(unsafe.Pointer(b))
	// The VideoCore reads RAM, not the ARM's caches: the request to the
	// point of coherency before the write, and the lines dropped before
	// the answer is read (no stale copy hides it).
	cpu.CleanInvalidateDcache(va, uintptr(words)*4)
	n := 0
	for cpu.Read32(m.base+mail1Status)&mailFull != 0 {
		if n++; n > pollLimit {
			return 0, false
		}
	}
	cpu.Write32(m.base+mail1Write, uint32(busAlias|m.bufPA)|ChannelProperty)
	for {
		for cpu.Read32(m.base+mail0Status)&mailEmpty != 0 {
			if n++; n > pollLimit {
				return 0, false
			}
		}
		if v := cpu.Read32(m.base + mail0Read); v&0xf == ChannelProperty {
			break // another channel's answer is not ours
		}
	}
	cpu.CleanInvalidateDcache(va, uintptr(words)*4)
	if b[1] != propOK || b[4]&propTagReply == 0 {
		return 0, false
	}
	got := b[4] &^ propTagReply
	copy(value[:], b[5:5+PropWords])
	return got, true
}
