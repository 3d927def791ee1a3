package kernel

import "github.com/gometal/gometal/sched"

// Personality is the layer above the core that makes the app see an
// operating system. The core knows exceptions, interrupts, cores, memory
// and the scheduler; what a system call, a fault or the first thread
// means to the app is the personality's: kernel/linux fills OS in
// (linux.Install) before Start. Function values, set at run time: package
// initializers never run (ARCHITECTURE.md), and each takes pointers to
// the thread table, a core or the trap frame, never to a stack.
type Personality struct {
	// Syscall runs the system call thread t made (SVC; arguments in f).
	Syscall func(c *sched.CPU, t *sched.Thread, f *sched.Frame)
	// Unlocked answers the system call in f without the kernel lock if
	// it is one that reads or changes only thread t and core c, and
	// reports whether it did (unlocked_arm64.go says when that is safe).
	Unlocked func(c *sched.CPU, t *sched.Thread, f *sched.Frame) bool
	// LockFree answers the system call in f without the kernel lock if it
	// is one that needs only the scheduler's state locks (FUTEX_WAKE,
	// FUTEX_WAIT) or locks of its own kind (a pipe's, the signals'), and
	// reports whether it did and whether t blocked in it; the core then
	// schedules, without the kernel lock, as it does when Pending says
	// t has a signal to take. A call that blocked returns with the
	// state locks it blocked under still held (sched.ScheduleLocked
	// goes on in the same section). Unlike Unlocked it runs after the
	// app's vector registers are saved.
	LockFree func(c *sched.CPU, t *sched.Thread, f *sched.Frame) (answered, blocked bool)
	// Fault serves a page fault from EL0 (esr, far) without the kernel
	// lock, under the address space's own lock, if it is demand paging
	// or a copy-on-write the space can do at once, and reports whether
	// it did; anything else (a signal to send, memory out) goes to
	// Exception, under the kernel lock.
	Fault func(t *sched.Thread, f *sched.Frame, esr, far uint64) bool
	// Exception handles any other synchronous exception from EL0.
	Exception func(t *sched.Thread, f *sched.Frame, esr, far uint64)
	// Resume runs before thread t returns to EL0 with context f (signal
	// delivery; it may end the app and not return). It answers true when
	// t must stop instead (its process was stopped: SIGSTOP, SIGTSTP):
	// the core blocks it, with f as its context, until the personality
	// wakes it with its own X0 (SIGCONT).
	Resume func(t *sched.Thread, f *sched.Frame) (stop bool)
	// Pending reports whether Resume has anything to do for t (a signal
	// to deliver or to settle). A core that woke from WFI to run t
	// without the kernel lock asks it, and takes the lock only if so;
	// it reads what kernel-lock holders write, so a signal posted to t
	// must then reach it another way: the personality decides whether
	// to send t's core an SGI under every core's state lock
	// (sched.LockState), which orders it with the core's picking t.
	Pending func(t *sched.Thread) bool
	// Init makes the app's first thread, ready to enter.
	Init func() *sched.Thread
	// LogWritten wakes the kernel log's readers (/dev/kmsg, syslog's
	// READ) after records were added. The core calls it from a timer
	// interrupt, not where the line is written: a kernel line is written
	// from any context, some holding locks a wake-up takes, so Linux's
	// printk defers the same wake-up (wake_up_klogd, through irq_work).
	LogWritten func()
}

// OS is the personality the core calls.
var OS Personality
