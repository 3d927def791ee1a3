package kernel

import "github.com/gometal/gometal/sched"

// The layout the entry assembly (entry_arm64.s) works with, taken from
// sched's definitions so that it is written once: the compiler hands
// these to the assembly through go_asm.h as const_ names, and
// sched/frame_test.go pins sched's to the structs. TestEntryLayoutFromGo
// checks that the assembly defines no number of its own.
const (
	frameSize      = sched.FrameSize
	frameOffSP     = sched.FrameOffSP
	frameOffPC     = sched.FrameOffPC
	frameOffPSTATE = sched.FrameOffPSTATE
	frameOffFPSR   = sched.FrameOffFPSR
	frameOffKind   = sched.FrameOffKind
	frameOffV      = sched.FrameOffV

	cpuOffFaultG        = sched.CPUOffFaultG
	cpuOffFaultStackTop = sched.CPUOffFaultStackTop
	cpuOffFaultDepth    = sched.CPUOffFaultDepth
	cpuOffEL0Regs       = sched.CPUOffEL0Regs
	cpuOffFault         = sched.CPUOffFault

	kindSync = sched.KindSync
	kindIRQ  = sched.KindIRQ
)
