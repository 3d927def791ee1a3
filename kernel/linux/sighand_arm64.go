package linux

import (
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
// reference, or -1.
func newSigHand() int32 {
	for i := range sigHands {
		if sigHands[i].Refs == 0 {
			sigHands[i] = sigHand{Refs: 1}
			return int32(i)
		}
	}
	return -1
}

// procSignals is what a process keeps of signals beyond its threads'.
type procSignals struct {
	Pending uint64 // sent to the process while every thread blocked them
	Info    [nsig]sigInfo
}

// procSigs is indexed like proc.Procs.
var procSigs [proc.MaxProcs]procSignals

// actionsOf is the handler table of t's process.
func actionsOf(t *sched.Thread) *[nsig]sigaction { return &sigHands[procOf(t).SigHand].Actions }

// sharedOf is the process-wide signal state of t's process.
func sharedOf(t *sched.Thread) *procSignals { return &procSigs[lx(t).Proc] }
