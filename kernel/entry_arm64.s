#include "textflag.h"

// Exception vectors and the EL0 entry/exit path.
//
// Stack-pointer adjustments here are spelled as WORD encodings (SUB_SP,
// ADD_SP): the Go linker's nosplit analysis would otherwise count the 816-byte trap frame
// against the (irrelevant) goroutine stack limit. These paths run on the
// core's kernel stack, not on a goroutine stack.
//
// Every exception from EL0 pushes a sched.Frame at the top of the core's
// kernel stack (SP_EL1), all but the FP state (the vector registers,
// FPSR and FPCR), switches R28 (g) to the core's fake g (TPIDR_EL1), and
// calls trap(frame, cpu, esr), which saves the FP state too unless the call never
// touches it. trap may
// replace the frame's contents with another thread's context; userReturn
// then restores whatever the frame holds and ERETs (userReturnRegs when
// the FP state was never saved), writing SP_EL0, ELR_EL1, SPSR_EL1 and
// TPIDR_EL0 only if the frame's differ from what they hold. IRQs stay
// masked in the kernel, so exceptions taken at EL1 are always faults:
// they switch to the core's fault stack and never return.

#include "go_asm.h"

// Every number the layout needs comes from Go (entry_layout.go).
#define FRAME_SIZE	const_frameSize
#define OFF_SP		const_frameOffSP
#define OFF_PC		const_frameOffPC
#define OFF_PSTATE	const_frameOffPSTATE
#define OFF_FPSR	const_frameOffFPSR
#define OFF_KIND	const_frameOffKind
#define OFF_V		const_frameOffV

#define CPU_FAULTG		const_cpuOffFaultG
#define CPU_FAULTSTACKTOP	const_cpuOffFaultStackTop
#define CPU_FAULTDEPTH		const_cpuOffFaultDepth
#define CPU_EL0REGS		const_cpuOffEL0Regs
#define CPU_FAULT		const_cpuOffFault

#define KIND_SYNC	const_kindSync
#define KIND_IRQ	const_kindIRQ

// SUB/ADD SP, SP, #n as instruction words (ARM ARM C6.2.4, C6.2.331:
// ADD/SUB (immediate), 64-bit, imm12 at bit 10, Rn = Rd = SP = 31).
#define SUB_SP(n)	WORD	$(0xd10003ff | ((n) << 10))
#define ADD_SP(n)	WORD	$(0x910003ff | ((n) << 10))

// ARM ARM D1.10.2: the table is 2 KiB aligned, 16 slots of 128 bytes:
// {current EL with SP0, current EL with SPx, lower EL AArch64, lower EL
// AArch32} × {Synchronous, IRQ, FIQ, SError}.
TEXT ·vectors(SB),NOSPLIT|NOFRAME,$0
	PCALIGN	$2048
	MSR	R0, SP_EL0
	MOVD	$0, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$1, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$2, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$3, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	// Current EL with SPx: a fault inside the kernel.
	MSR	R0, SP_EL0
	MOVD	$4, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$5, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$6, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$7, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	// Lower EL, AArch64: the app.
	SUB_SP(FRAME_SIZE)
	STP	(R0, R1), 0(RSP)
	MOVD	$KIND_SYNC, R0
	B	·el0Entry(SB)
	PCALIGN	$128
	SUB_SP(FRAME_SIZE)
	STP	(R0, R1), 0(RSP)
	MOVD	$KIND_IRQ, R0
	B	·el0Entry(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$10, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$11, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	// Lower EL, AArch32: never used (the app is AArch64).
	MSR	R0, SP_EL0
	MOVD	$12, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$13, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$14, R0
	B	·el1Fault(SB)
	PCALIGN	$128
	MSR	R0, SP_EL0
	MOVD	$15, R0
	B	·el1Fault(SB)

TEXT ·el0Entry(SB),NOSPLIT|NOFRAME,$0
	MOVD	R0, OFF_KIND(RSP)
	STP	(R2, R3), 16(RSP)
	STP	(R4, R5), 32(RSP)
	STP	(R6, R7), 48(RSP)
	STP	(R8, R9), 64(RSP)
	STP	(R10, R11), 80(RSP)
	STP	(R12, R13), 96(RSP)
	STP	(R14, R15), 112(RSP)
	STP	(R16, R17), 128(RSP)
	STP	(R18_PLATFORM, R19), 144(RSP)
	STP	(R20, R21), 160(RSP)
	STP	(R22, R23), 176(RSP)
	STP	(R24, R25), 192(RSP)
	STP	(R26, R27), 208(RSP)
	STP	(g, R29), 224(RSP)
	MOVD	R30, 240(RSP)
	MRS	TPIDR_EL1, g		// this core's sched.CPU = fake g
	// The four system registers of the app's context go into the frame
	// and, as what the core now holds, into CPU.EL0Regs for the way out.
	MRS	SP_EL0, R0
	MRS	ELR_EL1, R1
	STP	(R0, R1), OFF_SP(RSP)
	STP	(R0, R1), CPU_EL0REGS(g)
	MRS	SPSR_EL1, R0
	MRS	TPIDR_EL0, R1
	STP	(R0, R1), OFF_PSTATE(RSP)
	STP	(R0, R1), (CPU_EL0REGS+16)(g)
	// Q0-Q31, FPSR and FPCR stay in their registers: trap saves them
	// (saveFP) unless the call is one of the few that never touch them.
	// Under QEMU's TCG each access to FPSR or FPCR is a helper call that
	// walks every softfloat status, so the four of them were a tenth of
	// an unlocked getpid.
	MOVD	ZR, R29			// end of the kernel frame-pointer chain
	MOVD	RSP, R0
	MRS	ESR_EL1, R1
	SUB_SP(48)
	MOVD	R0, 8(RSP)		// trap(f, c, esr) (fpSaved bool at 32)
	MOVD	g, 16(RSP)
	MOVD	R1, 24(RSP)
	BL	·trap(SB)
	MOVBU	32(RSP), R0
	ADD_SP(48)
	CBZ	R0, regsOnly
	B	·userReturn(SB)
regsOnly:
	B	·userReturnRegs(SB)

// saveFP stores the app's FP state, FPSR, FPCR and Q0-Q31, into f
// (trap_arm64.go).
TEXT ·saveFP(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	f+0(FP), R0
	MRS	FPSR, R1
	MRS	FPCR, R2
	STP	(R1, R2), OFF_FPSR(R0)
	ADD	$OFF_V, R0
	VST1.P	[V0.D2, V1.D2, V2.D2, V3.D2], 64(R0)
	VST1.P	[V4.D2, V5.D2, V6.D2, V7.D2], 64(R0)
	VST1.P	[V8.D2, V9.D2, V10.D2, V11.D2], 64(R0)
	VST1.P	[V12.D2, V13.D2, V14.D2, V15.D2], 64(R0)
	VST1.P	[V16.D2, V17.D2, V18.D2, V19.D2], 64(R0)
	VST1.P	[V20.D2, V21.D2, V22.D2, V23.D2], 64(R0)
	VST1.P	[V24.D2, V25.D2, V26.D2, V27.D2], 64(R0)
	VST1.P	[V28.D2, V29.D2, V30.D2, V31.D2], 64(R0)
	RET

// userReturn restores the frame at RSP, FP state included, and returns
// to EL0.
TEXT ·userReturn(SB),NOSPLIT|NOFRAME,$0
	LDP	OFF_FPSR(RSP), (R0, R1)
	MSR	R0, FPSR
	MSR	R1, FPCR
	ADD	$OFF_V, RSP, R0
	VLD1.P	64(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	VLD1.P	64(R0), [V4.D2, V5.D2, V6.D2, V7.D2]
	VLD1.P	64(R0), [V8.D2, V9.D2, V10.D2, V11.D2]
	VLD1.P	64(R0), [V12.D2, V13.D2, V14.D2, V15.D2]
	VLD1.P	64(R0), [V16.D2, V17.D2, V18.D2, V19.D2]
	VLD1.P	64(R0), [V20.D2, V21.D2, V22.D2, V23.D2]
	VLD1.P	64(R0), [V24.D2, V25.D2, V26.D2, V27.D2]
	VLD1.P	64(R0), [V28.D2, V29.D2, V30.D2, V31.D2]
	B	·userReturnRegs(SB)

// userReturnRegs restores the frame at RSP but for the FP state, which
// the registers still hold, and returns to EL0.
TEXT ·userReturnRegs(SB),NOSPLIT|NOFRAME,$0
	// Write back only what changed. Under QEMU's TCG every system
	// register write ends the translation block and goes back to QEMU's
	// main loop (target/arm/tcg/translate-a64.c, handle_sys: a write
	// without ARM_CP_SUPPRESS_TB_END), and these four writes were a
	// third of an unlocked getpid. A call that returns to the thread
	// that made it changes none of them. CPU.EL0Regs holds what the
	// registers hold: the entry read them, and nothing in the kernel
	// writes them before it returns here (a fault at EL1 never returns,
	// IRQs stay masked). enterUser, with no entry before it, writes all
	// four itself.
	LDP	OFF_SP(RSP), (R0, R1)
	LDP	OFF_PSTATE(RSP), (R2, R3)
	LDP	CPU_EL0REGS(g), (R4, R5)
	LDP	(CPU_EL0REGS+16)(g), (R6, R7)
	CMP	R0, R4
	CCMP	EQ, R1, R5, $0
	CCMP	EQ, R2, R6, $0
	CCMP	EQ, R3, R7, $0
	BEQ	sysregsKept
	MSR	R0, SP_EL0
	MSR	R1, ELR_EL1
	MSR	R2, SPSR_EL1
	MSR	R3, TPIDR_EL0
sysregsKept:
	LDP	16(RSP), (R2, R3)
	LDP	32(RSP), (R4, R5)
	LDP	48(RSP), (R6, R7)
	LDP	64(RSP), (R8, R9)
	LDP	80(RSP), (R10, R11)
	LDP	96(RSP), (R12, R13)
	LDP	112(RSP), (R14, R15)
	LDP	128(RSP), (R16, R17)
	LDP	144(RSP), (R18_PLATFORM, R19)
	LDP	160(RSP), (R20, R21)
	LDP	176(RSP), (R22, R23)
	LDP	192(RSP), (R24, R25)
	LDP	208(RSP), (R26, R27)
	LDP	224(RSP), (g, R29)
	MOVD	240(RSP), R30
	LDP	0(RSP), (R0, R1)
	ADD_SP(FRAME_SIZE)
	ERET

// enterUser switches to the frame at f (the top of this core's kernel
// stack) and returns to EL0 from it. It does not return.
TEXT ·enterUser(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	f+0(FP), R0
	MOVD	R0, RSP
	LDP	OFF_SP(RSP), (R0, R1)
	LDP	OFF_PSTATE(RSP), (R2, R3)
	MSR	R0, SP_EL0
	MSR	R1, ELR_EL1
	MSR	R2, SPSR_EL1
	MSR	R3, TPIDR_EL0
	B	·userReturn(SB)

// el1Fault: R0 holds the vector slot, the interrupted X0 is in SP_EL0.
// Save everything into CPU.Fault, switch to the fault stack and fault g,
// and report. A fault while reporting exits through semihosting at once.
TEXT ·el1Fault(SB),NOSPLIT|NOFRAME,$0
	MSR	R1, TPIDR_EL0
	MRS	TPIDR_EL1, R1
	CBZ	R1, early
	ADD	$CPU_FAULT, R1, R1
	MOVD	R0, OFF_KIND(R1)
	MRS	SP_EL0, R0
	MOVD	R0, 0(R1)
	MRS	TPIDR_EL0, R0
	MOVD	R0, 8(R1)
	STP	(R2, R3), 16(R1)
	STP	(R4, R5), 32(R1)
	STP	(R6, R7), 48(R1)
	STP	(R8, R9), 64(R1)
	STP	(R10, R11), 80(R1)
	STP	(R12, R13), 96(R1)
	STP	(R14, R15), 112(R1)
	STP	(R16, R17), 128(R1)
	STP	(R18_PLATFORM, R19), 144(R1)
	STP	(R20, R21), 160(R1)
	STP	(R22, R23), 176(R1)
	STP	(R24, R25), 192(R1)
	STP	(R26, R27), 208(R1)
	STP	(g, R29), 224(R1)
	MOVD	R30, 240(R1)
	MOVD	RSP, R0
	MOVD	R0, OFF_SP(R1)
	MRS	ELR_EL1, R0
	MOVD	R0, OFF_PC(R1)
	MRS	SPSR_EL1, R0
	MOVD	R0, OFF_PSTATE(R1)
	MRS	TPIDR_EL1, R2
	MOVD	CPU_FAULTDEPTH(R2), R3
	ADD	$1, R3
	MOVD	R3, CPU_FAULTDEPTH(R2)
	CMP	$1, R3
	BNE	early
	MOVD	CPU_FAULTSTACKTOP(R2), R3
	MOVD	R3, RSP
	ADD	$CPU_FAULTG, R2, g
	MOVD	ZR, R29
	SUB_SP(16)
	MOVD	R1, 8(RSP)
	BL	·kernelFault(SB)
early:
	// No per-core state yet, or a fault inside the fault report:
	// semihosting SYS_EXIT(ApplicationExit, 125) straight away.
	MOVD	$·earlyExit(SB), R1
	MOVD	$0x20026, R2
	MOVD	R2, 0(R1)
	MOVD	$125, R2
	MOVD	R2, 8(R1)
	MOVD	$0x18, R0
	HLT	$0xf000
spin:
	WFI
	B	spin

GLOBL ·earlyExit(SB), NOPTR, $16

// vectorsAddr returns the address of the vector table for VBAR_EL1.
TEXT ·vectorsAddr(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	$·vectors(SB), R0
	MOVD	R0, ret+0(FP)
	RET

// getCPU returns this core's sched.CPU (TPIDR_EL1).
TEXT ·getCPU(SB),NOSPLIT|NOFRAME,$0-8
	MRS	TPIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET


// callerPC / callerFP: the return address and frame pointer of the
// function that called the function calling these (for kpanic).
TEXT ·callerPC(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	8(R29), R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·callerFP(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	0(R29), R0
	MOVD	R0, ret+0(FP)
	RET

// kernelText / kernelEnd bound the kernel image (linker symbols).
TEXT ·kernelText(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	$runtime·text(SB), R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·kernelEnd(SB),NOSPLIT|NOFRAME,$0-8
	MOVD	$runtime·end(SB), R0
	MOVD	R0, ret+0(FP)
	RET
