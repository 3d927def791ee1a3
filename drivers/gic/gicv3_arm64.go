package gic

import "github.com/gometal/gometal/drivers/cpu"

// GICv3: a distributor for SPIs, one redistributor per core for SGIs and
// PPIs, and a CPU interface reached through system registers (Arm IHI
// 0069). QEMU virt uses it with -M virt,gic-version=3.

const (
	gicdCTLRARE   = 1 << 4 // affinity routing
	gicdCTLRGrp1  = 1 << 1
	gicdCTLRGrp0  = 1 << 0
	gicdCTLRRWP   = 1 << 31
	gicdIGROUPR   = 0x080
	gicdIROUTER   = 0x6000
	gicrWAKER     = 0x014
	gicrTYPER     = 0x008
	wakerSleep    = 1 << 1 // ProcessorSleep
	wakerAsleep   = 1 << 2 // ChildrenAsleep
	gicrSGIBase   = 0x10000
	gicrFrameSize = 0x20000 // RD_base + SGI_base
	gicrTyperLast = 1 << 4
	iarIDMask     = 0xFFFFFF
)

// V3 is one GICv3 distributor plus a redistributor per core.
type V3 struct {
	dist, redistRegion uintptr
	lines              uint32
	redist             [cpu.MaxCPUs]uintptr // found by each core in InitCPU
	sgiTarget          [cpu.MaxCPUs]uint64  // ICC_SGI1R_EL1 affinity fields
}

func readIAR1() uint64
func writeEOIR1(v uint64)
func writeSGI1R(v uint64)
func enableSysregs()

// InitDistributor enables affinity routing and routes SPIs to core 0.
func (g *V3) InitDistributor(dist, redistRegion uintptr) {
	g.dist = dist
	g.lines = (cpu.Read32(dist+gicdTYPER)&0x1F + 1) * 32
	cpu.Write32(dist+gicdCTLR, 0)
	g.waitRWP()
	for i := uint32(firstSPI); i < g.lines; i += 32 {
		cpu.Write32(dist+gicdIGROUPR+uintptr(i/8), 0xFFFFFFFF) // Group 1
	}
	for i := uint32(firstSPI); i < g.lines; i += 4 {
		cpu.Write32(dist+gicdIPRIORITYR+uintptr(i), priorityDefault*0x01010101)
	}
	for i := uint32(firstSPI); i < g.lines; i++ {
		// Aff3.Aff2.Aff1.Aff0 = 0.0.0.0: core 0.
		cpu.Write32(dist+gicdIROUTER+uintptr(i)*8, 0)
		cpu.Write32(dist+gicdIROUTER+uintptr(i)*8+4, 0)
	}
	cpu.Write32(dist+gicdCTLR, gicdCTLRARE|gicdCTLRGrp1|gicdCTLRGrp0)
	g.waitRWP()
	g.redistRegion = redistRegion
}

func (g *V3) waitRWP() {
	for cpu.Read32(g.dist+gicdCTLR)&gicdCTLRRWP != 0 {
	}
}

// findRedist walks the redistributor frames for the one whose
// GICR_TYPER.Affinity matches this core's MPIDR.
func (g *V3) findRedist(base uintptr, mpidr uint64) uintptr {
	aff := uint32(mpidr&0xFFFFFF) | uint32(mpidr>>32&0xFF)<<24
	for r := base; ; r += gicrFrameSize {
		lo := cpu.Read32(r + gicrTYPER)
		hi := cpu.Read32(r + gicrTYPER + 4)
		if hi == aff {
			return r
		}
		if lo&gicrTyperLast != 0 {
			return base
		}
	}
}

// InitCPU finds the calling core's redistributor, wakes it and enables the
// core's CPU interface. It also records how ICC_SGI1R_EL1 names the core
// (IHI 0069 §12.11.12): Aff3/Aff2/Aff1 fields and Aff0 as a bit of the
// TargetList (cores with Aff0 < 16, which covers every board here).
func (g *V3) InitCPU(core int) {
	mpidr := cpu.ReadMPIDR()
	r := g.findRedist(g.redistRegion, mpidr)
	g.redist[core] = r
	g.sgiTarget[core] = (mpidr>>32&0xFF)<<48 | (mpidr>>16&0xFF)<<32 | (mpidr>>8&0xFF)<<16 | 1<<(mpidr&0xF)
	cpu.Write32(r+gicrWAKER, cpu.Read32(r+gicrWAKER)&^wakerSleep)
	for cpu.Read32(r+gicrWAKER)&wakerAsleep != 0 {
	}
	sgi := r + gicrSGIBase
	cpu.Write32(sgi+gicdIGROUPR, 0xFFFFFFFF)
	for i := uintptr(0); i < firstSPI; i += 4 {
		cpu.Write32(sgi+gicdIPRIORITYR+i, priorityDefault*0x01010101)
	}
	enableSysregs()
}

// Enable unmasks an interrupt: SGIs/PPIs in core's redistributor, SPIs in
// the distributor.
func (g *V3) Enable(core int, intid uint32) {
	if intid < firstSPI {
		cpu.Write32(g.redist[core]+gicrSGIBase+gicdISENABLER, 1<<intid)
		return
	}
	cpu.Write32(g.dist+gicdISENABLER+uintptr(intid/32)*4, 1<<(intid%32))
}

// Ack returns the pending interrupt's INTID (ICC_IAR1_EL1).
func (g *V3) Ack() uint32 { return uint32(readIAR1() & iarIDMask) }

// EOI ends handling of an interrupt.
func (g *V3) EOI(id uint32) { writeEOIR1(uint64(id)) }

// SendSGI raises SGI id on one core.
func (g *V3) SendSGI(id uint32, core int) {
	writeSGI1R(uint64(id&0xF)<<24 | g.sgiTarget[core])
}
