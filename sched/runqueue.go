package sched

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/sched/trace"
)

// runQueue is a FIFO of thread indices linked through Thread.next.
type runQueue struct {
	head, tail int32
	n          int
}

// runQueues holds each core's runnable threads (not the running one).
var runQueues [cpu.MaxCPUs]runQueue

// push appends thread i, made runnable at counter value now.
func (q *runQueue) push(i int32, now uint64) {
	Threads[i].next = -1
	Threads[i].readyAt = now
	Threads[i].buddy = false
	if q.n == 0 {
		q.head = i
	} else {
		Threads[q.tail].next = i
	}
	q.tail = i
	q.n++
}

// pushFront puts thread i, made runnable at counter value now, at the
// head (readyNext).
func (q *runQueue) pushFront(i int32, now uint64) {
	Threads[i].readyAt = now
	Threads[i].buddy = true
	if q.n == 0 {
		Threads[i].next = -1
		q.tail = i
	} else {
		Threads[i].next = q.head
	}
	q.head = i
	q.n++
}

func (q *runQueue) pop() int32 {
	if q.n == 0 {
		return -1
	}
	i := q.head
	q.head = Threads[i].next
	q.n--
	return i
}

// take removes and returns the first thread for which ok is true, or -1.
func (q *runQueue) take(ok func(t *Thread) bool) int32 {
	prev := int32(-1)
	for i, k := q.head, 0; k < q.n; i, k = Threads[i].next, k+1 {
		if !ok(&Threads[i]) {
			prev = i
			continue
		}
		if prev < 0 {
			q.head = Threads[i].next
		} else {
			Threads[prev].next = Threads[i].next
		}
		if q.tail == i {
			q.tail = prev
		}
		q.n--
		return i
	}
	return -1
}

// Ready makes a blocked or new thread runnable on the core the placement
// policy (policy.go) picks, and wakes that core if it sleeps.
func Ready(t *Thread) {
	LockState()
	ready(t)
	UnlockState()
}

// ready is Ready with every core's state lock held (LockState).
func ready(t *Thread) { readyOn(t, anyCore) }

// anyCore, as a core to place a thread on, leaves the choice to the
// placement policy (pickCore).
const anyCore = -1

// readyOn makes t runnable on core (anyCore: where the policy puts it):
// with every core's state lock held, or with core's own when t lives
// there (statelock.go).
func readyOn(t *Thread, core int) { enqueue(t, prepareReady(t, core)) }

// prepareReady is readyOn up to the queue: t runnable, the core it goes
// to.
func prepareReady(t *Thread, core int) int {
	unqueue(t)
	dropDeadline(t)
	t.State = Runnable
	t.Wait = WaitNone
	t.Deadline = 0
	if core == anyCore {
		core = pickCore(t, self().ID)
	}
	return core
}

// nextBuddyNanos bounds how long the thread at the head of a queue waits
// while threads readyNext puts ahead of it run (1 ms).
const nextBuddyNanos = 1_000_000

// readyNext is readyOn for a thread that a change to a file woke
// (retryTo): placed on the waker's own core, it goes to the head of the
// queue, to run next, as Linux's CFS makes a woken task its queue's
// "next buddy" (kernel/sched/fair.c, check_preempt_wakeup). The waker
// usually blocks at once on its side of the exchange (a pipe's reader
// waiting for the answer), and the thread it woke then runs before the
// threads that were waiting for the core already. Two Go programs
// exchanging a byte over pipes on one core had each program's sysmon
// and a spare M queued between them: sysmon saw the reader still in its
// read, took its P away and woke another M for it, and each round trip
// ran four threads more than the two it needs. At most one thread is
// ahead of the queue's order at a time, and not once the head has
// waited nextBuddyNanos, so the others wait a bounded time.
func readyNext(t *Thread, core int) {
	me := self()
	if core == anyCore && wakeAffine(t, me) {
		core = me.ID
	}
	core = prepareReady(t, core)
	q := &runQueues[core]
	if core != me.ID || q.n > 0 && (Threads[q.head].buddy || me.Heartbeat-Threads[q.head].readyAt > buddyTicks()) {
		enqueue(t, core)
		return
	}
	t.CPU = int32(core)
	q.pushFront(Index(t), me.Heartbeat)
	if me.Current >= 0 {
		// Ahead of a running thread: it runs when that one blocks, or
		// elsewhere once it has waited affineWaitNanos (spreadBuddy;
		// ArmTimer sets the timer for it).
		me.affineDue = me.Heartbeat + affineTicks()
	}
}

// enqueue puts t on core's queue. An idle core gets an SGI so it leaves
// WFI; a busy core whose queue was empty gets one too, so that it arms
// its timer for the end of the running thread's slice. A core between
// the two (in Schedule, its thread switched out, not yet idle) gets
// none: it looks at its queue under its lock before it sets Idle, so it
// finds t, and an SGI would only bring it back into the kernel once it
// runs t. (Only a FUTEX_WAKE, which holds no kernel lock, meets a core
// there.)
//
// t then lives on core (its CPU; statelock.go), which is the core whose
// lock guards it from here on: the caller holds that lock, and that of
// the core t lived on (both are the caller's own, or it holds every
// core's).
func enqueue(t *Thread, core int) {
	q := &runQueues[core]
	me := self()
	t.CPU = int32(core)
	q.push(Index(t), me.Heartbeat)
	if o := &CPUs[core]; core != me.ID && (o.Idle || q.n == 1 && o.Current >= 0) {
		me.Stats.SGIsOut++
		trace.RecordLater(me.ID, trace.KindSGI, trace.SGIWakeup, 0, uint32(core))
		kick(core)
	}
}

// Kick makes core enter the kernel soon (an SGI), e.g. so that it delivers
// a signal just made pending for the thread it runs.
func Kick(core int) {
	if me := self(); core != me.ID && core >= 0 && core < len(CPUs) {
		me.Stats.SGIsOut++
		trace.Record(me.ID, trace.KindSGI, trace.SGIKick, 0, uint32(core))
		kick(core)
	}
}

// KickCores is Kick for each core whose bit is set in mask (a space's
// holders: kernel/mm).
func KickCores(mask uint32) {
	for core := 0; mask != 0; core, mask = core+1, mask>>1 {
		if mask&1 != 0 {
			Kick(core)
		}
	}
}

// Wake ends a thread's wait with result in X0 (a thread no longer
// blocked is left alone: some other wake-up came first).
func Wake(t *Thread, result uint64) {
	LockState()
	WakeLocked(t, result)
	UnlockState()
}

// WakeLocked is Wake for a caller that holds StateLock. Two wakers hold
// no kernel lock, a FUTEX_WAKE and a timer tick's expired deadlines
// (ExpireThreads), so t's core may not have switched away from it yet:
// its context is still live in that core's trap frame, and t.Ctx is
// stale. Then t is woken where it is (wakeOnCore, as Linux's
// try_to_wake_up does for a task still on its CPU), never queued where
// another core could run the stale context.
func WakeLocked(t *Thread, result uint64) { wakeTo(t, result, anyCore) }

// wakeTo is WakeLocked placing t on core (anyCore: where the policy puts
// it), which a caller holding only t's core's state lock passes as that
// core (WakeAddr).
func wakeTo(t *Thread, result uint64, core int) {
	if t.State != Blocked {
		return
	}
	if onCore(t) {
		wakeOnCore(t, result)
		return
	}
	t.Ctx.X[0] = result
	readyOn(t, core)
}

// Block marks the current thread as waiting; Schedule will switch away.
// deadline is a counter value or 0; on timeout X0 becomes timeoutResult.
func Block(t *Thread, w WaitKind, deadline uint64, timeoutResult uint64) {
	LockState()
	block(t, w, deadline, timeoutResult)
	UnlockState()
}

// SleepLocked blocks t until deadline alone (WaitSleep, X0 = 0 then) for
// a caller that holds t's core's state lock (LockToSleepAt) or every
// core's: a thread on no wait queue touches nothing but its core's
// state (its deadline cache).
func SleepLocked(t *Thread, deadline uint64) { block(t, WaitSleep, deadline, 0) }

// block is Block with StateLock held: every core's, or t's core's where
// it touches nothing else (a futex or queue wait adds the queue's lock).
func block(t *Thread, w WaitKind, deadline uint64, timeoutResult uint64) {
	t.BlockedCall = true
	t.State = Blocked
	t.Wait = w
	t.Deadline = deadline
	t.TimeoutResult = timeoutResult
	noteDeadline(t)
}

// CancelBlock undoes the Block of the system call t is still running
// (a signal was already pending): t goes on running, off any queue.
func CancelBlock(t *Thread) {
	LockState()
	CancelBlockLocked(t)
	UnlockState()
}

// CancelBlockLocked is CancelBlock for a caller that holds StateLock
// (LockState), or t's core's state lock (a wake-up on t's own core).
func CancelBlockLocked(t *Thread) {
	unqueue(t)
	dropDeadline(t)
	t.State = Running
	t.Wait = WaitNone
	t.Deadline = 0
}

// HasRunnable reports whether a core has a thread waiting for it. Read
// without c's state lock (the unlocked sched_yield asks) it may be a moment
// out of date; a thread placed there meanwhile comes with an SGI.
func HasRunnable(c *CPU) bool { return runQueues[c.ID].n > 0 }
