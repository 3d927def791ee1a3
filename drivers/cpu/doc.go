// Package cpu owns the ARMv8-A processor primitives the kernel needs and Go
// cannot express: system-register access, barriers, TLB and cache
// maintenance, interrupt masking, WFI/WFE/SEV, and spinlocks.
//
// Everything here is a thin assembly wrapper; policy lives in the callers.
package cpu
