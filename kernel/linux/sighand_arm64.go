package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/sched"
)

// A process's signal state, in two objects as Linux keeps it: the
// handler table (sighand_struct), which processes share with
// CLONE_SIGHAND and fork copies, and the signals sent to the process
// as a whole that no thread could take yet (signal_struct's
// shared_pending), one per process. Both change under SignalLock
// (signal_arm64.go says why).

// sigHand is one handler table and the processes that share it.
type sigHand struct {
	Actions [nsig]sigaction
	Refs    int32
}

var sigHands [proc.MaxProcs]sigHand

// newSigHand takes a free table with every signal at SIG_DFL and one
// reference, or -1. copySigHand makes one with src's handlers (fork).
func newSigHand() int32 {
	for i := range sigHands {
		if sigHands[i].Refs == 0 {
			sigHands[i] = sigHand{Refs: 1}
			return int32(i)
		}
	}
	return -1
}

// lproc is what Linux keeps per process beyond the process table's
// identity (proc.Process): the signals sent to the process as a whole
// that no thread could take yet, how its thread group is ending, the
// thread of its parent that waits for it to exec or exit (vfork), and
// the queue its own waits for children block on (Linux's signal_struct:
// shared_pending, group_exit_code, wait_chldexit). Indexed like
// proc.Procs, reset when a process is made.
type lproc struct {
	Pending uint64 // sent to the process while every thread blocked them
	Info    [nsig]sigInfo

	// Exiting: the thread group is ending (exit_group, a fatal signal):
	// every thread is on its way out, and the process's wait status is
	// Status.
	Exiting bool
	Status  int32
	// VforkParent is 1 + the index of the parent's thread blocked in a
	// CLONE_VFORK clone until this process execs or exits (0: none), and
	// VforkTID its TID (the slot is only that thread's while it waits).
	VforkParent, VforkTID int32
	// ChildWait is where the process's wait4 and waitid calls block
	// until a child changes state (each runs its call again).
	ChildWait sched.Queue
	// ThreadsGone is where an execve waits for the process's other
	// threads to end (the last one notifies it).
	ThreadsGone sched.Queue
	// Stopped: the process is stopped (StopSig stopped it) until
	// SIGCONT. StopReport and ContReport are a stop and a continue its
	// parent has not collected with wait yet.
	Stopped                bool
	StopSig                int32
	StopReport, ContReport bool
	// Exe is 1 + the inode of the program the process runs (0: none),
	// held while it does (setExe); ExePath its absolute path as the
	// exec found it (readlink /proc/self/exe, os.Executable).
	Exe     int32
	ExePath [fs.PathMax]byte
	ExeLen  int32
	// Start is when the process was made (CLOCK_MONOTONIC ns: /proc's
	// starttime).
	Start int64
	// ParentTID is the thread the process counts as its parent (Linux's
	// real_parent is a thread: the one that forked it, then another of
	// its group or the reaper as they exit), and PdeathSig the signal
	// the process gets each time that thread exits (PR_SET_PDEATHSIG; 0:
	// none).
	ParentTID, PdeathSig int32
	// CPU time (cputime_arm64.go): the exited threads' run time, the
	// reaped children's (theirs and what they reaped), the peak of
	// resident pages once the process is gone, and its children's.
	DeadTicks, ChildTicks uint64
	MaxRSS, ChildMaxRSS   int64
}

var lprocs [proc.MaxProcs]lproc

// actionsOf is the handler table of t's process.
func actionsOf(t *sched.Thread) *[nsig]sigaction { return &sigHands[procOf(t).SigHand].Actions }

// sharedOf is the Linux state of t's process.
func sharedOf(t *sched.Thread) *lproc { return &lprocs[lx(t).Proc] }

func copySigHand(src int32) int32 {
	n := newSigHand()
	if n >= 0 {
		sigHands[n].Actions = sigHands[src].Actions
	}
	return n
}

// putSigHand drops a process's reference to handler table i.
func putSigHand(i int32) { sigHands[i].Refs-- }
