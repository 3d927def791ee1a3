package mm

import "github.com/gometal/gometal/drivers/cpu"

// flushPage removes va's translation from every core's TLB (TLBI VAAE1IS
// between DSBs: the new entry is visible first, the invalidation complete
// on all cores after).
func flushPage(va uintptr) { cpu.TLBIPage(va) }

// publish orders page-table stores before later walks on any core.
func publish() { cpu.BarrierISHST() }
