package virtio

import "github.com/gometal/gometal/drivers/cpu"

// virtio-mmio registers (virtio 1.2 §4.2.2, Table 4.1), offsets from the
// device's base.
const (
	regMagic          = 0x000
	regVersion        = 0x004
	regDeviceID       = 0x008
	regDeviceFeatures = 0x010
	regDeviceFeatSel  = 0x014
	regDriverFeatures = 0x020
	regDriverFeatSel  = 0x024
	regQueueSel       = 0x030
	regQueueNumMax    = 0x034
	regQueueNum       = 0x038
	regQueueReady     = 0x044
	regQueueNotify    = 0x050
	regIntStatus      = 0x060
	regIntACK         = 0x064
	regStatus         = 0x070
	regQueueDescLo    = 0x080
	regQueueDescHi    = 0x084
	regQueueDriverLo  = 0x090
	regQueueDriverHi  = 0x094
	regQueueDeviceLo  = 0x0a0
	regQueueDeviceHi  = 0x0a4
	regConfig         = 0x100

	magicValue    = 0x74726976 // "virt", little-endian
	versionModern = 2          // 1 is the legacy layout (QEMU: force-legacy=on)
)

// Device IDs (§5).
const (
	DeviceNone = 0 // an empty slot: QEMU virt lists 32, most unused
	DeviceNet  = 1
)

// Device status bits (§2.1).
const (
	statusAcknowledge = 1
	statusDriver      = 2
	statusDriverOK    = 4
	statusFeaturesOK  = 8
	statusFailed      = 128
)

// featureVersion1 (VIRTIO_F_VERSION_1, §6) marks a modern device; the
// driver must accept it, or the device falls back to legacy behaviour.
const featureVersion1 = 32

// Probe reports the device ID of the virtio-mmio slot at base (a kernel
// virtual address), DeviceNone for an empty slot, and whether the slot
// speaks the modern transport at all.
func Probe(base uintptr) (id uint32, modern bool) {
	if cpu.Read32(base+regMagic) != magicValue {
		return DeviceNone, false
	}
	return cpu.Read32(base + regDeviceID), cpu.Read32(base+regVersion) == versionModern
}

// negotiate runs the start of device initialization (§3.1.1 steps 1-6):
// reset, ACKNOWLEDGE, DRIVER, then offer the features in want that the
// device has (VERSION_1 always) and check it took them. It returns the
// features agreed on.
func negotiate(base uintptr, want uint64) (uint64, bool) {
	cpu.Write32(base+regStatus, 0) // reset
	for cpu.Read32(base+regStatus) != 0 {
	}
	cpu.Write32(base+regStatus, statusAcknowledge)
	cpu.Write32(base+regStatus, statusAcknowledge|statusDriver)
	cpu.Write32(base+regDeviceFeatSel, 0)
	has := uint64(cpu.Read32(base + regDeviceFeatures))
	cpu.Write32(base+regDeviceFeatSel, 1)
	has |= uint64(cpu.Read32(base+regDeviceFeatures)) << 32
	want |= 1 << featureVersion1
	got := has & want
	if got&(1<<featureVersion1) == 0 {
		cpu.Write32(base+regStatus, statusFailed)
		return 0, false
	}
	cpu.Write32(base+regDriverFeatSel, 0)
	cpu.Write32(base+regDriverFeatures, uint32(got))
	cpu.Write32(base+regDriverFeatSel, 1)
	cpu.Write32(base+regDriverFeatures, uint32(got>>32))
	cpu.Write32(base+regStatus, statusAcknowledge|statusDriver|statusFeaturesOK)
	if cpu.Read32(base+regStatus)&statusFeaturesOK == 0 { // §3.1.1 step 6
		cpu.Write32(base+regStatus, statusFailed)
		return 0, false
	}
	return got, true
}

// driverOK ends initialization (§3.1.1 step 8): the device may now use
// the queues.
func driverOK(base uintptr) {
	cpu.Write32(base+regStatus, statusAcknowledge|statusDriver|statusFeaturesOK|statusDriverOK)
}

// ackInterrupt acknowledges the device's interrupt causes (used buffer,
// configuration change), whichever it raised.
func ackInterrupt(base uintptr) {
	if st := cpu.Read32(base + regIntStatus); st != 0 {
		cpu.Write32(base+regIntACK, st)
	}
}

func configByte(base uintptr, off uintptr) byte {
	// Config space may be read bytewise (§4.2.2.2 allows 8-bit access to
	// device-specific configuration); read the aligned word and pick.
	w := cpu.Read32(base + regConfig + off&^3)
	return byte(w >> (8 * (off & 3)))
}
