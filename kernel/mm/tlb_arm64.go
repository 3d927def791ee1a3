package mm

import "github.com/gometal/gometal/drivers/cpu"

// flushPage removes va's translation from every core's TLB (TLBI VAAE1IS
// between DSBs: the new entry is visible first, the invalidation complete
// on all cores after).
func flushPage(va uintptr) { cpu.TLBIPage(va) }

// flushAll removes every translation from every core's TLB (TLBI
// VMALLE1IS).
func flushAll() { cpu.TLBIAll() }

// publish orders page-table stores before later walks on any core.
func publish() { cpu.BarrierISHST() }

// fence is a full barrier between cores (DMB ISH): Pin's and quiesce's
// store of their flag comes before their load of the other's. A
// store-release then a load-acquire would be enough on the architecture,
// but QEMU's TCG does not keep them in order on an x86 host (README),
// and a DMB is a full fence there.
func fence() { cpu.BarrierISH() }
