package sched

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/gic"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/sched/trace"
)

// SliceNanos is the time slice: the longest a thread runs while another
// waits for its core. A core running a thread always has its timer armed
// for the slice's end at the latest, so a busy core ticks at least this
// often (the watchdog relies on it).
const SliceNanos = 10_000_000

// buddyTicks is nextBuddyNanos in counter ticks.
func buddyTicks() uint64 { return timer.NanosToTicks(nextBuddyNanos) }

// affineTicks is affineWaitNanos in counter ticks.
func affineTicks() uint64 { return timer.NanosToTicks(affineWaitNanos) }

// WatchdogNanos is how often the idle boot core wakes to run the
// watchdog (kernel/watchdog_arm64.go); busy cores run it every tick.
const WatchdogNanos = 1_000_000_000

// IdleIRQ is the kernel's hook for a core that woke from WFI, called
// with no lock held: it handles the pending interrupts, and takes
// KernelLock only if one needs it (HoldsKernel tells afterwards). A
// wake-up SGI alone needs no lock (it only made the core look at its run
// queue), so a core woken to run a thread it was given takes the kernel
// lock only if something else (a due alarm, the UART) interrupted it too.
var IdleIRQ func(c *CPU)

// BeforeIdle is the kernel's hook for a core about to wait for an
// interrupt with no lock held: it lets go of an address space nobody
// uses any more, so that its memory can come back while the core idles.
var BeforeIdle func(c *CPU)

// HoldsKernel reports whether c holds KernelLock. Every kernel entry
// takes it except the unlocked and lock-free system calls, but a core
// that idled in Schedule may return from it without: see idle.
func HoldsKernel(c *CPU) bool { return KernelLock.Owner() == c.ID }

// Fence is a full barrier between cores (DMB ISH): every access before
// it is observed by the other cores before any after it, stores before
// later loads included, which neither a store-release nor a
// load-acquire orders.
func Fence() { cpu.BarrierISH() }

// self is the calling core (TPIDR_EL1 holds its CPU struct).
func self() *CPU { return (*CPU)(cpu.Ptr(uintptr(cpu.ReadTPIDREL1()))) }

// SelfID is the calling core's number.
func SelfID() int { return self().ID }

// LockAddrToBlockAt takes the state locks for a futex wait on addr
// without the kernel lock, which may block the calling thread and, if
// it does, schedule in the same section (ScheduleLocked): addr's futex
// queue lock and the calling core's own state lock only
// (statelock.go), which is all a wait needs: the thread lives on this
// core, and so does Schedule's next pick unless the core's queue is
// empty (Schedule then upgrades). Compare the futex word, check for
// signals, and WaitOnLocked in the section, or UnlockState.
//
// now is the counter, read before any lock, as Schedule's clock
// (Heartbeat); a timed wait reckons its deadline from the same read.
// Under QEMU's TCG a counter read takes QEMU's global lock (CNTVCT_EL0
// is a register marked for I/O), and a core that waits for that while
// it holds a state lock makes every core spinning on it wait as well
// (Release says the same of the kernel lock).
func LockAddrToBlockAt(now uint64, addr uintptr) {
	c := self()
	c.Heartbeat = now
	lockWith(c, &addrLocks[addrHash(callerKey(addr))])
}

// LockQueueToBlock is LockAddrToBlockAt for a wait on an object's queue
// q (a pipe's, an eventfd's, an epoll instance's) without the kernel
// lock: q's lock and the calling core's state lock, the counter read
// first. Check for signals and BlockOnGenLocked in the section, or
// UnlockState.
func LockQueueToBlock(q *Queue) {
	c := self()
	c.Heartbeat = timer.Now()
	lockWith(c, queueLock(q))
}

// LockToSleepAt is LockAddrToBlockAt for a sleep without the kernel
// lock (nanosleep): the calling core's state lock alone, for a wait on
// no queue, with now, read before it, as Schedule's clock and the
// deadline's start. Check for signals and SleepLocked in the section,
// or UnlockState.
func LockToSleepAt(now uint64) {
	c := self()
	c.Heartbeat = now
	lockCore(c)
}

// kick asks for core's wake-up SGI, sent by Release once the kernel lock
// is down (see there).
func kick(core int) { self().pendingKicks |= 1 << uint(core) }

// Release drops KernelLock, then makes the register writes the locked
// section asked for: the wake-up SGIs to other cores (kick) and this
// core's timer deadline (setTimer; StopTimer writes at once). Under QEMU's TCG each of these
// writes takes QEMU's own big lock (the BQL: a GIC register is MMIO, the
// timer's are system registers marked for I/O), for which every vCPU's
// exception entry also queues; made while holding the kernel lock, a wait
// for the BQL became a wait for every core spinning on the kernel lock.
// Done after it, they delay only this core. Neither needs the lock: an
// SGI only makes its core enter the kernel and look (a core about to
// idle finds the thread in its queue under the lock, or the SGI pending
// by the time it executes WFI), and the timer is this core's own.
//
// A core that left WFI for a wake-up SGI alone reaches Release without
// the kernel lock (idle); it has only the writes to make.
func Release(c *CPU) {
	dirty, at := c.timerDirty, c.armed
	c.timerDirty = false
	if HoldsKernel(c) {
		KernelLock.Unlock()
	}
	SendKicks(c)
	if dirty {
		timer.SetDeadline(at)
	}
}

// SendKicks sends the wake-up SGIs c's kernel entry asked for (kick),
// with no lock held: Release does, and so does the lock-free FUTEX_WAKE,
// which readies threads under the state locks alone.
func SendKicks(c *CPU) {
	kicks := c.pendingKicks
	c.pendingKicks = 0
	for core := 0; kicks != 0; core, kicks = core+1, kicks>>1 {
		if kicks&1 != 0 {
			gic.SendSGI(gic.SGIWake, core)
		}
	}
}

// Current returns the thread running on c, or nil while idle.
func Current(c *CPU) *Thread {
	if c.Current < 0 {
		return nil
	}
	return &Threads[c.Current]
}

// ExpireThreads wakes every blocked thread whose deadline has passed,
// on a tick of a core one of whose threads has one due. It needs the
// state locks alone, so a timer interrupt that finds no alarm due
// (AlarmDue) is handled without the kernel lock: c's own to look at its
// deadline cache (a deadline belongs to the core its thread blocked on,
// whose timer is armed for it), and every core's only if one is due
// (it wakes threads onto other cores). Most ticks are a slice's end with
// nothing due; each taking every core's lock queued with every core's
// own switches. A sleeper (nanosleep) that is due and stays on c is
// woken under c's lock alone too (expireSleeps).
func ExpireThreads(now uint64) {
	c := self()
	lockCore(c)
	due := threadDeadline(c.ID, now)
	rest := due != 0 && due <= now && expireSleeps(c, now)
	unlockState(c)
	if !rest {
		return
	}
	LockState()
	for i := range Active() {
		t := &Threads[i]
		if expired(t, now) {
			atomic.AddUint64(&Timeouts[t.Wait], 1)
			if t.TimeoutResult == RetryOnTimeout {
				retryTo(t, anyCore)
			} else {
				WakeLocked(t, t.TimeoutResult)
			}
		}
	}
	UnlockState()
}

// expireSleeps wakes, under c's state lock alone, the sleepers living on
// c whose deadline has passed, when they stay on c (stays: c is idle,
// or the policy keeps them here): a sleep waits on no queue, so it is
// c's state alone. It reports whether other waits on c are due: a
// waiter on a queue leaves it under the queue's lock, which ranks before
// a core's, and one placed elsewhere needs that core's; those go under
// every core's lock. The Go runtime's sleeps (runqgrab's usleep(3),
// sysmon's) end here.
func expireSleeps(c *CPU, now uint64) (rest bool) {
	for i := range Active() {
		t := &Threads[i]
		// CPU first: only c's threads are stable under c's lock.
		if int(t.CPU) != c.ID || !expired(t, now) {
			continue
		}
		if t.Wait != WaitSleep || t.queue != nil || !stays(t, c, c.ID) {
			rest = true
			continue
		}
		atomic.AddUint64(&Timeouts[WaitSleep], 1)
		wakeTo(t, t.TimeoutResult, c.ID)
	}
	return rest
}

// expired reports whether t waits for a deadline that has passed at now.
func expired(t *Thread, now uint64) bool {
	return t.State == Blocked && t.Deadline != 0 && t.Deadline <= now
}

// Timeouts counts the waits that ended by their deadline, per kind
// (atomically: a core counts its sleepers' under its own lock).
var Timeouts [waitKinds]uint64

// earliest returns the earlier of two counter values, 0 meaning none.
func earliest(a, b uint64) uint64 {
	if a == 0 || b != 0 && b < a {
		return b
	}
	return a
}

// Schedule decides who runs next on c after a kernel entry. f holds the
// current thread's live context; on return it holds the context of the
// thread to run (possibly another one). If nothing is runnable the core
// idles here until something is. The caller holds KernelLock, or, for an
// interrupt, may not; Schedule takes c's own state lock and, for what
// reaches beyond c (a steal, going idle, a migration), every core's
// (schedule upgrades). A core that idled returns without the kernel lock
// if only a wake-up SGI woke it (idle): the caller asks HoldsKernel.
func Schedule(c *CPU, f *Frame) {
	lockCore(c)
	ScheduleLocked(c, f)
}

// ScheduleLocked is Schedule for a caller that already holds c's state
// lock or every core's (a wait without the kernel lock blocks the thread
// and schedules in one section); it lets go of them.
//
// It also finds c's next deadline for ArmTimer: the earliest of the
// threads blocked on c (a deadline belongs to the core the thread
// blocked on; deadline.go keeps it) while it holds the lock, so the way
// out need not take a state lock again (each acquisition saved is one
// less turn on a lock other cores' wake-ups and waits queue for), and of
// c's alarms after it let go (they are not the state locks': set under
// KernelLock, and read without it as AlarmDue does). Only c adds to
// either (a thread blocks on the core it runs on, and a core sets its
// own alarms), and what other cores do meanwhile (wake one of c's
// blocked threads) can only make it early, which costs at most a spare
// tick.
func ScheduleLocked(c *CPU, f *Frame) {
	schedule(c, f)
	d := threadDeadline(c.ID, c.Heartbeat)
	unlockState(c)
	c.deadline = earliest(d, nextAlarm(c.ID))
}

// schedule is Schedule with c's state lock or every core's held (idle
// lets go of them while the core waits). Under c's lock alone it does
// what stays on c: the current thread switched out, blocked or onto c's
// queue, and the next one taken from c's queue, all of them c's threads
// (statelock.go). What reaches beyond c upgrades first, where nothing is
// half done: a migration (before anything changed), a yield (the thread
// is on some queue already, maybe another core's), a steal and going
// idle (after the current thread was switched out, so a waker meanwhile
// finds it saved, and its queue is looked at again).
func schedule(c *CPU, f *Frame) {
	cur := Current(c)
	// The counter as read at kernel entry (or after WFI): a read is not
	// free under QEMU's TCG, and microseconds do not matter here.
	now := c.Heartbeat
	if cur != nil {
		tid := uint32(cur.TID)
		switch cur.State {
		case Running:
			if cur.wokeOnCore {
				// Woken by another core before this core switched away
				// (WakeLocked): the wait it blocked in returns the result,
				// or, for a Retry, the call runs again.
				cur.wokeOnCore = false
				if cur.wokeRetry {
					cur.wokeRetry = false
					f.X[0] = cur.OrigX0
					f.PC -= SVCSize
					cur.Retried = true
				} else {
					f.X[0] = cur.wokeResult
				}
			}
			if mustMove(cur, c) {
				if c.held != heldAll {
					upgrade(c) // cur is still c's Running thread: no one else touches it
				}
				trace.RecordLater(c.ID, trace.KindStop, trace.StopMigrate, 0, tid)
				cur.Ctx = *f
				c.Current = -1
				c.Stats.Migrations++
				ready(cur)
				break
			}
			if c.affineDue != 0 && now >= c.affineDue {
				c.affineDue = 0
				if c.held != heldAll {
					upgrade(c) // cur is still c's Running thread: no one else touches it
				}
				spreadBuddy(c)
			}
			if !HasRunnable(c) || now < c.SliceEnd {
				return
			}
			trace.RecordLater(c.ID, trace.KindStop, trace.StopSlice, 0, tid)
			cur.Ctx = *f
			cur.State = Runnable
			runQueues[c.ID].push(c.Current, now)
		case Blocked:
			trace.RecordLater(c.ID, trace.KindStop, trace.StopBlocked, uint16(cur.Wait), tid)
			cur.Ctx = *f
		case Runnable:
			if c.held != heldAll {
				upgrade(c)
			}
			trace.RecordLater(c.ID, trace.KindStop, trace.StopYield, 0, tid)
			cur.Ctx = *f
		case Dead:
			trace.RecordLater(c.ID, trace.KindStop, trace.StopExit, 0, tid)
			cur.State = Free
		}
		if cur.ResumedAt != 0 && now > cur.ResumedAt {
			cur.CPUTicks += now - cur.ResumedAt
		}
		c.Current = -1
	}
	for {
		how := trace.RunLocal
		i := runQueues[c.ID].pop()
		if i < 0 && c.held != heldAll {
			upgrade(c)
			continue // look at c's queue again: a waker may have put a thread there
		}
		if i < 0 {
			i, how = steal(c), trace.RunStolen
		}
		if i >= 0 {
			trace.RecordLater(c.ID, trace.KindRun, how, 0, uint32(Threads[i].TID))
			t := &Threads[i]
			t.State = Running
			t.CPU = int32(c.ID)
			c.Current = i
			t.ResumedAt = c.Heartbeat
			c.SliceEnd = c.Heartbeat + timer.NanosToTicks(SliceNanos)
			c.affineDue = 0 // the head it was for ran (only the head is ever one)
			c.Stats.Switches++
			*f = t.Ctx
			return
		}
		idle(c)
	}
}

// idle waits for an interrupt with the timer set to c's next deadline and
// all locks released, so other cores run the kernel meanwhile. It is
// called with every core's state lock held, right after c's queue and
// every other was found empty, and sets Idle before letting go: a thread
// placed here afterwards comes with an SGI (enqueue, under c's lock),
// which is pending by the time WFI executes if not before, so no wake-up
// is lost.
//
// It returns with c's own state lock held (schedule looks at c's queue,
// and upgrades to steal), and with KernelLock only if an
// interrupt other than the wake-up SGI needed it (IdleIRQ). A core woken
// to run a thread another core readied does not queue for the kernel
// lock behind every system call in flight: under QEMU's TCG that wait
// was most of a cross-core wake-up's cost (the futex and epoll wake
// figures), and a spinning vCPU takes host time from the lock's holder.
// What the locked way out does besides is safe without it: the thread's
// context is read under c's state lock, which every waker that readies
// a thread onto c holds;
// signal delivery takes the kernel lock if the personality has any to do
// (kernel.OS.Pending), and a signal posted meanwhile sees the thread
// Running here under every core's state lock and sends the SGI
// (linux.signalWake).
func idle(c *CPU) {
	since := c.Heartbeat // when the core last looked: idle time starts about there
	d := threadDeadline(c.ID, c.Heartbeat)
	if c.ID == 0 {
		// The boot core keeps a watchdog tick while idle: if every core
		// sleeps while a thread sits on a queue (a lost wake-up), no busy
		// core's tick would notice.
		d = earliest(d, c.Heartbeat+timer.NanosToTicks(WatchdogNanos))
	}
	c.Idle = true
	c.Stats.Idles++
	trace.RecordLater(c.ID, trace.KindIdle, 0, 0, 0)
	unlockState(c)
	// The timer and the counter are this core's own, and each access
	// takes QEMU's global lock under TCG: made holding a state lock, a
	// wait for it would be a wait for every core spinning on it. Only
	// the profiler reads IdleSince, so only it pays for the read. The
	// alarms are not the state locks' either (ScheduleLocked).
	if ProfPeriod != 0 {
		c.IdleSince = timer.Now()
	}
	// The timer is armed a window early, for the time it takes to wake
	// a halted core, and a core that is already in that window polls
	// (idlepoll_arm64.go).
	d = earliest(d, nextAlarm(c.ID))
	at, poll := idleTimer(c, d)
	if d == 0 {
		StopTimer(c)
	} else {
		setTimer(c, at)
	}
	Release(c)
	if BeforeIdle != nil {
		BeforeIdle(c)
	}
	if poll {
		pollUntil(c, d)
	} else {
		cpu.WFI()
	}
	c.Heartbeat = timer.Now()
	c.IdleTicks += c.Heartbeat - since
	if !poll {
		learnLate(c, at)
	}
	trace.Record(c.ID, trace.KindWake, 0, 0, 0)
	IdleIRQ(c) // takes the state locks where it changes threads
	lockCore(c)
	c.Idle = false
}

// ArmTimer programs c's timer before returning to a thread: the earliest
// deadline owned by c, as Schedule found it (at boot, before the first
// Schedule, there is none), or the end of the running thread's slice
// (renewed if it ran out with nobody waiting), whichever comes first.
func ArmTimer(c *CPU) {
	now := c.Heartbeat
	if c.SliceEnd <= now {
		c.SliceEnd = now + timer.NanosToTicks(SliceNanos)
	}
	d := earliest(earliest(c.deadline, c.SliceEnd), c.affineDue)
	if ProfPeriod != 0 && c.ProfNext != 0 && c.ProfNext < d {
		d = c.ProfNext // the profiler's next sample of this thread
	}
	setTimer(c, d)
}

// ProfPeriod is the profiler's sampling period in counter ticks (0: off);
// the kernel sets it at boot when profiling was asked for.
var ProfPeriod uint64

// setTimer programs c's timer for d (a counter value, never 0: idle
// stops the timer instead) unless it already is; the write itself waits
// for Release. Most kernel entries leave the deadline as it
// was, and writing the timer registers is not free: under QEMU's TCG each
// write takes QEMU's global lock and reschedules a host timer, which
// every vCPU contends for.
func setTimer(c *CPU, d uint64) {
	if c.armed == d {
		return
	}
	c.armed = d
	c.timerDirty = true
}

// StopTimer stops c's timer (the tick handler does this; the way out of
// the kernel re-arms it). Unlike setTimer it writes at once: the timer's
// interrupt is level-triggered and stays asserted until the condition
// ends, so the handler's next acknowledge would take it again.
func StopTimer(c *CPU) {
	if c.armed == 0 {
		return
	}
	timer.Stop()
	c.armed = 0
	c.timerDirty = false
}
