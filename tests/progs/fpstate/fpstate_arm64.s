#include "textflag.h"

// func fpRegs() (fpcr, fpsr uint64)
TEXT ·fpRegs(SB),NOSPLIT,$0-16
	MRS	FPCR, R0
	MRS	FPSR, R1
	MOVD	R0, fpcr+0(FP)
	MOVD	R1, fpsr+8(FP)
	RET

// func setFPRegs(fpcr, fpsr uint64)
TEXT ·setFPRegs(SB),NOSPLIT,$0-16
	MOVD	fpcr+0(FP), R0
	MOVD	fpsr+8(FP), R1
	MSR	R0, FPCR
	MSR	R1, FPSR
	RET

// func tls() uint64
TEXT ·tls(SB),NOSPLIT,$0-8
	MRS	TPIDR_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func setTLS(v uint64)
TEXT ·setTLS(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, TPIDR_EL0
	RET
