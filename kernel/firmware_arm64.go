package kernel

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/cpu"
)

// The Raspberry Pi's firmware properties (docs/ARCHITECTURE.md, "The
// Raspberry Pi's devices"): asked once at boot through the mailbox's
// property channel when the device tree has one, and kept here for the
// Linux layer's /proc/cpuinfo; the SoC's temperature is asked at each
// read (SoCTemperature).

// Board is what the firmware said of the board; Present is false on a
// machine without the Pi's mailbox (QEMU virt), or when it did not
// answer.
var Board struct {
	Present  bool
	Revision uint32 // the board revision code (Linux's "Revision", raspberrypi.com's table)
	Serial   uint64
	MAC      [6]byte
	// The ARM's and the VideoCore's share of RAM below 1 GiB (the
	// split config.txt's gpu_mem sets), in bytes.
	ARMBase, ARMSize uint32
	VCBase, VCSize   uint32
	// ARMClock is the ARM cores' clock in Hz (0: not said).
	ARMClock uint32
}

var (
	mailbox bcm2711.Mailbox
	// mailboxBuf is the property buffer: in the kernel's image, which
	// the Pi's boot loader puts below 1 GiB (where the VideoCore sees
	// RAM), 16-byte aligned as the mailbox wants (the address's low
	// four bits carry the channel): mailboxWords leaves room to align.
	mailboxWords [bcm2711.PropWords + 6 + 4]uint32
	propValue    [bcm2711.PropWords]uint32
)

// mailboxAlign is the buffer's alignment (the channel's bits).
const mailboxAlign = 16

func initFirmware() {
	n := dtb.FindCompatible(-1, "brcm,bcm2835-mbox")
	if n < 0 {
		return
	}
	addr, ok := enabledDevice(n)
	if !ok {
		return
	}
	va := (uintptr(unsafe.Pointer(&mailboxWords)) + mailboxAlign - 1) &^ (mailboxAlign - 1)
	mailbox.Init(cpu.KVA(addr), (*[bcm2711.PropWords + 6]uint32)(cpu.Ptr(va)), cpu.KPA(va))
	rev, ok := property(bcm2711.TagBoardRevision, 4)
	if !ok {
		logLine("firmware: the mailbox did not answer; no board properties")
		return
	}
	Board.Present, Board.Revision = true, rev[0]
	if v, ok := property(bcm2711.TagBoardSerial, 8); ok {
		Board.Serial = uint64(v[0]) | uint64(v[1])<<32
	}
	if v, ok := property(bcm2711.TagMACAddress, 8); ok {
		for i := range Board.MAC {
			Board.MAC[i] = byte(v[i/4] >> (8 * (i % 4)))
		}
	}
	if v, ok := property(bcm2711.TagARMMemory, 8); ok {
		Board.ARMBase, Board.ARMSize = v[0], v[1]
	}
	if v, ok := property(bcm2711.TagVCMemory, 8); ok {
		Board.VCBase, Board.VCSize = v[0], v[1]
	}
	propValue[0] = bcm2711.ClockARM
	if v, ok := propertyWith(bcm2711.TagClockRate, 8); ok {
		Board.ARMClock = v[1]
	}
	if Info("firmware: board revision ") {
		putHexDigits(uint64(Board.Revision), 6)
		Puts(", serial ")
		putHexDigits(Board.Serial, 16)
		Puts(", MAC ")
		for i, b := range Board.MAC {
			if i > 0 {
				Puts(":")
			}
			putHexDigits(uint64(b), 2)
		}
		Puts(", ARM memory ")
		putMiB(uint64(Board.ARMSize))
		Puts(", VideoCore ")
		putMiB(uint64(Board.VCSize))
		if Board.ARMClock != 0 {
			Puts(", ARM clock ")
			PutDec(int64(Board.ARMClock / 1e6))
			Puts(" MHz")
		}
		InfoEnd()
	}
}

// property asks the firmware for tag with no argument and room bytes
// for the answer.
func property(tag uint32, room uint32) (*[bcm2711.PropWords]uint32, bool) {
	propValue = [bcm2711.PropWords]uint32{}
	return propertyWith(tag, room)
}

// propertyWith is property with the argument words already in propValue.
func propertyWith(tag uint32, room uint32) (*[bcm2711.PropWords]uint32, bool) {
	_, ok := mailbox.Property(tag, &propValue, room)
	return &propValue, ok
}

// SoCTemperature is the SoC's temperature in millidegrees Celsius, as
// the firmware measures it now (thermal sensor 0); false without the
// firmware. Under the kernel lock.
func SoCTemperature() (int32, bool) {
	if !Board.Present {
		return 0, false
	}
	propValue = [bcm2711.PropWords]uint32{}
	v, ok := propertyWith(bcm2711.TagTemperature, 8)
	return int32(v[1]), ok
}

// BoardModel is the device tree's model ("Raspberry Pi 4 Model B"),
// without its NUL; empty when it has none.
func BoardModel() []byte {
	m, ok := dtb.StringProp(dtb.Root(), "model")
	if !ok {
		return nil
	}
	for len(m) > 0 && m[len(m)-1] == 0 {
		m = m[:len(m)-1]
	}
	return m
}

// DTRootProp is the device tree root's property name as the tree holds
// it (a string's NUL included), nil when it has none.
func DTRootProp(name string) []byte {
	v, ok := dtb.Prop(dtb.Root(), name)
	if !ok {
		return nil
	}
	return v
}
