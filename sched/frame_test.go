package sched

import (
	"testing"
	"unsafe"
)

// The entry assembly hard-codes these offsets.
func TestFrameLayout(t *testing.T) {
	var f Frame
	var c CPU
	checks := []struct {
		name      string
		got, want uintptr
	}{
		{"SP", unsafe.Offsetof(f.SP), FrameOffSP},
		{"PC", unsafe.Offsetof(f.PC), FrameOffPC},
		{"PSTATE", unsafe.Offsetof(f.PSTATE), FrameOffPSTATE},
		{"TPIDR", unsafe.Offsetof(f.TPIDR), FrameOffTPIDR},
		{"FPSR", unsafe.Offsetof(f.FPSR), FrameOffFPSR},
		{"FPCR", unsafe.Offsetof(f.FPCR), FrameOffFPCR},
		{"Kind", unsafe.Offsetof(f.Kind), FrameOffKind},
		{"V", unsafe.Offsetof(f.V), FrameOffV},
		{"sizeof(Frame)", unsafe.Sizeof(f), FrameSize},
		{"CPU.FaultG", unsafe.Offsetof(c.FaultG), CPUOffFaultG},
		{"CPU.FaultStackTop", unsafe.Offsetof(c.FaultStackTop), CPUOffFaultStackTop},
		{"CPU.KStackTop", unsafe.Offsetof(c.KStackTop), CPUOffKStackTop},
		{"CPU.FaultDepth", unsafe.Offsetof(c.FaultDepth), CPUOffFaultDepth},
		{"CPU.EL0Regs", unsafe.Offsetof(c.EL0Regs), CPUOffEL0Regs},
		{"CPU.Fault", unsafe.Offsetof(c.Fault), CPUOffFault},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: offset %d, assembly uses %d", c.name, c.got, c.want)
		}
	}
	if FrameSize%16 != 0 {
		t.Errorf("FrameSize %d is not 16-byte aligned (SP alignment)", FrameSize)
	}
}
