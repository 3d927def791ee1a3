package sched

import "github.com/gometal/gometal/drivers/cpu"

// The kernel's locks and their order. A core may take a lock only while
// every lock it holds has a lower rank; the lock-order checker
// (drivers/cpu/lockorder.go, boot argument gometal.lockcheck=1, on in make
// test) reports any acquisition that breaks this with both stacks.
//
//	rank 1    KernelLock  everything not listed below
//	rank 2    the descriptor table's (kernel/linux: which description
//	          each descriptor names, for lookups without KernelLock)
//	rank 3    an object's (a pipe's ring and ends, an eventfd's count)
//	rank 4    the epoll registrations (WatchLock)
//	rank 5    SignalLock  the app's signal state (kernel/linux)
//	rank 6    a wait queue's (64 by hash: a futex queue's by its
//	          address, waitaddr.go; an object queue's by the queue's)
//	rank 7+i  core i's state lock (the scheduler's state, below)
//	then      an address space's (RankSpace): faults and the mapping
//	          calls, with or without KernelLock (kernel/mm/space.go)
//	then      the page allocator's (RankPages)
//	last      the ASID allocator's (RankASID)
//
// Ranks 2 to 4 are the start of splitting KernelLock by object: a read
// or write of an anonymous pipe or an eventfd, and an epoll_pwait on
// such objects, run under them alone (kernel/linux/unlockedio_arm64.go),
// while every other path to those objects takes them inside KernelLock,
// so both meet on the same locks. SignalLock does the same for the
// signals a tgkill sends and an rt_sigreturn unmasks (the Go runtime's
// preemption, kernel/linux/unlockedsignal_arm64.go).
//
// The scheduler's state is split by core (statelock.go): a futex wait
// or wake whose threads all live on the calling core, and a core that
// switches between threads of its own queue, take that core's lock
// alone (and a wait queue's), so cores that schedule their own
// threads do not queue for each other; whatever reaches across cores
// takes every core's lock (LockState), in rank order.
//
// IRQs are masked whenever the kernel runs, so no lock is ever taken by
// an interrupt handler on a core that already holds it. The panic path
// takes no lock at all (it may run while this core, or a dead one, holds
// one); it claims panicking (kernel/panic_arm64.go) with a single atomic
// swap instead.
const (
	RankKernel    = 1
	RankFDs       = 2
	RankObject    = 3
	RankWatch     = 4
	RankSignal    = 5
	RankWaitQueue = 6
	RankCore      = 7 // core i's is RankCore + i
	// RankSpace is an address space's lock (kernel/mm): after every
	// core's, since a copy from app memory made under the state locks
	// (a locked FUTEX_WAIT's compare) may fault a page in.
	RankSpace = RankCore + cpu.MaxCPUs
	// RankPages is the page allocator's (kernel/mm/pagealloc.go), taken
	// inside an address space's lock or alone.
	RankPages = RankSpace + 1
	// RankASID is the ASID allocator's (kernel/asid_arm64.go): taken
	// with nothing after it.
	RankASID = RankSpace + 2
)

// KernelLock serializes the kernel: a core takes it on every system call
// and fault from EL0 and holds it until it returns to EL0, except while it
// waits in WFI (idle). The thread table's users, files, pipes, the address
// space, the page allocator and the console are therefore touched by one
// core at a time, and the app's own code runs on all cores in parallel.
// This is the classic "big kernel lock": a kernel small enough to read,
// and correct on every core, at the price of serializing system calls.
// Four kinds of call need no kernel lock: those that touch only the
// calling thread (kernel/unlocked_arm64.go), FUTEX_WAKE and FUTEX_WAIT,
// which need only the scheduler's state locks
// (kernel/linux/lockfree_arm64.go), read
// and write of an anonymous pipe or an eventfd and epoll_pwait on such
// objects, under the ranks between (kernel/linux/unlockedio_arm64.go),
// and the preemption signal's tgkill and rt_sigreturn, under SignalLock
// (kernel/linux/unlockedsignal_arm64.go). Interrupts take it
// only for what needs it (kernel/irq_arm64.go): not for a wake-up SGI or
// a timer tick with no alarm due, so Schedule may run without it (a
// core's thread switched out at a slice's end, a thread picked by a core
// leaving WFI; HoldsKernel tells).
var KernelLock = cpu.Spinlock{Name: "kernel", Rank: RankKernel}

// FDLock guards which description each descriptor names, for the
// lookups made without the kernel lock (kernel/linux's unlockedIO): a
// descriptor is set or cleared under the kernel lock and FDLock both,
// and such a lookup takes a reference to the description under FDLock.
var FDLock = cpu.Spinlock{Name: "fds", Rank: RankFDs}

// WatchLock guards the epoll registrations against a Notify or an
// epoll_pwait made without the kernel lock: a registration is linked,
// changed or unlinked under the kernel lock and WatchLock both, and
// such a Notify walks an object's watch list, and such an epoll_pwait
// an instance's list, under WatchLock.
var WatchLock = cpu.Spinlock{Name: "watch", Rank: RankWatch}

// SignalLock guards the app's signal state against the system calls
// that change it without the kernel lock (a tgkill to a thread that is
// running or runnable, rt_sigreturn): every thread's pending set and
// siginfo, its mask, its rt_sigtimedwait set, the process's pending set
// and the handler table are written under it (and, but for those two
// calls, under the kernel lock too). kernel/linux/signal_arm64.go says
// which way each access goes.
var SignalLock = cpu.Spinlock{Name: "signals", Rank: RankSignal}

// LockObject takes l, a lock of the split ranks (RankFDs, RankObject,
// RankWatch, RankSignal), for the calling core.
func LockObject(l *cpu.Spinlock) { l.Lock(self().ID) }

// Lock returns the kernel's i-th lock in rank order, or nil past the
// last (for the stats and reports that list them all).
func Lock(i int) *cpu.Spinlock {
	switch i {
	case 0:
		return &KernelLock
	case 1:
		return &FDLock
	case 2:
		return &WatchLock
	case 3:
		return &SignalLock
	}
	return nil
}
