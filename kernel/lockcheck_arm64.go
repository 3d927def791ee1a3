package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/sched"
)

// lockOrderViolated is cpu.OrderViolation, installed when the kernel is
// booted with gometal.lockcheck=1: core took a lock the order in
// sched/lock.go does not allow while holding another. It prints both
// locks with the return addresses of the calls that took them (the host
// symbolizes them) and ends the run; it never returns.
func lockOrderViolated(core int, taking, holding *cpu.HeldLock) {
	var f sched.Frame
	f.PC = callerPC()
	f.X[29] = callerFP()
	panicHead("lock order violated")
	Puts("\n  core ")
	PutDec(int64(core))
	Puts(" takes the ")
	putLock(taking.Lock)
	if holding.Lock == taking.Lock {
		Puts(", which it already holds")
	} else {
		Puts(" while it holds the ")
		putLock(holding.Lock)
	}
	Puts("\n  taking ")
	Puts(taking.Lock.Name)
	Puts(" at:")
	putLockStack(&taking.Stack)
	Puts("\n  ")
	Puts(holding.Lock.Name)
	Puts(" was taken at:")
	putLockStack(&holding.Stack)
	panicBody(&f, 0, 0)
}

func putLock(l *cpu.Spinlock) {
	Puts(l.Name)
	Puts(" lock (rank ")
	PutDec(int64(l.Rank))
	Puts(")")
}

func putLockStack(s *[cpu.LockStackDepth]uintptr) {
	for _, pc := range s {
		if pc == 0 {
			break
		}
		Puts(" ")
		PutHex(uint64(pc))
	}
}
