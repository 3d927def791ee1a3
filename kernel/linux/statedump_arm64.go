package linux

import (
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/tty"
	"github.com/gometal/gometal/sched"
)

// The state dump: every core, process and thread, and what each waits
// for, so that a run that went quiet says why (as Linux's SysRq-t and
// SysRq-l do). gometal run -timeout asks for it shortly before it kills
// QEMU (gometal.dumpafter=); it reads the tables without the state
// locks, as a picture taken while they may move.

// dumpState prints the dump, saying first why it was made.
func dumpState(why string) {
	now := timer.Now()
	kernel.Puts("gometal: state dump: ")
	kernel.Puts(why)
	kernel.Puts("\n")
	for i := range sched.CPUs {
		c := &sched.CPUs[i]
		if !c.Online {
			continue
		}
		kernel.Puts("gometal:   core ")
		kernel.PutDec(int64(i))
		switch {
		case c.Idle:
			kernel.Puts(": idle")
		case c.Current < 0:
			kernel.Puts(": in the kernel, no thread")
		default:
			kernel.Puts(": running thread ")
			kernel.PutDec(int64(sched.Threads[c.Current].TID))
		}
		if c.Heartbeat != 0 {
			kernel.Puts(", entered the kernel ")
			putRelative(now, c.Heartbeat)
			kernel.Puts(" ago")
		}
		if d := sched.NextDeadline(c); d != 0 {
			kernel.Puts(", next timer in ")
			putRelative(d, now)
		}
		kernel.Puts(", last system call ")
		kernel.PutDec(int64(c.LastSyscall))
		kernel.Puts("\n")
	}
	// Who the console's foreground is: a run stuck on job control (a
	// group stopped by SIGTTIN) shows it here.
	if tty.Console.Session != 0 {
		kernel.Puts("gometal:   console: controlling terminal of session ")
		kernel.PutDec(int64(tty.Console.Session))
		kernel.Puts(", foreground group ")
		kernel.PutDec(int64(tty.Console.Pgrp))
		kernel.Puts("\n")
	}
	kernel.I2CDump() // a transfer in flight: a thread waiting on it says "a device's transfer"
	for p := range proc.Procs {
		pp := &proc.Procs[p]
		if pp.State == proc.Free {
			continue
		}
		kernel.Puts("gometal:   process ")
		kernel.PutDec(int64(pp.PID))
		kernel.Puts(" (")
		putComm(&pp.Comm)
		kernel.Puts(") parent ")
		kernel.PutDec(int64(proc.PPID(int32(p))))
		kernel.Puts(" group ")
		kernel.PutDec(int64(pp.PGID))
		kernel.Puts(" session ")
		kernel.PutDec(int64(pp.SID))
		if pp.State == proc.Zombie {
			kernel.Puts(": zombie, wait status ")
			kernel.PutHex(uint64(uint32(pp.Status)))
			kernel.Puts("\n")
			continue
		}
		kernel.Puts(": ")
		kernel.PutDec(int64(pp.Threads))
		kernel.Puts(" threads")
		if lprocs[p].Exiting {
			kernel.Puts(", exiting")
		}
		kernel.Puts("\n")
		for i := range sched.Active() {
			t := &sched.Threads[i]
			if liveIn(t, int32(p)) {
				dumpThread(t, now)
			}
		}
	}
}

// waitNames names sched.WaitKind values.
var waitNames = [...]string{"nothing", "a futex", "its deadline", "a file", "an epoll instance", "a signal", "a child", "its vfork child", "its other threads to end", "SIGCONT (stopped)", "a disk read", "a device's transfer (I2C)"}

func dumpThread(t *sched.Thread, now uint64) {
	kernel.Puts("gometal:     thread ")
	kernel.PutDec(int64(t.TID))
	switch t.State {
	case sched.Running:
		kernel.Puts(": running on core ")
		kernel.PutDec(int64(t.CPU))
		kernel.Puts(" pc=")
		kernel.PutHex(t.Ctx.PC)
	case sched.Runnable:
		kernel.Puts(": runnable, queued on core ")
		kernel.PutDec(int64(sched.QueuedOn(sched.Index(t))))
	case sched.Blocked:
		kernel.Puts(": blocked in system call ")
		kernel.PutDec(int64(t.SysNr))
		kernel.Puts("(")
		kernel.PutHex(t.OrigX0)
		for a := 1; a < 4; a++ {
			kernel.Puts(", ")
			kernel.PutHex(t.Ctx.X[a])
		}
		kernel.Puts(") pc=")
		kernel.PutHex(t.Ctx.PC)
		kernel.Puts(" lr=")
		kernel.PutHex(t.Ctx.X[30])
		kernel.Puts(" on core ")
		kernel.PutDec(int64(t.CPU))
		kernel.Puts(", waiting for ")
		if int(t.Wait) < len(waitNames) {
			kernel.Puts(waitNames[t.Wait])
		}
		if t.Wait == sched.WaitFutex {
			kernel.Puts(" at ")
			kernel.PutHex(uint64(t.WaitUserAddr()))
		}
		if t.Deadline != 0 {
			kernel.Puts(", deadline in ")
			putRelative(t.Deadline, now)
		}
	}
	if lx(t).Dying {
		kernel.Puts(", leaving")
	}
	if m := lx(t).SigMask; m != 0 {
		kernel.Puts(", signals blocked ")
		kernel.PutHex(m)
	}
	if p := lx(t).SigPending; p != 0 {
		kernel.Puts(", pending ")
		kernel.PutHex(p)
	}
	kernel.Puts("\n")
}

// putRelative prints how far the counter value d is from now, in µs
// (negative: past).
func putRelative(d, now uint64) {
	if d >= now {
		kernel.PutDec(timer.TicksToNanos(d-now) / 1000)
	} else {
		kernel.Puts("-")
		kernel.PutDec(timer.TicksToNanos(now-d) / 1000)
	}
	kernel.Puts(" us")
}

func putComm(c *[16]byte) {
	n := 0
	for n < len(c) && c[n] != 0 {
		n++
	}
	kernel.PutBytes(c[:n])
}

// armStateDump sets the dump's alarm if the boot arguments asked for one.
func armStateDump() {
	if kernel.DumpAfterNanos != 0 {
		sched.SetAlarm(sched.AlarmDump, timer.Now()+timer.NanosToTicks(int64(kernel.DumpAfterNanos)), kernel.ThisCPU().ID)
	}
}
