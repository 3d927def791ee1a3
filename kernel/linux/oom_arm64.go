package linux

import (
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/klog"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/sched"
)

// The OOM killer (Linux's mm/oom_kill.c, much simplified): when a page
// fault cannot be backed, the live process with the most resident
// memory is killed with SIGKILL, saying which, and the faulting thread
// tries its access again once it runs next. While a victim is still on
// its way out (its memory not yet given back) nobody else is killed:
// the faulting thread yields and retries. PID 1 chosen ends the run.

// outOfMemory answers t's fault at addr that found no free page.
func outOfMemory(t *sched.Thread, addr uintptr) {
	// Memory of processes that have ended comes back once no core
	// points at it: give back what the cores let go of, and ask those
	// that still hold such a space (idle since its last thread) to let
	// go (kernel's dropDeadSpace); the access runs again meanwhile.
	if mm.ReapSpaces() > 0 {
		// A dead process's memory just came back (a core let go of its
		// space since the victim's exit): the access runs again before
		// anyone else is killed for it.
		kernel.ThisCPU().SliceEnd = 0
		return
	}
	if held := mm.DeadSpacesHeld(); held != 0 {
		sched.KickCores(held)
		kernel.ThisCPU().SliceEnd = 0
		return
	}
	if v := oomVictim - 1; v >= 0 {
		// The last victim's memory is not back yet (its space not torn
		// down): nobody else is killed for it meanwhile, as Linux's
		// oom_evaluate_task aborts on a victim not yet reaped. Bounded,
		// in case the space's slot was reused before this look.
		if mm.Spaces[v].PT.Root != 0 && entryCounter()-oomVictimAt < timer.NanosToTicks(oomVictimWaitNanos) {
			kernel.ThisCPU().SliceEnd = 0
			return
		}
		oomVictim = 0
	}
	victim, size := int32(-1), int64(-1)
	for p := range proc.Procs {
		pp := &proc.Procs[p]
		if pp.State != proc.Live || pp.MM < 0 {
			continue
		}
		r := mm.Spaces[pp.MM].Resident
		if lprocs[p].Exiting && r > 0 {
			// Memory is on its way back: wait for it.
			kernel.ThisCPU().SliceEnd = 0
			return
		}
		if r > size {
			victim, size = int32(p), r
		}
	}
	if victim < 0 {
		kernel.ThisCPU().SliceEnd = 0
		return
	}
	vp := &proc.Procs[victim]
	kernel.Log(klog.LevelErr, "out of memory faulting in ")
	kernel.PutHex(uint64(addr))
	kernel.Puts(" (pid ")
	kernel.PutDec(int64(pidOf(t)))
	kernel.Puts("): killed process ")
	kernel.PutDec(int64(vp.PID))
	kernel.Puts(" (")
	putComm(&vp.Comm)
	kernel.Puts(") using ")
	kernel.PutDec(size * mm.PageSize >> 10)
	kernel.Puts(" KiB")
	kernel.InfoEnd()
	procStats.OOMKills++
	if victim == proc.Init {
		kernel.Log(klog.LevelErr, "out of memory: PID 1 killed (boot with more memory: -m)")
		kernel.InfoEnd()
		appExit(137)
	}
	oomVictim, oomVictimAt = vp.MM+1, entryCounter()
	killProcess(victim, sigKILL)
}

// oomVictim is the address space (1 + its slot; 0: none) of the last
// process killed for memory, from oomVictimAt (counter ticks) until it is
// torn down, for at most oomVictimWaitNanos: while it is on its way out
// no second process is killed (a victim whose last thread has exited is
// no longer Live, and its memory comes back only once every core has let
// go of its space).
var (
	oomVictim   int32
	oomVictimAt uint64
)

const oomVictimWaitNanos = 2_000_000_000
