package cpu

import "sync/atomic"

// KernBase is where physical address 0 appears in the kernel's half of the
// address space (TTBR1, 48-bit: ARM ARM D8.2 "Translation table walk":
// TCR_EL1.T1SZ = 16 puts TTBR1 at 0xFFFF_0000_0000_0000). Every physical
// address PA is reachable at KernBase+PA: RAM as Normal memory, the rest as
// Device memory. The kernel ELF is linked at KernBase + its load address.
const KernBase = 0xFFFF_0000_0000_0000

// PageSize is the translation granule (TCR_EL1.TG0/TG1 = 4 KiB).
const PageSize = 4096

// MaxCPUs bounds the per-core arrays.
const MaxCPUs = 8

// KVA turns a physical address into its kernel virtual address.
func KVA(pa uintptr) uintptr { return pa + KernBase }

// KPA turns a kernel direct-map address back into a physical address.
func KPA(va uintptr) uintptr { return va - KernBase }

// Read32 / Write32 are MMIO accessors. sync/atomic keeps the compiler from
// merging or dropping accesses, which a plain pointer store would allow.
func Read32(va uintptr) uint32 {
	return atomic.LoadUint32((*uint32)(ptr(va)))
}

func Write32(va uintptr, v uint32) {
	atomic.StoreUint32((*uint32)(ptr(va)), v)
}
