package kernel

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/sched"
)

// The watchdog turns a hang into a report. Three things stop work: a
// spinlock a core cannot get (cpu.Spinlock calls lockStuck after
// lockStuckSeconds); a core that stops taking its timer tick (checked by
// every other core on its own tick); and a runnable thread no core runs
// (a lost wake-up or a scheduler bug; the idle boot core keeps a tick for
// this, sched.WatchdogNanos). Each ends the run with a kernel panic naming
// the lock, core or thread, never a silent hang.

// silentSeconds: a busy core that has not entered the kernel for this
// long has stopped answering.
const silentSeconds = 10

// starvedSeconds: a thread runnable this long without running was lost.
// The longest a thread waits for a core when the scheduler works is one
// slice per thread queued before it: 64 slices (640 ms) with a full
// thread table on four cores.
const starvedSeconds = 10

// starvedCheckNanos spaces a core's looks for a starved thread: one
// takes every core's state lock to read the run queues (sched.Starved),
// which on every tick of every core (a busy core ticks each slice)
// would queue with the cores' own switches for nothing; a lost thread
// is one that waited seconds.
const starvedCheckNanos = 100_000_000

// nextStarvedCheck is each core's counter value for its next look.
var nextStarvedCheck [cpu.MaxCPUs]uint64

// progressSeen and progressAt: the last value of cpu.Progress a core's
// tick saw change, and when. A core polling a slow device under the
// kernel lock (interrupts masked: no tick) moves it with each request,
// and is working, not silent.
var progressSeen, progressAt atomic.Uint64

func watchdog(c *sched.CPU, now uint64) {
	silent := timer.NanosToTicks(silentSeconds * 1e9)
	if p := cpu.Progress.Load(); p != progressSeen.Load() {
		progressSeen.Store(p)
		progressAt.Store(now)
	}
	working := now-progressAt.Load() < silent
	if o := sched.Silent(now, silent, c.ID); o >= 0 && !working {
		claimPanic()
		Puts("\ngometal: watchdog: core ")
		PutDec(int64(o))
		Puts(" has not entered the kernel for ")
		PutDec(silentSeconds)
		Puts(" s")
		putCoreState(o)
		Panic("a core stopped answering")
	}
	if now < nextStarvedCheck[c.ID] {
		return
	}
	nextStarvedCheck[c.ID] = now + timer.NanosToTicks(starvedCheckNanos)
	// A thread queued behind a core that waits for the kernel lock,
	// while the lock's holder polls a slow device (the Pi's SD card
	// under QEMU reads a 27 MB file for seconds), is waiting on work,
	// not lost: the watchdog looks again once the polling has stopped
	// for silentSeconds, and a thread still waiting then was lost.
	if working {
		return
	}
	if i := sched.Starved(now, timer.NanosToTicks(starvedSeconds*1e9)); i >= 0 {
		claimPanic()
		t := &sched.Threads[i]
		Puts("\ngometal: watchdog: thread ")
		PutDec(int64(i))
		Puts(" (tid ")
		PutDec(int64(t.TID))
		Puts(") has been runnable for ")
		PutDec(starvedSeconds)
		Puts(" s without running, queued on core ")
		PutDec(int64(sched.QueuedOn(i)))
		Puts("\n  cores:")
		for k := range sched.CPUs {
			if sched.CPUs[k].Online {
				Puts(" ")
				PutDec(int64(k))
				if sched.CPUs[k].Idle {
					Puts(" idle")
				}
				putCoreState(k)
			}
		}
		Panic("a runnable thread is not being run")
	}
}

// lockStuck is cpu.Stuck: core waiter could not take l.
func lockStuck(l *cpu.Spinlock, waiter int) {
	claimPanic()
	owner := l.Owner()
	Puts("\ngometal: deadlock: core ")
	PutDec(int64(waiter))
	Puts(" waited ")
	PutDec(lockStuckSeconds)
	Puts(" s for the ")
	Puts(l.Name)
	Puts(" lock, held by core ")
	PutDec(int64(owner))
	putCoreState(owner)
	Panic("spinlock held too long")
}

// putCoreState prints what core i was doing: its thread and the syscall
// it last entered.
func putCoreState(i int) {
	if i < 0 || i >= len(sched.CPUs) {
		return
	}
	Puts(" (thread ")
	PutDec(int64(sched.CPUs[i].Current))
	Puts(", last syscall ")
	PutDec(int64(sched.CPUs[i].LastSyscall))
	Puts(")")
}
