// Command boot is the gometal kernel image: the assembly entry that the
// arm64 Linux Image header branches to (EL2→EL1, early page tables, MMU and
// caches on, jump to the high half), then kernel.Start; and the entry
// where secondary cores start (secondaryEntry), then kernel.SecondaryStart.
//
// It is built by the stock toolchain as a linux/arm64 program, linked at
// the board's load address in the kernel half of the address space
// (linker/board.go), and its Go runtime is never started: main.main is
// never called. See ARCHITECTURE.md.
package main

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/linux"
	"github.com/gometal/gometal/kernel/mm"
)

func main() {}

// Constants the assembly reads through go_asm.h (as const_NAME), so each
// is defined once, where it belongs, and the assembly cannot drift from
// it: KernBase, MAIR_EL1, the core count the per-core arrays have, and where
// secondaryEntry finds its fields in kernel.SecondaryBoot before its MMU
// is on.
const (
	kernBase = cpu.KernBase
	maxCPUs  = cpu.MaxCPUs
	sbTTBR0  = kernel.SecondaryOffTTBR0
	sbTTBR1  = kernel.SecondaryOffTTBR1
	sbMPIDR  = kernel.SecondaryOffMPIDR
	sbCPU    = kernel.SecondaryOffCPU
	sbSP     = kernel.SecondaryOffSP
	// mairValue is MAIR_EL1, the memory types kernel/mm's descriptors
	// name.
	mairValue = mm.MAIRValue
)

// entry is the first instruction after the Image header (entry_arm64.s).
func entry()

func secondaryEntryAddr() uintptr
func bootTablesAddr() uintptr

// secondaryBoot is what a starting secondary core reads before its MMU is
// on; the kernel fills it in (kernel.SecondaryBoot).
var secondaryBoot kernel.SecondaryBoot

var bootInfo kernel.BootInfo

// kmain runs on the boot stack with the MMU on, in the high half.
func kmain(dtbPA, entryEL uintptr) {
	bootInfo.DTB = dtbPA
	bootInfo.EntryEL = entryEL
	bootInfo.BootTTBR0 = cpu.KPA(bootTablesAddr())
	bootInfo.SecondaryEntry = secondaryEntryAddr()
	bootInfo.Secondary = &secondaryBoot
	linux.Install()
	kernel.Start(&bootInfo)
}

// secondaryMain runs on a secondary core's kernel stack with the MMU on.
func secondaryMain(id uintptr) {
	kernel.SecondaryStart(int(id))
}
