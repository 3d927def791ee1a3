package linux

import (
	"github.com/gometal/gometal/sched"
	"github.com/gometal/gometal/sched/trace"
)

// traceProc records in the kernel trace which process thread t belongs
// to and its name (trace.KindProc), so the timeline names processes
// beside threads: when a process or thread is made, a program run, a
// name set.
func traceProc(t *sched.Thread) {
	if trace.On() {
		trace.RecordProc(sched.SelfID(), t.TID, pidOf(t), &lx(t).Comm)
	}
}
