#include "textflag.h"

// func getFPCR() uint64
TEXT ·getFPCR(SB),NOSPLIT,$0-8
	MRS	FPCR, R0
	MOVD	R0, ret+0(FP)
	RET

// func setFPCR(v uint64)
TEXT ·setFPCR(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, FPCR
	RET

// func getFPSR() uint64
TEXT ·getFPSR(SB),NOSPLIT,$0-8
	MRS	FPSR, R0
	MOVD	R0, ret+0(FP)
	RET

// func setFPSR(v uint64)
TEXT ·setFPSR(SB),NOSPLIT,$0-8
	MOVD	v+0(FP), R0
	MSR	R0, FPSR
	RET
