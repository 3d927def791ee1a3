package sched

import "github.com/gometal/gometal/drivers/cpu"

// KernelLock serializes the kernel: a core takes it on every exception
// from EL0 and holds it until it returns to EL0, except while it waits in
// WFI (idle). Everything shared between cores (the thread table, run
// queues, futex waiters, files, pipes, the address space, the page
// allocator, the console) is therefore touched by one core at a time, and
// the app's own code runs on all cores in parallel. This is the classic
// "big kernel lock": a kernel small enough to read, and correct on every
// core, at the price of serializing syscalls (measured in issue 4's
// harness before anything finer is built).
//
// Lock order: KernelLock is the only lock taken on normal paths, so there
// is no order to get wrong. The panic path takes no lock at all (it may
// run while this core, or a dead one, holds KernelLock); it claims
// panicking (kernel/panic_arm64.go) with a single atomic swap instead.
var KernelLock = cpu.Spinlock{Name: "kernel"}
