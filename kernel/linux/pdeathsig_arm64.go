package linux

import (
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/sched"
)

// PR_SET_PDEATHSIG (prctl(2)): a process asks for a signal when its
// parent goes. Linux's parent is a thread, the one that forked it
// (real_parent), and forget_original_parent sends the signal each time
// that thread exits, moving the child to another thread of the group,
// or to the reaper once the group is gone — the reason Go's
// SysProcAttr.Pdeathsig documents that the thread that started the
// child must live (runtime.LockOSThread). gometal keeps the same rule.

// parentThreadExited moves the children whose parent thread is t (of
// process p) to another live thread of p, or to p's reaper's leader
// once none is left, and sends each its PR_SET_PDEATHSIG.
func parentThreadExited(t *sched.Thread, p int32) {
	heir := int32(0)
	for i := range sched.Active() {
		if o := &sched.Threads[i]; o != t && liveIn(o, p) && !lx(o).Dying {
			heir = o.TID
			break
		}
	}
	if heir == 0 {
		if r := proc.Reaper(p); r != proc.NoParent {
			heir = proc.Procs[r].PID
		}
	}
	for c := range proc.Procs {
		ci := int32(c)
		cp := &proc.Procs[c]
		if cp.State != proc.Live || cp.Parent != p || lprocs[c].ParentTID != t.TID {
			continue
		}
		lprocs[c].ParentTID = heir
		if sig := int(lprocs[c].PdeathSig); sig != 0 {
			send(t, ci, nil, sig, userInfo(t, siUSER))
		}
	}
}
