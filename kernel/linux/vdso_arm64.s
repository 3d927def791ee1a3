#include "textflag.h"
#include "go_asm.h"

// The vDSO's __kernel_clock_gettime(clockid, *timespec), called by the Go
// runtime from EL0 with the C calling convention. Never called in the
// kernel: vdsoCode returns its address and mapVDSO copies vdsoCodeMax
// bytes of it (the function and its literal pool) into the vDSO page, so
// it must be position independent (PC-relative branches only) and find
// its data at the page's fixed address. It uses only X0-X17 (caller-saved).
//
// MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE and BOOTTIME read the
// virtual counter; REALTIME and REALTIME_COARSE add the wall-clock offset
// the kernel stored; other clocks make the clock_gettime syscall.
TEXT ·vdsoClockGettime(SB),NOSPLIT|NOFRAME,$0
	MOVD	$const_vdsoDataVA, R10	// vdso_arm64.go
	CMP	$1, R0	// CLOCK_MONOTONIC
	BEQ	mono
	CMP	$4, R0	// CLOCK_MONOTONIC_RAW
	BEQ	mono
	CMP	$6, R0	// CLOCK_MONOTONIC_COARSE
	BEQ	mono
	CMP	$7, R0	// CLOCK_BOOTTIME
	BEQ	mono
	CMP	$0, R0	// CLOCK_REALTIME
	BEQ	real
	CMP	$5, R0	// CLOCK_REALTIME_COARSE
	BEQ	real
	MOVD	$113, R8	// SYS_clock_gettime
	SVC
	RET
real:
	MOVD	8(R10), R9	// wall-clock offset, ns
	B	count
mono:
	MOVD	ZR, R9
count:
	ISB	$15	// no early counter read (ARM ARM D12.1.2: reads are not ordered)
	MRS	CNTVCT_EL0, R11
	MOVD	0(R10), R12	// multiplier: ns = ticks * mult >> 32
	MUL	R12, R11, R13
	UMULH	R12, R11, R14
	LSR	$32, R13, R13
	ORR	R14<<32, R13, R13
	ADD	R9, R13, R13
	MOVD	$1000000000, R15
	UDIV	R15, R13, R16	// seconds
	MSUB	R15, R13, R16, R17	// nanoseconds = ns - seconds*1e9
	STP	(R16, R17), (R1)
	MOVD	ZR, R0
	RET

// func vdsoCode() uintptr
TEXT ·vdsoCode(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	$·vdsoClockGettime(SB), R0
	MOVD	R0, ret+0(FP)
	RET
