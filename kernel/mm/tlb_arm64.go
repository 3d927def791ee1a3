package mm

import "github.com/gometal/gometal/drivers/cpu"

// flushPage removes va's translation from every core's TLB, whatever
// its ASID (TLBI VAAE1IS between DSBs: the new entry is visible first,
// the invalidation complete on all cores after): for the kernel's own
// mappings (window.go).
func flushPage(va uintptr) { cpu.TLBIPage(va) }

// flushKernel removes every translation of every ASID from every core's
// TLB (TLBI VMALLE1IS): for an unmap of many kernel pages at once.
func flushKernel() { cpu.TLBIAll() }

// flushUserPage removes va's translation in the address space whose ID
// (asid.go) is *id from every core's TLB: TLBI VAE1IS with its ASID,
// as Linux's flush_tlb_page (arch/arm64/include/asm/tlbflush.h). The
// app's entries are not global (nG) and carry the ASID, so the other
// spaces' translations of va stay in the TLBs. An ASID from a
// generation that has rolled over is still the right one: a space a
// core runs across a rollover keeps its ASID (reserved), and a core
// drops its whole TLB before it first uses the new generation's.
func flushUserPage(id *uint64, va uintptr) { cpu.TLBIPageASID(va, id, asidMask) }

// flushSpace removes every translation of the address space whose ID
// is *id from every core's TLB (TLBI ASIDE1IS, Linux's flush_tlb_mm).
func flushSpace(id *uint64) { cpu.TLBIASID(id, asidMask) }

// publish orders page-table stores before later walks on any core.
func publish() { cpu.BarrierISHST() }

// fence is a full barrier between cores (DMB ISH): Pin's and quiesce's
// store of their flag comes before their load of the other's. A
// store-release then a load-acquire would be enough on the architecture,
// but QEMU's TCG does not keep them in order on an x86 host (README),
// and a DMB is a full fence there.
func fence() { cpu.BarrierISH() }

// syncICache makes data just written to frames fetchable as
// instructions on every core (IC IALLUIS): a file's page-cache frames
// mapped executable (fileFault).
func syncICache() { cpu.ICacheInvalidate() }
