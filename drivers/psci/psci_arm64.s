#include "textflag.h"

// SMC Calling Convention (Arm DEN 0028): function ID in W0, arguments in
// X1-X3, result in X0. Immediate 0 for both instructions.

TEXT ·hvc(SB),NOSPLIT|NOFRAME,$0-40
	MOVD	fn+0(FP), R0
	MOVD	a1+8(FP), R1
	MOVD	a2+16(FP), R2
	MOVD	a3+24(FP), R3
	HVC	$0
	MOVD	R0, ret+32(FP)
	RET

TEXT ·smc(SB),NOSPLIT|NOFRAME,$0-40
	MOVD	fn+0(FP), R0
	MOVD	a1+8(FP), R1
	MOVD	a2+16(FP), R2
	MOVD	a3+24(FP), R3
	SMC	$0
	MOVD	R0, ret+32(FP)
	RET
