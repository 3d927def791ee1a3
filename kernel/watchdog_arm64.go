package kernel

import (
	"gometal/drivers/cpu"
	"gometal/drivers/timer"
	"gometal/sched"
)

// The watchdog turns a hang into a report. Two things can stop a core
// from answering: a spinlock it cannot get (cpu.Spinlock calls lockStuck
// after lockStuckSeconds), and a core that stops taking its timer tick
// (checked by every other core on its own tick). Either ends the run with
// a kernel panic naming the lock or core, never a silent hang.

// silentSeconds: a busy core that has not entered the kernel for this
// long has stopped answering.
const silentSeconds = 10

func watchdog(c *sched.CPU, now uint64) {
	if o := sched.Silent(now, timer.NanosToTicks(silentSeconds*1e9), c.ID); o >= 0 {
		claimPanic()
		puts("\ngometal: watchdog: core ")
		putDec(int64(o))
		puts(" has not entered the kernel for ")
		putDec(silentSeconds)
		puts(" s")
		putCoreState(o)
		kpanic("a core stopped answering")
	}
}

// lockStuck is cpu.Stuck: core waiter could not take l.
func lockStuck(l *cpu.Spinlock, waiter int) {
	claimPanic()
	owner := l.Owner()
	puts("\ngometal: deadlock: core ")
	putDec(int64(waiter))
	puts(" waited ")
	putDec(lockStuckSeconds)
	puts(" s for the ")
	puts(l.Name)
	puts(" lock, held by core ")
	putDec(int64(owner))
	putCoreState(owner)
	kpanic("spinlock held too long")
}

// putCoreState prints what core i was doing: its thread and the syscall
// it last entered.
func putCoreState(i int) {
	if i < 0 || i >= len(sched.CPUs) {
		return
	}
	puts(" (thread ")
	putDec(int64(sched.CPUs[i].Current))
	puts(", last syscall ")
	putDec(int64(sched.CPUs[i].LastSyscall))
	puts(")")
}
