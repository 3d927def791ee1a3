package linux

import (
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/sched"
)

// lthread is what Linux keeps per thread beyond what the scheduler needs
// (sched.Thread): signal state, the alternate signal stack,
// clear_child_tid, and how a signal cut the current system call short.
// lthreads is indexed like sched.Threads, and a slot is reset whenever
// sched hands out its thread (newThread).
type lthread struct {
	SigMask    uint64
	SigPending uint64
	SigInfo    [nsig]sigInfo
	AltSP      uintptr
	AltSize    uintptr
	AltFlags   int32
	ClearTID   uintptr
	KeepCaps   bool // prctl PR_SET_KEEPCAPS
	// Comm is the thread's name (Linux's task comm: PR_SET_NAME names
	// the calling thread, a new thread or process takes its creator's,
	// execve sets it from the file); the process's (proc.Process.Comm,
	// /proc/PID/comm) is its leader thread's.
	Comm [16]byte

	// TimerSlack is how much later than asked the thread's sleeps may
	// end, and DefaultSlack what PR_SET_TIMERSLACK 0 puts back: both
	// its creator's TimerSlack, timerSlackNanos for the first thread
	// (Linux: task_struct's timer_slack_ns, default_timer_slack_ns).
	TimerSlack, DefaultSlack uint64

	// SigWait is the set rt_sigtimedwait is waiting for (0: not
	// waiting), SigWaitInfo where it writes the siginfo.
	SigWait     uint64
	SigWaitInfo uintptr
	// SavedMask is the mask rt_sigsuspend replaced, restored when the
	// handler it waited for returns (HasSavedMask says it is in use).
	SavedMask    uint64
	HasSavedMask bool

	// Interrupted says a signal cut the system call in progress short,
	// IntrLeft the time its deadline still had then (nanosleep reports
	// it).
	Interrupted bool
	IntrLeft    uint64

	// WallWait says the thread's sleep or futex wait lasts until a
	// wall-clock time, so that setting the clock makes it reckon its
	// deadline again (clockWasSet).
	WallWait bool

	// FIFOWait is the FIFO end the thread counted while its open waits
	// for a partner (fifo_arm64.go), 0 when none.
	FIFOWait int32

	// Proc is the slot in proc.Procs of the process the thread belongs
	// to (its thread group).
	Proc int32
	// Dying: its thread group is ending; on its way back to EL0 the
	// thread is sent to exit instead (deliverSignals).
	Dying bool
	// PollEp is the thread's poll instance (1 + its index; 0: none),
	// which ppoll and pselect6 wait on (vfs.PollInstance).
	PollEp int32
}

// sigInfo is what the kernel remembers about one pending signal: si_code
// and the first 16 bytes of the siginfo union (offset 16): si_addr for a
// fault; si_pid, si_uid and si_value for kill and sigqueue.
type sigInfo struct {
	Code   int32
	Fields [2]uint64
}

var lthreads [sched.MaxThreads]lthread

// lx returns t's Linux state.
func lx(t *sched.Thread) *lthread { return &lthreads[sched.Index(t)] }

// newThread takes a free thread slot with fresh Linux state, or nil.
func newThread() *sched.Thread {
	t := sched.New()
	if t != nil {
		lthreads[sched.Index(t)] = lthread{}
	}
	return t
}

// procOf returns the process t belongs to.
func procOf(t *sched.Thread) *proc.Process { return &proc.Procs[lx(t).Proc] }

// liveIn says whether t is a thread of process p that has not exited.
func liveIn(t *sched.Thread, p int32) bool {
	return t.State != sched.Free && t.State != sched.Dead && lx(t).Proc == p
}

// pidOf is t's process ID (its thread group ID).
func pidOf(t *sched.Thread) int32 { return proc.Procs[lx(t).Proc].PID }
