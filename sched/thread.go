package sched

import "unsafe"

// MaxThreads bounds the thread table. Go starts a handful of Ms; a program
// blocked in many syscalls at once may start more.
const MaxThreads = 256

// State is a thread's life-cycle state.
type State uint8

const (
	Free     State = iota // slot unused
	Runnable              // on a run queue
	Running               // current on some core
	Blocked               // waiting: see Wait
	Dead                  // exited, slot about to be freed
)

// WaitKind says what a blocked thread waits for, so wakers can find it.
type WaitKind uint8

const (
	WaitNone WaitKind = iota
	WaitFutex
	WaitSleep
	WaitEpoll
	WaitRead
	WaitSignal
	WaitPipeRead
	WaitPipeWrite
	WaitEventfd // read of an empty eventfd, or a write that would overflow it
	WaitTimerfd // read of a timerfd that has not expired
	WaitAccept  // accept on a blocking socket with no connection queued
	waitKinds
)

// Thread is one schedulable thread of the app: its user context and the
// little the kernel keeps per thread.
type Thread struct {
	Ctx   Frame // user context, valid while not Running
	State State
	TID   int32
	CPU   int32 // core it runs or last ran on (-1: never ran); owns its deadline
	next  int32 // run-queue link (index), -1 = end
	// Affinity is the set of cores the thread may run on (bit i = core
	// i); 0 means every online core.
	Affinity uint64

	// Blocking. Deadline is a counter value (0 = none); when it passes,
	// the thread wakes with X0 = TimeoutResult.
	Wait          WaitKind
	WaitAddr      uintptr
	waitSeq       uint64 // WaitOn order, for FIFO wake-ups
	WaitArg       [3]uintptr
	Deadline      uint64
	TimeoutResult uint64

	// Signals (the kernel package interprets them).
	SigMask    uint64
	SigPending uint64
	SigInfo    [65]SigInfo
	AltSP      uintptr
	AltSize    uintptr
	AltFlags   int32
	ClearTID   uintptr
	KeepCaps   bool // prctl PR_SET_KEEPCAPS

	// SigWait is the set rt_sigtimedwait is waiting for (0: not waiting).
	SigWait uint64
	// SavedMask is the mask rt_sigsuspend replaced, restored when the
	// handler it waited for returns (HasSavedMask says it is in use).
	SavedMask    uint64
	HasSavedMask bool

	// The syscall in progress, for restarting it after a signal handler
	// (SA_RESTART): its number, its first argument (X0 is overwritten by
	// the result), and whether a signal cut it short, with the time its
	// deadline still had then.
	SysNr       uint64
	OrigX0      uint64
	Interrupted bool
	IntrLeft    uint64
}

// SigInfo is what the kernel remembers about one pending signal: si_code
// and the first 16 bytes of the siginfo union (offset 16): si_addr for a
// fault; si_pid, si_uid and si_value for kill and sigqueue.
type SigInfo struct {
	Code   int32
	Fields [2]uint64
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
