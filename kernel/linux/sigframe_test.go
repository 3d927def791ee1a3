package linux

import (
	"testing"
	"unsafe"
)

// The signal frame is the Linux arm64 ABI; these are the numbers Go's
// runtime (defs_linux_arm64.go) and glibc read it with.
func TestSigframeLayout(t *testing.T) {
	if siginfoSize != 128 {
		t.Errorf("siginfo is 128 bytes, have %d", siginfoSize)
	}
	// sigcontext: fault_address, regs[31], sp, pc, pstate, then the
	// 16-aligned __reserved area (arch/arm64/include/uapi/asm/sigcontext.h).
	if scRegsOff != 8 || scSPOff != 8+31*8 || scPCOff != scSPOff+8 || scPstateOff != scPCOff+8 {
		t.Errorf("sigcontext register offsets wrong")
	}
	if scReservedOff != (scPstateOff+8+15)&^15 {
		t.Errorf("__reserved must be the next 16-byte boundary after pstate")
	}
	// ucontext: flags, link, stack_t, sigmask, 1024-bit glibc sigset pad,
	// then 16-aligned mcontext.
	var ss stackT
	if unsafe.Sizeof(ss) != 24 {
		t.Fatalf("stack_t is %d bytes", unsafe.Sizeof(ss))
	}
	if ucStackOff != 16 || ucSigmaskOff != ucStackOff+int(unsafe.Sizeof(ss)) {
		t.Errorf("uc_stack/uc_sigmask offsets wrong")
	}
	if ucMcontextOff != (ucSigmaskOff+1024/8+15)&^15 {
		t.Errorf("uc_mcontext at %d, want %d", ucMcontextOff, (ucSigmaskOff+1024/8+15)&^15)
	}
	// fpsimd_context: head (magic, size), fpsr, fpcr, 32 x 128-bit vregs.
	if fpsimdSize != 8+4+4+32*16 {
		t.Errorf("fpsimd_context size %d", fpsimdSize)
	}
	if sigframeSize%16 != 0 {
		t.Errorf("rt_sigframe size %d not 16-aligned", sigframeSize)
	}
	if sigframeSize != 128+176+288+4096 {
		t.Errorf("rt_sigframe size %d", sigframeSize)
	}
}
