package gic

import "github.com/gometal/gometal/drivers/cpu"

// The board's interrupt controller, whichever version it is. The kernel
// sets it up once on the boot core (InitV2 or InitV3), then every core
// calls InitCPU for its own CPU interface. Callers name cores by the
// kernel's core number; each version turns that into its own addressing.

var (
	v2   GIC
	v3   V3
	isV3 bool
)

// SGIWake is the software-generated interrupt one core sends another to
// make it look at its run queue (a thread was made runnable there, or a
// signal is pending for the thread it runs).
const SGIWake = 0

// InitV2 sets up a GICv2 distributor (dist) and CPU interface (cpuif).
func InitV2(dist, cpuif uintptr) { v2.InitDistributor(dist, cpuif) }

// InitV3 sets up a GICv3 distributor and the redistributor region.
func InitV3(dist, redist uintptr) {
	isV3 = true
	v3.InitDistributor(dist, redist)
}

// InitCPU enables the calling core's CPU interface; core is its number.
func InitCPU(core int) {
	if isV3 {
		v3.InitCPU(core)
	} else {
		v2.InitCPU(core)
	}
}

// Enable unmasks interrupt id; SGIs and PPIs are per core, so core must be
// the calling core for those.
func Enable(core int, id uint32) {
	if isV3 {
		v3.Enable(core, id)
	} else {
		v2.Enable(id)
	}
}

// Ack acknowledges the highest-priority pending interrupt; pass the value
// to EOI. Its low 10 bits are the INTID (Spurious when none).
func Ack() uint32 {
	if isV3 {
		return v3.Ack()
	}
	return v2.Ack()
}

// ID is the INTID in an acknowledge value (GICC_IAR.InterruptID, bits
// [9:0], IHI 0048B §4.4.4; every INTID the kernel enables on GICv3 fits
// in them too).
func ID(iar uint32) uint32 { return iar & idMask }

// idMask selects GICC_IAR's InterruptID field.
const idMask = 0x3FF

// EOI ends handling of what Ack returned.
func EOI(iar uint32) {
	if isV3 {
		v3.EOI(iar)
	} else {
		v2.EOI(iar)
	}
}

// SendSGI raises software-generated interrupt id on core.
func SendSGI(id uint32, core int) {
	// What the sender wrote to memory before must be visible to the
	// target once it takes the interrupt: the SGI's write (a device
	// register on GICv2, a system register on GICv3) is not ordered
	// after normal stores by a DMB, so a DSB ISHST first, as Linux's
	// gic_ipi_send_mask (irq-gic-v3.c) does.
	cpu.BarrierISHST()
	if isV3 {
		v3.SendSGI(id, core)
	} else {
		v2.SendSGI(id, core)
	}
}
