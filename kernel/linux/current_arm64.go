package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/sched"
)

// current is the thread the calling core works for: the one whose
// system call, fault or return to EL0 it is handling (Linux's current).
// The process-wide state a call reaches without naming a thread (the
// descriptor table, the working directory) is its process's.
func current() *sched.Thread { return sched.Current(kernel.ThisCPU()) }
