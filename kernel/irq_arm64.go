package kernel

import (
	"github.com/gometal/gometal/drivers/gic"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/prof"
	"github.com/gometal/gometal/sched"
	"github.com/gometal/gometal/sched/trace"
)

// Interrupts take the kernel lock only when one needs it.
//
//   - The wake-up SGI needs no work of its own: it only made the core
//     enter the kernel, where Schedule looks at its run queue and the
//     personality at the thread's pending signals (kernel.OS.Pending).
//   - The timer tick stops the timer (re-armed on the way out), wakes the
//     threads whose deadline passed and runs the watchdog: the first under
//     sched.StateLock, the others on this core's own state.
//   - A due alarm (a timerfd's: its hook notifies files), the console's
//     UART (the terminal), the network device (kernel/inet's state is the
//     kernel lock's), a disk's (its reads in flight are the kernel
//     lock's) and any other interrupt take the kernel lock,
//     the first time one comes.
//
// So a core woken from WFI to run a thread another core readied, or
// ticked at the end of a slice, does not queue for the kernel lock behind
// the system calls in flight. Under QEMU's TCG that queue was most of a
// cross-core wake-up's cost: interrupt handling holds the lock across
// GIC and timer register accesses, each of which takes QEMU's own big
// lock, and a vCPU spinning for the kernel lock takes host time from the
// one holding it.

// interrupt handles an IRQ taken from EL0 and returns to a thread. The
// profiler samples here too, without the kernel lock: its walk of the
// app's frame pointers only peeks at pages already mapped (appFrames).
// Taking the lock for every sample, as it once did, made the lock the
// profile's hottest wait (17% of a timer benchmark's samples, 1.7 s of
// waits) where an unprofiled run waited 2.7 ms for it.
// Never inlined: it runs after saveFP, and TestUnlockedPathUsesNoFP
// tells the code before saveFP from the code after by function.
//
//go:noinline
func interrupt(c *sched.CPU, f *sched.Frame) {
	c.Heartbeat = timer.Now()
	if prof.On() {
		profUnlocked(c, sched.Current(c), f, c.Heartbeat, prof.ArgIRQ)
	}
	takeIRQs(c)
	finishTrap(c, f, false)
}

// idleIRQ is sched's hook for a core that woke from WFI, with no lock
// held.
func idleIRQ(c *sched.CPU) {
	if prof.On() {
		profIdle(c)
	}
	takeIRQs(c)
}

// takeIRQs drains the GIC. Its callers (an interrupt from EL0, a core
// woken from WFI) come without the kernel lock; it is taken for the
// first interrupt that needs it, with no StateLock held (the lock
// order), and sched.HoldsKernel tells the way out which.
func takeIRQs(c *sched.CPU) {
	locked := sched.HoldsKernel(c)
	for {
		iar := gic.Ack()
		id := gic.ID(iar)
		if id == gic.Spurious {
			return
		}
		switch {
		case id == timerIRQ:
			trace.Record(c.ID, trace.KindIRQ, trace.IRQTimer, 0, id)
			c.Stats.Ticks++
			sched.StopTimer(c) // re-armed by ArmTimer on the way out
			now := c.Heartbeat
			sched.ExpireThreads(now)
			if !locked && sched.AlarmDue(now) {
				sched.KernelLock.Lock(c.ID)
				locked = true
			}
			if locked {
				sched.ExpireAlarms(now)
			}
			watchdog(c, now)
			logWritten()
			if c.ID == 0 { // the boot core keeps a tick when idle (sched.WatchdogNanos)
				sched.UpdateLoad(now, timer.NanosToTicks(sched.LoadFreqNanos))
			}
		case id == gic.SGIWake:
			trace.Record(c.ID, trace.KindIRQ, trace.IRQSGI, 0, id)
			c.Stats.SGIsIn++
		default:
			if !locked {
				sched.KernelLock.Lock(c.ID)
				locked = true
			}
			if consoleIRQ(id) {
				trace.Record(c.ID, trace.KindIRQ, trace.IRQUART, 0, id)
				c.Stats.UARTIRQs++
			} else if nicInterrupt(id) {
				trace.Record(c.ID, trace.KindIRQ, trace.IRQOther, 0, id)
			} else if blkInterrupt(id) {
				trace.Record(c.ID, trace.KindIRQ, trace.IRQOther, 0, id)
			} else if gpioInterrupt(id) {
				trace.Record(c.ID, trace.KindIRQ, trace.IRQOther, 0, id)
			} else if i2cInterrupt(id) {
				trace.Record(c.ID, trace.KindIRQ, trace.IRQOther, 0, id)
			} else {
				trace.Record(c.ID, trace.KindIRQ, trace.IRQOther, 0, id)
			}
		}
		gic.EOI(iar)
		if id == gic.SGIWake {
			stopIfStopping()
		}
	}
}
