#include "textflag.h"

// GICv3 CPU interface system registers (GICv3/v4 Architecture
// Specification, Arm IHI 0069, chapter 12).

TEXT ·readIAR1(SB),NOSPLIT|NOFRAME,$0-8
	MRS	ICC_IAR1_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·writeEOIR1(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, ICC_EOIR1_EL1
	RET

TEXT ·writeSGI1R(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	v+0(FP), R0
	ISB	$0xf
	MSR	R0, ICC_SGI1R_EL1
	ISB	$0xf
	RET

// enableSysregs turns on the system-register interface (ICC_SRE_EL1.SRE),
// lets every priority through (ICC_PMR_EL1) and enables Group 1
// interrupts (ICC_IGRPEN1_EL1).
TEXT ·enableSysregs(SB),NOSPLIT|NOFRAME,$0
	MRS	ICC_SRE_EL1, R0
	ORR	$1, R0, R0
	MSR	R0, ICC_SRE_EL1
	ISB	$0xf
	MOVD	$0xFF, R0
	MSR	R0, ICC_PMR_EL1
	MOVD	$1, R0
	MSR	R0, ICC_IGRPEN1_EL1
	ISB	$0xf
	RET
