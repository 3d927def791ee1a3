// Package gic drives the Arm Generic Interrupt Controller, version 2
// (GIC-400 on the Raspberry Pi 4, the default on QEMU virt). Offsets are
// from the "GICv2 Architecture Specification" (Arm IHI 0048B), §4.1.
package gic

import "github.com/gometal/gometal/drivers/cpu"

const (
	gicdCTLR       = 0x000
	gicdTYPER      = 0x004
	gicdISENABLER  = 0x100
	gicdICENABLER  = 0x180
	gicdIPRIORITYR = 0x400
	gicdITARGETSR  = 0x800
	gicdICFGR      = 0xC00
	gicdSGIR       = 0xF00

	giccCTLR = 0x00
	giccPMR  = 0x04
	giccIAR  = 0x0C
	giccEOIR = 0x10

	// Spurious is the INTID the CPU interface returns when nothing is
	// pending (IHI 0048B §3.2.4).
	Spurious = 1023

	priorityDefault = 0xA0
	pmrAllowAll     = 0xFF
	firstSPI        = 32
)

// GIC is one distributor plus the CPU interface every core sees at the
// same address (its registers are banked per core).
type GIC struct {
	dist, cpuif uintptr
	lines       uint32
	// target is each core's CPU-interface bit for GICD_SGIR and
	// GICD_ITARGETSR, read by the core itself in InitCPU.
	target [cpu.MaxCPUs]uint8
}

// InitDistributor enables the distributor and routes every SPI to core 0.
func (g *GIC) InitDistributor(dist, cpuif uintptr) {
	g.dist, g.cpuif = dist, cpuif
	g.lines = (cpu.Read32(dist+gicdTYPER)&0x1F + 1) * 32
	cpu.Write32(dist+gicdCTLR, 0)
	for i := uint32(firstSPI); i < g.lines; i += 4 {
		cpu.Write32(dist+gicdITARGETSR+uintptr(i), 0x01010101)
		cpu.Write32(dist+gicdIPRIORITYR+uintptr(i), priorityDefault*0x01010101)
	}
	cpu.Write32(dist+gicdCTLR, 1)
}

// InitCPU enables the calling core's CPU interface and lets every
// priority in. It also learns the core's target bit: a read of
// GICD_ITARGETSR0 returns the reading core's own bit (IHI 0048B §4.3.12);
// a uniprocessor GIC reads as zero there, and core 0's bit is then 1.
func (g *GIC) InitCPU(core int) {
	t := uint8(cpu.Read32(g.dist + gicdITARGETSR))
	if t == 0 {
		t = 1 << uint(core)
	}
	g.target[core] = t
	for i := uintptr(0); i < firstSPI; i += 4 {
		cpu.Write32(g.dist+gicdIPRIORITYR+i, priorityDefault*0x01010101)
	}
	cpu.Write32(g.cpuif+giccPMR, pmrAllowAll)
	cpu.Write32(g.cpuif+giccCTLR, 1)
}

// Enable unmasks one interrupt (SGIs and PPIs are banked per core).
func (g *GIC) Enable(intid uint32) {
	cpu.Write32(g.dist+gicdISENABLER+uintptr(intid/32)*4, 1<<(intid%32))
}

// Ack returns the highest-priority pending interrupt (GICC_IAR); the raw
// value must be passed to EOI.
func (g *GIC) Ack() uint32 { return cpu.Read32(g.cpuif + giccIAR) }

// EOI ends handling of an interrupt Ack returned.
func (g *GIC) EOI(iar uint32) { cpu.Write32(g.cpuif+giccEOIR, iar) }

// SendSGI raises software-generated interrupt id on one core
// (GICD_SGIR TargetListFilter = 0: the cores in CPUTargetList, §4.3.15).
func (g *GIC) SendSGI(id uint32, core int) {
	cpu.Write32(g.dist+gicdSGIR, uint32(g.target[core])<<16|id&0xF)
}
