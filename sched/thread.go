package sched

import "unsafe"

// MaxThreads bounds the thread table, every process's threads together.
// A Go program starts a handful of Ms (more when many are blocked in
// system calls), so 64 processes of five each already need 320: a shell
// with 50 sleeping commands (u-root's busybox is a Go program) ran out
// at 256.
const MaxThreads = 1024

// State is a thread's life-cycle state.
type State uint8

const (
	Free     State = iota // slot unused
	Runnable              // on a run queue
	Running               // current on some core
	Blocked               // waiting: see Wait
	Dead                  // exited, slot about to be freed
)

// WaitKind says what a blocked thread waits for (stats and the stall
// report read it; wakers find their waiters through a Queue or, for
// futexes, an address).
type WaitKind uint8

const (
	WaitNone    WaitKind = iota
	WaitFutex            // on an address (WaitOn/WakeAddr)
	WaitSleep            // for its deadline only
	WaitFile             // on a file object's Queue (read, write, accept)
	WaitEpoll            // on an epoll instance's Queue
	WaitSignal           // for a signal (rt_sigsuspend, rt_sigtimedwait)
	WaitChild            // on its process's queue for a child (wait4, waitid)
	WaitVfork            // for its vfork child to exec or exit; no signal ends it
	WaitExec             // in execve, for its process's other threads to end; no signal ends it
	WaitStopped          // stopped with its process (SIGSTOP) until SIGCONT; only SIGCONT and SIGKILL end it
	WaitDisk             // for a disk read in flight (Linux's TASK_KILLABLE page lock); only SIGKILL ends it
	WaitDevice           // for a device's transfer, or the device (an I2C transfer, uninterruptible on Linux); only SIGKILL ends it
	waitKinds
)

// Thread is one schedulable thread of the app: its user context and what
// the scheduler needs to run, block and wake it. What Linux keeps per
// thread (signal masks, the alternate stack, clear_child_tid) is the
// kernel's, in a table indexed like this one (Index).
type Thread struct {
	Ctx   Frame // user context, valid while not Running
	State State
	TID   int32
	CPU   int32 // core it runs or last ran on (-1: never ran); owns its deadline
	next  int32 // run-queue link (index), -1 = end
	// readyAt is the counter when the thread last went on a run queue
	// (Starved reads it).
	readyAt uint64
	// buddy says the thread was put at the head of its run queue, ahead
	// of the others' order (readyNext).
	buddy bool
	// Affinity is the set of cores the thread may run on (bit i = core
	// i); 0 means every online core.
	Affinity uint64
	// CPUTicks is the counter time the thread has run, up to its last
	// switch-out, and ResumedAt when it last began to run (under its
	// core's state lock, as Schedule switches it; 0: never ran). Time
	// is counted from the core's kernel entry before the switch to the
	// one after: the thread's user and system time together, at no
	// extra counter read (getrusage, times and /proc report it as user
	// time).
	CPUTicks, ResumedAt uint64
	// TGID is the thread's process ID, which the personality keeps
	// here for what reads it at interrupt time without asking it (the
	// profiler's samples).
	TGID int32
	// Space is the slot in mm.Spaces of the address space the thread
	// runs in (its process's, Linux's task->mm): the core points TTBR0
	// at it before resuming the thread.
	Space int32

	// Blocking. Deadline is a counter value (0 = none); when it passes,
	// the thread wakes with X0 = TimeoutResult. A thread waits on a Queue
	// (queue, qnext, WaitEvents): an object's, or for a futex the queue
	// its address hashes to (WaitAddr). All of it is under the state
	// locks (statelock.go).
	Wait     WaitKind
	WaitAddr uintptr
	// wokeOnCore: a wake-up without the kernel lock (a FUTEX_WAKE, an
	// expired deadline) ended the wait before t's core switched away from
	// it (WakeLocked); Schedule gives it X0 = wokeResult and runs it on.
	wokeOnCore bool
	wokeResult uint64
	// wokeRetry: that wake-up was a Retry: Schedule rewinds the live
	// frame to the SVC instead of giving it wokeResult.
	wokeRetry     bool
	queue         *Queue
	qnext         int32 // 1 + index of the next thread on queue
	WaitEvents    uint32
	Deadline      uint64
	TimeoutResult uint64

	// The system call in progress: its number and first argument (X0 is
	// overwritten by the result), so that it can run again (Retry, or a
	// restart after a signal handler). Retried says this run is such a
	// re-run, with the deadline the first run set (RetryDeadline) and the
	// bytes it had already moved (Progress: a blocking write that took
	// part of its buffer before it blocked).
	SysNr         uint64
	OrigX0        uint64
	Retried       bool
	RetryDeadline uint64
	Progress      uint64
	// BlockedCall says the system call in progress blocked the thread
	// (Block, BlockOn, WaitOn set it; the personality clears it when a
	// call starts). Once set, the thread may already be awake again: a
	// waker without the kernel lock may end the wait before the call
	// returns, so the call's own code asks this rather than State.
	BlockedCall bool
}

// Threads is the thread table; a thread's index never changes.
var Threads [MaxThreads]Thread

var nextTID int32 = 1

// highWater is one past the highest slot ever used, so scans of the
// table stop there instead of at MaxThreads.
var highWater int

// Active returns the part of the table that has ever held a thread.
func Active() []Thread { return Threads[:highWater] }

// New returns a free thread slot set up as Runnable-to-be (the caller
// fills Ctx and calls Ready), or nil when the table is full.
func New() *Thread {
	for i := range Threads {
		t := &Threads[i]
		if t.State == Free {
			*t = Thread{}
			t.State = Blocked
			t.TID = nextTID
			t.next = -1
			t.CPU = -1
			nextTID++
			if i >= highWater {
				highWater = i + 1
			}
			return t
		}
	}
	return nil
}

// Index returns t's slot number.
func Index(t *Thread) int32 {
	return int32((uintptr(unsafe.Pointer(t)) - uintptr(unsafe.Pointer(&Threads[0]))) / unsafe.Sizeof(Threads[0]))
}

// ByTID finds a live thread.
func ByTID(tid int32) *Thread {
	for i := range Active() {
		t := &Threads[i]
		if t.State != Free && t.State != Dead && t.TID == tid {
			return t
		}
	}
	return nil
}

// Live counts threads that have not exited.
func Live() int {
	n := 0
	for i := range Active() {
		if s := Threads[i].State; s != Free && s != Dead {
			n++
		}
	}
	return n
}

// LastTID is the most recent thread ID handed out (/proc/loadavg's last
// field).
func LastTID() int32 { return nextTID - 1 }

// CPUTime is the counter time t has run, its current run included if
// it runs now (read with now, a counter value).
func (t *Thread) CPUTime(now uint64) uint64 {
	n := t.CPUTicks
	if t.State == Running && t.ResumedAt != 0 && now > t.ResumedAt {
		n += now - t.ResumedAt
	}
	return n
}
