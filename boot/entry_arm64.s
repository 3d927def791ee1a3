#include "textflag.h"
#include "go_asm.h"

// Early boot: from the Image header's branch to the first Go function.
// Runs with the MMU off (all memory is Device: no unaligned accesses, no
// DC ZVA, no exclusives) until highEntry, so it is all assembly and uses
// only PC-relative addressing (ADRP), which yields physical addresses here.

// KernBase: physical address 0 in the TTBR1 half (drivers/cpu.KernBase,
// through boot/main_arm64.go's kernBase).
#define KERNBASE const_kernBase

// Stage-1 block descriptor bits (ARM ARM D8.3 "Translation table descriptor
// formats"): valid, block, AF, inner-shareable, AttrIndx, PXN/UXN.
#define DESC_BLOCK	0x1
#define DESC_TABLE	0x3
#define DESC_AF		(1<<10)
#define DESC_SH_INNER	(3<<8)
#define DESC_ATTR_DEVICE	(0<<2)
#define DESC_ATTR_NORMAL	(1<<2)
#define DESC_PXN	(1<<53)
#define DESC_UXN	(1<<54)
#define BLOCK_NORMAL	(DESC_BLOCK|DESC_AF|DESC_SH_INNER|DESC_ATTR_NORMAL|DESC_UXN)
#define BLOCK_DEVICE	(DESC_BLOCK|DESC_AF|DESC_ATTR_DEVICE|DESC_PXN|DESC_UXN)

// MAIR_EL1 (D13.2.97): kernel/mm.MAIRValue (Attr0 Device-nGnRnE, Attr1
// Normal write-back, Attr2 Normal non-cacheable), through go_asm.h.
#define MAIR_VALUE	const_mairValue

// TCR_EL1 (D13.2.131): T0SZ=T1SZ=16 (48-bit VA), 4 KiB granules (TG0=00,
// TG1=10), walks inner-shareable write-back (SH=11, IRGN=ORGN=01). IPS is
// filled in from ID_AA64MMFR0_EL1.PARange.
#define TCR_VALUE	0xB5103510

// SCTLR_EL1 (D13.2.118): M, C, I on; DZE (EL0 may use DC ZVA: Go's memclr),
// UCT (EL0 reads CTR_EL0), UCI, nTWI, nTWE (EL0 WFI/WFE do not trap); A, SA,
// SA0, WXN off; SPAN=1 (PAN untouched on exceptions); RES1 bits 11, 20, 22,
// 28, 29 set.
#define SCTLR_VALUE	0x34D5D805
#define SCTLR_EL1_RESET	0x30D00800

// HCR_EL2.RW: EL1 is AArch64 (D13.2.48).
#define HCR_RW		(1<<31)
// SPSR for ERET to EL1h with D, A, I, F masked.
#define SPSR_EL1H_MASKED	0x3C5
// CPACR_EL1.FPEN = 0b11: FP/SIMD does not trap at EL0 or EL1 (D13.2.30).
#define CPACR_FPEN	(3<<20)

#define BOOTSTACK_SIZE	(64*1024)
#define PAGE_TABLES	3

// The Go assembler has no names for EL2 registers; those accesses are
// spelled as WORD encodings (ARM ARM C6.2.233 MSR/C6.2.231 MRS:
// 0xD51/0xD53 | o0<<19 | op1<<16 | CRn<<12 | CRm<<8 | op2<<5 | Rt).
TEXT ·entry(SB),NOSPLIT|NOFRAME,$0
	MOVD	R0, R19			// DTB physical address (booting.rst: x0)
	MSR	$0xf, DAIFSet
	MRS	CurrentEL, R1
	LSR	$2, R1, R1
	AND	$3, R1, R1
	MOVD	R1, R20			// exception level we were entered at
	MOVD	$·atEL1(SB), R21	// ADRP+ADD: physical while the MMU is off
	CMP	$2, R1
	BNE	el1
	B	·el2ToEL1(SB)
el1:
	B	·atEL1(SB)

// el2ToEL1 configures EL1 from EL2 (Raspberry Pi firmware, QEMU
// virtualization=on; secondaries started by PSCI there too) and ERETs to
// the physical address in R21 at EL1h with everything masked.
TEXT ·el2ToEL1(SB),NOSPLIT|NOFRAME,$0
	// EL1 is AArch64 with the counters available.
	MOVD	$HCR_RW, R1
	WORD	$0xd51c1101	// MSR HCR_EL2, X1
	WORD	$0xd53ce101	// MRS X1, CNTHCTL_EL2
	ORR	$3, R1, R1		// EL1PCTEN, EL1PCEN
	WORD	$0xd51ce101	// MSR CNTHCTL_EL2, X1
	WORD	$0xd51ce07f	// MSR CNTVOFF_EL2, XZR
	MRS	MIDR_EL1, R1
	WORD	$0xd51c0001	// MSR VPIDR_EL2, X1
	MRS	MPIDR_EL1, R1
	WORD	$0xd51c00a1	// MSR VMPIDR_EL2, X1
	MOVD	$0x33FF, R1		// CPTR_EL2: no FP/SIMD traps
	WORD	$0xd51c1141	// MSR CPTR_EL2, X1
	WORD	$0xd51c117f	// MSR HSTR_EL2, XZR
	// With a GICv3 (ID_AA64PFR0_EL1.GIC != 0), let EL1 use the
	// system-register CPU interface: ICC_SRE_EL2.{Enable,SRE} (IHI 0069
	// 12.7.8).
	MRS	ID_AA64PFR0_EL1, R1
	UBFX	$24, R1, $4, R1
	CBZ	R1, nogicv3
	WORD	$0xd53cc9a1	// MRS X1, ICC_SRE_EL2
	ORR	$0x9, R1, R1
	WORD	$0xd51cc9a1	// MSR ICC_SRE_EL2, X1
	ISB	$0xf
nogicv3:
	MOVD	$SCTLR_EL1_RESET, R1
	MSR	R1, SCTLR_EL1
	MOVD	$SPSR_EL1H_MASKED, R1
	WORD	$0xd51c4001	// MSR SPSR_EL2, X1
	WORD	$0xd51c4035	// MSR ELR_EL2, X21
	ERET

TEXT ·atEL1(SB),NOSPLIT|NOFRAME,$0
	MOVD	$CPACR_FPEN, R1
	MSR	R1, CPACR_EL1
	ISB	$0xf

	// Zero .bss and .noptrbss: a bootloader need not (the Image's
	// image_size covers them but the file does not).
	MOVD	$runtime·bss(SB), R1
	MOVD	$runtime·enoptrbss(SB), R2
zero:
	CMP	R2, R1
	BHS	zerodone
	MOVD	ZR, (R1)
	ADD	$8, R1
	B	zero
zerodone:

	// Boot page tables: one L0 table whose entry 0 points at one L1 table
	// of 1 GiB blocks covering physical 0..512 GiB. TTBR0 and TTBR1 both use
	// it: TTBR0 as the identity map we run on while turning the MMU on,
	// TTBR1 as KernBase+PA. The GiB holding the kernel is Normal memory;
	// every other GiB is Device until kernel/mm builds the real map from
	// the DTB.
	MOVD	$·bootTables(SB), R1
	ADD	$4095, R1
	AND	$~4095, R1		// L0
	ADD	$4096, R1, R2		// L1
	ORR	$DESC_TABLE, R2, R3
	MOVD	R3, (R1)
	MOVD	$·entry(SB), R4
	LSR	$30, R4, R4		// GiB index of the kernel
	MOVD	$0, R5
l1loop:
	LSL	$30, R5, R6
	MOVD	$BLOCK_DEVICE, R7
	CMP	R4, R5
	BNE	l1store
	MOVD	$BLOCK_NORMAL, R7
l1store:
	ORR	R7, R6, R6
	MOVD	R6, (R2)(R5<<3)
	ADD	$1, R5
	CMP	$512, R5
	BLO	l1loop

	MOVD	R1, R2			// TTBR1 = TTBR0 = the boot tables
	BL	·mmuOn(SB)

	// Still executing at the physical address through the TTBR0 identity
	// map; jump to our link address in the TTBR1 half.
	MOVD	$·highEntry(SB), R2
	MOVD	$KERNBASE, R3
	ORR	R3, R2, R2
	JMP	(R2)

// mmuOn turns on the MMU and caches with TTBR0 = R1 and TTBR1 = R2 (the
// same MAIR, TCR and SCTLR on every core) and returns. It clobbers R5, R6.
TEXT ·mmuOn(SB),NOSPLIT|NOFRAME,$0
	MOVD	$MAIR_VALUE, R5
	MSR	R5, MAIR_EL1
	MOVD	$TCR_VALUE, R5
	MRS	ID_AA64MMFR0_EL1, R6
	AND	$7, R6, R6
	ORR	R6<<32, R5, R5		// TCR_EL1.IPS = PARange
	MSR	R5, TCR_EL1
	MSR	R1, TTBR0_EL1
	MSR	R2, TTBR1_EL1
	ISB	$0xf
	TLBI	VMALLE1
	DSB	$0xf
	ISB	$0xf
	MOVD	$SCTLR_VALUE, R5
	MSR	R5, SCTLR_EL1
	ISB	$0xf
	RET

TEXT ·highEntry(SB),NOSPLIT|NOFRAME,$0
	// ADRP now yields high virtual addresses.
	MOVD	$·bootStack(SB), R1
	ADD	$BOOTSTACK_SIZE, R1, R2
	MOVD	R2, RSP
	// Fake g over the boot stack (ARCHITECTURE.md rule 3).
	MOVD	$·bootG(SB), g
	MOVD	R1, 0(g)		// stack.lo
	MOVD	R2, 8(g)		// stack.hi
	ADD	$8192, R1, R3
	MOVD	R3, 16(g)		// stackguard0
	MOVD	R3, 24(g)		// stackguard1
	MOVD	ZR, R29
	MOVD	ZR, R30
	SUB	$32, RSP
	MOVD	R19, 8(RSP)		// dtbPA
	MOVD	R20, 16(RSP)		// entryEL
	BL	·kmain(SB)
hang:
	WFI
	B	hang

// Secondary cores. PSCI CPU_ON or the spin table starts each one at
// secondaryEntry's physical address with the MMU and caches off, at EL2
// or EL1. The core finds its number by looking its MPIDR up in
// kernel.SecondaryBoot (read at its physical address), turns on the MMU
// with the same MAIR/TCR/SCTLR as the boot core, the boot identity map in
// TTBR0 and the kernel's direct map in TTBR1, jumps to the high half, and
// calls secondaryMain on its own kernel stack with g and TPIDR_EL1 set
// to its sched.CPU.

// Offsets into kernel.SecondaryBoot (kernel/secondaryboot.go, whose test
// pins its constants to the struct), through boot/main_arm64.go.
#define SB_TTBR0	const_sbTTBR0
#define SB_TTBR1	const_sbTTBR1
#define SB_MPIDR	const_sbMPIDR
#define SB_CPU		const_sbCPU
#define SB_SP		const_sbSP
#define MAXCPUS		const_maxCPUs
// MPIDR_EL1 affinity fields (ARM ARM D13.2.86): Aff3 [39:32], Aff2..0 [23:0].
#define MPIDR_AFF_MASK	0xFF00FFFFFF

TEXT ·secondaryEntry(SB),NOSPLIT|NOFRAME,$0
	MSR	$0xf, DAIFSet
	MRS	CurrentEL, R1
	LSR	$2, R1, R1
	AND	$3, R1, R1
	MOVD	$·secondaryEL1(SB), R21	// physical: the MMU is off
	CMP	$2, R1
	BNE	sel1
	B	·el2ToEL1(SB)
sel1:
	B	·secondaryEL1(SB)

TEXT ·secondaryEL1(SB),NOSPLIT|NOFRAME,$0
	MOVD	$CPACR_FPEN, R1
	MSR	R1, CPACR_EL1
	ISB	$0xf
	MOVD	$·secondaryBoot(SB), R9	// physical address of the block
	MRS	MPIDR_EL1, R1
	MOVD	$MPIDR_AFF_MASK, R2
	AND	R2, R1, R1
	ADD	$SB_MPIDR, R9, R4
	MOVD	$1, R3			// core 0 is the boot core
find:
	CMP	$MAXCPUS, R3
	BHS	lost
	MOVD	(R4)(R3<<3), R5
	CMP	R5, R1
	BEQ	found
	ADD	$1, R3
	B	find
lost:
	// Not a core the kernel started (or its block was not visible):
	// park for good.
	WFE
	B	lost
found:
	MOVD	SB_TTBR0(R9), R1
	MOVD	SB_TTBR1(R9), R2
	BL	·mmuOn(SB)
	MOVD	$·secondaryHigh(SB), R2
	MOVD	$KERNBASE, R4
	ORR	R4, R2, R2
	JMP	(R2)

TEXT ·secondaryHigh(SB),NOSPLIT|NOFRAME,$0
	MOVD	$·secondaryBoot(SB), R9	// ADRP now yields the high address
	ADD	$SB_CPU, R9, R4
	MOVD	(R4)(R3<<3), R5
	MSR	R5, TPIDR_EL1
	MOVD	R5, g			// sched.CPU starts with the fake g
	ADD	$SB_SP, R9, R4
	MOVD	(R4)(R3<<3), R5
	MOVD	R5, RSP
	MOVD	ZR, R29
	MOVD	ZR, R30
	SUB	$16, RSP
	MOVD	R3, 8(RSP)		// core number
	BL	·secondaryMain(SB)
shang:
	WFI
	B	shang

// secondaryEntryAddr and bootTablesAddr report addresses for the kernel:
// the entry's link (high) address, and the boot L0 table's.
TEXT ·secondaryEntryAddr(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	$·secondaryEntry(SB), R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·bootTablesAddr(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	$·bootTables(SB), R0
	ADD	$4095, R0
	AND	$~4095, R0
	MOVD	R0, ret+0(FP)
	RET

GLOBL ·bootTables(SB), NOPTR, $(4096*PAGE_TABLES)
GLOBL ·bootStack(SB), NOPTR, $BOOTSTACK_SIZE
GLOBL ·bootG(SB), NOPTR, $64
