package sched

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
)

// Kernel stack sizes. Every exception from EL0 runs on its core's kernel
// stack; faults taken inside the kernel switch to a separate fault stack so
// that a stack overflow still gets reported.
const (
	KStackSize     = 64 << 10
	FaultStackSize = 16 << 10

	// stackGuardMargin is how much of a kernel stack sits below the fake
	// g's stackguard0: a Go prologue that would cross it calls
	// runtime.morestack, which faults (g.m is nil) and lands in the fault
	// path with the core's stack still usable.
	stackGuardMargin = 8 << 10
)

// CPU is one core's private state. TPIDR_EL1 holds its address and, while
// the core runs kernel Go code, so does R28 (g): the first four words mirror
// runtime.g's stack, stackguard0 and stackguard1 so compiled stack checks
// pass (ARCHITECTURE.md, kernel rule 3). Offsets up to Fault are used by
// assembly; cpu_test.go pins them.
type CPU struct {
	StackLo, StackHi, StackGuard0, StackGuard1 uintptr // fake g, kernel stack
	FaultG                                     [4]uintptr
	FaultStackTop                              uintptr
	KStackTop                                  uintptr
	FaultDepth                                 uintptr
	// EL0Regs is what this core's SP_EL0, ELR_EL1, SPSR_EL1 and
	// TPIDR_EL0 hold (Frame's order), as the entry assembly read them
	// at the core's last exception from EL0. The way back writes only a
	// register whose frame value differs (kernel/entry_arm64.s,
	// userReturnRegs).
	EL0Regs [4]uint64
	_       [1]uintptr
	Fault   Frame // registers at a kernel fault

	ID    int
	MPIDR uint64 // the core's affinity, from its DTB node
	// Online: the core runs threads (set under the kernel lock once the
	// core has reported Alive).
	Online bool
	// Alive is set by the core itself, lock-free, when its per-core
	// setup is done; the boot core waits for it.
	Alive   atomic.Bool
	Current int32 // index of the running thread, or -1 while idle
	// wakeSync: the core is making a synchronous wake-up (NotifySync),
	// whose waiters may be pulled onto it (wakeAffine). Set and cleared
	// by the core itself around the wake-up; the kernel runs with
	// interrupts masked, so no other wake-up on this core sees it.
	wakeSync bool
	// affineDue is the counter value by which the thread a wake-up put
	// at the head of this core's queue, ahead of its running waker,
	// should have run (0: none there); past it, schedule moves it to an
	// idle core (spreadBuddy).
	affineDue uint64

	// Idle: the core released the kernel lock to wait in WFI. Wakers
	// that place a thread here must send it an SGI.
	Idle bool
	// Heartbeat is the counter at the core's last kernel entry; the
	// watchdog reads it (a busy core ticks at least every slice).
	Heartbeat uint64
	// UserRoot is the app page table this core's TTBR0 holds (0: none),
	// UserSpace the slot of its address space in mm.Spaces plus one (0:
	// none), which the core holds (mm.Space.Hold) until it moves on.
	UserRoot  uintptr
	UserSpace int32
	// LastSyscall is the number of the syscall the core last entered,
	// for lock-stuck reports.
	LastSyscall uint64

	// SliceEnd is the counter value at which the running thread's time
	// slice ends.
	SliceEnd uint64

	Stats CPUStats

	// ProfNext is the counter value of this core's next sampling point
	// while the profiler is on (ProfPeriod != 0; kernel/prof_arm64.go),
	// and IdleSince when the core last went to WFI (kept only then).
	ProfNext, IdleSince uint64
	// IdleTicks is the time the core spent idle, in counter ticks
	// (/proc/stat, /proc/uptime): from its last heartbeat before WFI
	// to its wake-up, so no extra counter read is made for it.
	IdleTicks uint64

	armed uint64 // deadline the timer is to be programmed for (0: stopped)
	// deadline is c's earliest thread deadline or alarm (0: none) as
	// Schedule found it (ScheduleLocked), for ArmTimer on the way out.
	deadline uint64
	// The register writes left for Release, after the kernel lock: the
	// cores to send the wake-up SGI (a bit each) and whether the timer
	// must be set to armed.
	pendingKicks uint32
	timerDirty   bool
	// timerLate is how late, on average, c's timer has woken it from
	// WFI, in counter ticks (idlepoll_arm64.go).
	timerLate uint64
	// earlyFor is the deadline c armed its timer early for (0: none),
	// the one it may poll for once woken.
	earlyFor uint64
	// The state locks c holds (statelock.go): held says which core
	// locks, waitLock the wait queue's lock a section took with them.
	held     uint8
	waitLock *cpu.Spinlock
}

// TimerLate is how late, on average, c's timer wakes it from WFI, in
// counter ticks (for the stats).
func (c *CPU) TimerLate() uint64 { return c.timerLate }

// CPUStats are per-core counters printed with gometal.stats=1.
type CPUStats struct {
	Ticks      uint64 // timer interrupts
	SGIsIn     uint64 // wake-up SGIs received
	UARTIRQs   uint64 // console receive interrupts
	SGIsOut    uint64 // wake-up SGIs sent to other cores
	Switches   uint64 // threads picked to run after a block, slice end or idle
	Steals     uint64 // threads taken from another core's queue
	Spreads    uint64 // threads a wake-up put ahead here, moved on to an idle core (spreadBuddy)
	Idles      uint64 // times the core went to WFI
	Migrations uint64 // threads moved off this core by their affinity
	Unlocked   uint64 // system calls answered without the kernel lock
	LockFree   uint64 // calls answered without the kernel lock under the split locks (futex, pipe, signal)
	Faults     uint64 // page faults served without the kernel lock (the space's lock)
	EarlyWakes uint64 // waiters this core woke without the kernel lock (futex, deadline) before their core switched away
	Polls      uint64 // idle waits that polled the counter through their last stretch (idlepoll_arm64.go)
	// The scheduler-state sections this core ran (statelock.go): under
	// its own state lock alone, under a wait queue's lock and another
	// core's (a wake-up onto the waiter's idle core: lockHome), and under
	// every core's (LockState).
	StateOwn, StateHome, StateAll uint64
}

// Offsets into CPU for assembly.
const (
	CPUOffFaultG        = 32
	CPUOffFaultStackTop = 64
	CPUOffKStackTop     = 72
	CPUOffFaultDepth    = 80
	CPUOffEL0Regs       = 88
	CPUOffFault         = 128
)

// CPUs holds every core's state; index = core number.
var CPUs [cpu.MaxCPUs]CPU

var kstacks [cpu.MaxCPUs][KStackSize]byte
var faultStacks [cpu.MaxCPUs][FaultStackSize]byte

// InitCPU prepares core id's stacks and fake g's. It returns the address
// to load into TPIDR_EL1 and R28.
func InitCPU(id int) *CPU {
	c := &CPUs[id]
	if id == 0 {
		initLocks()
	}
	if id >= stateCores {
		stateCores = id + 1
	}
	c.ID = id
	c.Current = -1
	lo := uintptrOf(&kstacks[id][0])
	c.StackLo = lo
	c.StackHi = lo + KStackSize
	c.StackGuard0 = lo + stackGuardMargin
	c.StackGuard1 = c.StackGuard0
	// The trap frame sits at the very top of the kernel stack.
	c.KStackTop = c.StackHi
	flo := uintptrOf(&faultStacks[id][0])
	c.FaultG[0] = flo
	c.FaultG[1] = flo + FaultStackSize
	c.FaultG[2] = flo + 1024
	c.FaultG[3] = flo + 1024
	c.FaultStackTop = flo + FaultStackSize
	return c
}

// NextDeadline is what c's timer was last armed for: its earliest thread
// deadline or alarm as its last Schedule found it (0: none), for the
// state dump.
func NextDeadline(c *CPU) uint64 { return c.deadline }

// OnlineCPUs counts the cores that run threads.
func OnlineCPUs() int {
	n := 0
	for i := range CPUs {
		if CPUs[i].Online {
			n++
		}
	}
	return n
}
