#include "textflag.h"

TEXT ·BarrierISH(SB),NOSPLIT|NOFRAME,$0
	DSB	$0xb
	ISB	$0xf
	RET

TEXT ·BarrierSY(SB),NOSPLIT|NOFRAME,$0
	DSB	$0xf
	ISB	$0xf
	RET

TEXT ·ISB(SB),NOSPLIT|NOFRAME,$0
	ISB	$0xf
	RET

TEXT ·WFI(SB),NOSPLIT|NOFRAME,$0
	DSB	$0xf
	WFI
	RET

TEXT ·WFE(SB),NOSPLIT|NOFRAME,$0
	WFE
	RET

TEXT ·SEV(SB),NOSPLIT|NOFRAME,$0
	DSB	$0xb
	SEV
	RET

TEXT ·TLBIAll(SB),NOSPLIT|NOFRAME,$0
	DSB	$0xb
	TLBI	VMALLE1IS
	DSB	$0xb
	ISB	$0xf
	RET

TEXT ·TLBIPage(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	va+0(FP), R0
	LSR	$12, R0, R0
	DSB	$0xb
	TLBI	VAAE1IS, R0
	DSB	$0xb
	ISB	$0xf
	RET

TEXT ·TLBIPageASID(SB),NOSPLIT|NOFRAME,$0-24
	MOVD	va+0(FP), R0
	MOVD	id+8(FP), R1
	MOVD	mask+16(FP), R2
	LSR	$12, R0, R0
	UBFX	$0, R0, $44, R0
	DSB	$0xb
	MOVD	(R1), R1
	AND	R2, R1, R1
	ORR	R1<<48, R0, R0
	TLBI	VAE1IS, R0
	DSB	$0xb
	ISB	$0xf
	RET

TEXT ·TLBIASID(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	id+0(FP), R1
	MOVD	mask+8(FP), R2
	DSB	$0xb
	MOVD	(R1), R1
	AND	R2, R1, R1
	LSL	$48, R1, R0
	TLBI	ASIDE1IS, R0
	DSB	$0xb
	ISB	$0xf
	RET

TEXT ·ICacheInvalidate(SB),NOSPLIT|NOFRAME,$0
	DSB	$0xb
	WORD	$0xd508711f	// IC IALLUIS (Go's assembler has no mnemonic for it)
	DSB	$0xb
	ISB	$0xf
	RET

// ReadISR reads ISR_EL1 (ARM ARM D19.2.77): bit 7 (I) is set while an
// IRQ is pending at this core, masked or not, as WFI would see it.
TEXT ·ReadISR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ISR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadESR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ESR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadFAR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	FAR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadELR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ELR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadSPSR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	SPSR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadMPIDR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	MPIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadMIDR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	MIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadCNTVCT(SB),NOSPLIT|NOFRAME,$0-8
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadCNTFRQ(SB),NOSPLIT|NOFRAME,$0-8
	MRS	CNTFRQ_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadIDAA64ISAR0(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ID_AA64ISAR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadIDAA64ISAR1(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ID_AA64ISAR1_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadIDAA64PFR0(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ID_AA64PFR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadTTBR0(SB),NOSPLIT|NOFRAME,$0-8
	MRS	TTBR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadTTBR1(SB),NOSPLIT|NOFRAME,$0-8
	MRS	TTBR1_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadVBAR(SB),NOSPLIT|NOFRAME,$0-8
	MRS	VBAR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·ReadCurrentEL(SB),NOSPLIT|NOFRAME,$0-8
	MRS	CurrentEL, R0
	MOVD	R0, ret+0(FP)
	RET


TEXT ·ReadSP(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	RSP, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·WriteTTBR0(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, TTBR0_EL1
	ISB	$0xf
	RET

TEXT ·ASIDBits(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ID_AA64MMFR0_EL1, R0
	UBFX	$4, R0, $4, R0
	MOVD	$8, R1
	CMP	$2, R0
	BNE	done
	MOVD	$16, R1
done:
	MOVD	R1, ret+0(FP)
	RET

TEXT ·UseASIDs16(SB),NOSPLIT|NOFRAME,$0
	MRS	TCR_EL1, R0
	ORR	$(1<<36), R0, R0
	MSR	R0, TCR_EL1
	ISB	$0xf
	TLBI	VMALLE1
	DSB	$0x7
	ISB	$0xf
	RET

TEXT ·SwitchTTBR0(SB),NOSPLIT|NOFRAME,$0-9
	MOVD	v+0(FP), R0
	MOVBU	flush+8(FP), R1
	MSR	R0, TTBR0_EL1
	ISB	$0xf
	CBZ	R1, noflush
	TLBI	VMALLE1
	DSB	$0x7
	ISB	$0xf
noflush:
	RET

TEXT ·WriteTTBR1(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, TTBR1_EL1
	ISB	$0xf
	RET

TEXT ·WriteVBAR(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, VBAR_EL1
	ISB	$0xf
	RET

TEXT ·WriteTPIDREL1(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, TPIDR_EL1
	ISB	$0xf
	RET

TEXT ·WriteCNTVCVAL(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, CNTV_CVAL_EL0
	ISB	$0xf
	RET

TEXT ·WriteCNTVCTL(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, CNTV_CTL_EL0
	ISB	$0xf
	RET

TEXT ·WriteCNTKCTL(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, CNTKCTL_EL1
	ISB	$0xf
	RET


TEXT ·SemihostCall(SB),NOSPLIT|NOFRAME,$0-24
	MOVD	op+0(FP), R0
	MOVD	arg+8(FP), R1
	HLT	$0xf000
	MOVD	R0, ret+16(FP)
	RET

TEXT ·Halt(SB),NOSPLIT|NOFRAME,$0
	MSR	$0xf, DAIFSet
halt:
	WFI
	B	halt

// TTBR0Walks turns translation-table walks through TTBR0 on or off
// (TCR_EL1.EPD0, ARM ARM D13.2.131). Off while the kernel runs without an
// app, so a nil dereference in the kernel faults instead of landing in the
// boot identity map.
TEXT ·TTBR0Walks(SB),NOSPLIT|NOFRAME,$0-1
	MOVBU	on+0(FP), R0
	MRS	TCR_EL1, R1
	ORR	$(1<<7), R1, R1
	CBZ	R0, set
	AND	$~(1<<7), R1, R1
set:
	MSR	R1, TCR_EL1
	ISB	$0xf
	TLBI	VMALLE1
	DSB	$0xf
	ISB	$0xf
	RET

// BarrierISHST: DSB ISHST. Orders earlier stores (a new page-table entry)
// before any later translation-table walk on any core (ARM ARM D8.2.9
// "Ordering of memory accesses from translation table walks").
TEXT ·BarrierISHST(SB),NOSPLIT|NOFRAME,$0
	DSB	$0xa
	RET

// CleanDcache cleans [va, va+n) to the point of coherency (DC CVAC, ARM
// ARM C5.3.11), so a core that still runs with its MMU and caches off
// (a secondary being started) reads what this core wrote.
TEXT ·CleanDcache(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	va+0(FP), R0
	MOVD	n+8(FP), R1
	ADD	R0, R1, R1
	AND	$~63, R0, R0	// 64-byte lines: the smallest CTR_EL0.DminLine on the cores we run on
clean:
	CMP	R1, R0
	BHS	cleaned
	DC	CVAC, R0
	ADD	$64, R0
	B	clean
cleaned:
	DSB	$0xf
	RET

// CleanInvalidateDcache cleans [va, va+n) to the point of coherency and
// invalidates the lines (DC CIVAC, ARM ARM C5.3.13): what this core wrote
// reaches memory, and its next read comes from memory.
TEXT ·CleanInvalidateDcache(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	va+0(FP), R0
	MOVD	n+8(FP), R1
	ADD	R0, R1, R1
	AND	$~63, R0, R0	// CleanDcache's line size
civac:
	CMP	R1, R0
	BHS	civaced
	DC	CIVAC, R0
	ADD	$64, R0
	B	civac
civaced:
	DSB	$0xf
	RET

TEXT ·ReadTPIDREL1(SB),NOSPLIT|NOFRAME,$0-8
	MRS	TPIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

// ReadFP returns R29: the frame pointer of the Go function that called
// it (a NOFRAME function keeps its caller's), where a walk of the
// frame-pointer chain starts (lockorder.go).
TEXT ·ReadFP(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	R29, R0
	MOVD	R0, ret+0(FP)
	RET
