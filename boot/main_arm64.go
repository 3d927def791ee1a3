// Command boot is the gometal kernel image: the assembly entry that the
// arm64 Linux Image header branches to (EL2→EL1, early page tables, MMU and
// caches on, jump to the high half), then kernel.Start.
//
// It is built by the stock toolchain as a linux/arm64 program, linked at
// the board's load address in the kernel half of the address space
// (linker/board.go), and its Go runtime is never started: main.main is
// never called. See ARCHITECTURE.md.
package main

import "gometal/kernel"

func main() {}

// entry is the first instruction after the Image header (entry_arm64.s).
func entry()

// kmain runs on the boot stack with the MMU on, in the high half.
func kmain(dtbPA, bootStackLo, entryEL uintptr) {
	kernel.Start(dtbPA, bootStackLo, entryEL)
}
