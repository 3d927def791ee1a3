package sched

// Frame is a thread's complete EL0 context: what the exception entry code
// saves and the exit code restores (kernel/entry_arm64.s). The FP state
// (FPSR, FPCR, V) is saved only on the ways that may touch it; a system
// call answered before any lock leaves it in the registers. Field offsets
// are used by that assembly; frame_test.go pins them.
type Frame struct {
	X      [31]uint64 // X0..X30
	SP     uint64     // SP_EL0
	PC     uint64     // ELR_EL1: where ERET resumes
	PSTATE uint64     // SPSR_EL1
	TPIDR  uint64     // TPIDR_EL0 (user TLS register)
	FPSR   uint64
	FPCR   uint64
	Kind   uint64     // why the kernel was entered: KindSync or KindIRQ
	V      [64]uint64 // Q0..Q31, each as (low, high) doubleword
}

// Kinds of kernel entry, written by the vector stubs into Frame.Kind.
const (
	KindSync = 0
	KindIRQ  = 1
)

// Offsets and size of Frame for assembly (see frame_test.go).
const (
	FrameOffSP     = 248
	FrameOffPC     = 256
	FrameOffPSTATE = 264
	FrameOffTPIDR  = 272
	FrameOffFPSR   = 280
	FrameOffFPCR   = 288
	FrameOffKind   = 296
	FrameOffV      = 304
	FrameSize      = 816
)
