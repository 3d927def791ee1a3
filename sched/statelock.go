package sched

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/sched/trace"
)

// The scheduler's state locks: one per core, as Linux has a lock per
// run queue (rq->lock), where there was one lock for every core's
// state. A Go program on four cores parks and wakes its Ms by futex
// thousands of times a second, mostly between threads that live on the
// same core; under one lock each such switch queued behind every other
// core's.
//
// What core i's lock guards: its run queue, CPUs[i].Current and Idle, its
// deadline cache (deadline.go), and the scheduler's fields (State, Wait,
// Ctx while not running, the woke* fields, Deadline) of the threads that
// live on core i. A thread lives on the core its CPU field names: the
// core whose queue holds it (enqueue sets CPU), that runs it, or that it
// blocked on. CPU changes only under the locks of both the core a
// thread leaves and the one it goes to (a wake-up placing it on another
// core, a steal), so holding core i's lock and reading CPU == i, the
// thread is i's until the lock is let go (Linux's task_rq_lock rule).
//
// A wait queue's links (Thread.queue and qnext, the Queue's ends, its
// Gen) are guarded by that queue's lock together with any core's lock,
// or by every core's. A futex queue's lock is addrLocks[i]; an object's
// queue (a pipe's, an epoll instance's) uses the one its address hashes
// to (queueLock).
//
// Three ways to hold them:
//
//   - LockState takes every core's lock in rank order (core 0 first):
//     whatever reaches across cores (a wake-up placing a thread on
//     another core, a steal, a signal, an object's Notify, a timeout)
//     holds that, and may touch all of the above, as under the one lock
//     there was. What comments here and elsewhere call StateLock.
//   - A core's own lock alone: Schedule switching between threads of its
//     own queue, and, with a wait queue's lock taken first, a wait
//     (LockAddrToBlockAt, LockQueueToBlock) or a wake-up of waiters that
//     live on the waker's core and stay there (WakeAddr, Queue.Notify).
//     What such a section finds it needs beyond its core (an empty
//     queue to steal for, a waiter on another core) it leaves to the
//     others: Schedule upgrades in place to LockState (upgrade, where
//     nothing is half done), a wake-up goes on to the next step.
//   - A wait queue's lock and one other core's: a wake-up's next step,
//     for waiters that live on that core and go back to it because it
//     is idle, the Go runtime's usual cross-core wake-up of a parked M
//     (lockHome); what it cannot wake so, it leaves to LockState.
//
// A section under LockState excludes every section under a core's lock,
// so every rule written for the one lock (the signal Dekker pairs: a
// sender posts under SignalLock and then decides under StateLock, a
// waiter checks for signals in the section it blocks in) holds as it
// did: the waiter's section holds its core's lock, and the sender's
// holds every core's.

// coreLocks[i] is core i's state lock (rank RankCore + i).
var coreLocks [cpu.MaxCPUs]cpu.Spinlock

// addrLocks[i] is futex queue i's lock (rank RankWaitQueue), and the
// lock of each object's wait queue whose address hashes to i
// (queueLock).
var addrLocks [len(addrQueues)]cpu.Spinlock

// stateCores is how many core locks LockState takes: one past the
// highest core InitCPU set up. Every core is set up before any but the
// boot core takes a state lock (they wait for the app's start), so it
// never changes while one is held.
var stateCores = 1

// The locks a core holds of these (CPU.held).
const (
	heldNone = iota
	heldCore // its own core's lock
	heldAll  // every core's (LockState)
)

// initLocks names and ranks the state locks. The boot core's InitCPU
// calls it before any other core runs (a kernel package has no init
// functions, and sixty-four literal entries would say less).
func initLocks() {
	for i := range coreLocks {
		coreLocks[i].Name = "cores"
		coreLocks[i].Rank = uint8(RankCore + i)
	}
	for i := range addrLocks {
		addrLocks[i].Name = "waitq"
		addrLocks[i].Rank = RankWaitQueue
	}
}

// LockState takes every core's state lock for the calling core, in
// rank order.
func LockState() { lockAll(self()) }

// UnlockState lets go of the state locks the calling core holds, as
// LockState, LockAddrToBlockAt or LockQueueToBlock took them (and the
// wait queue's lock, if the section still holds it). The events the
// trace recorded in the section get their time after it
// (trace.RecordLater).
func UnlockState() { unlockState(self()) }

func lockAll(c *CPU) {
	for i := range coreLocks[:stateCores] {
		coreLocks[i].Lock(c.ID)
	}
	c.held = heldAll
	c.Stats.StateAll++
}

// lockCore takes c's own state lock.
func lockCore(c *CPU) {
	coreLocks[c.ID].Lock(c.ID)
	c.held = heldCore
	c.Stats.StateOwn++
}

// lockWith takes l, a wait queue's lock (addrLocks: a futex queue's, or
// an object queue's, queueLock),
// and then c's own state lock: what a wait or wake-up that stays on c
// holds (WakeAddr, Notify, LockQueueToBlock).
func lockWith(c *CPU, l *cpu.Spinlock) {
	l.Lock(c.ID)
	lockCore(c)
	c.waitLock = l
}

// keepWaitLock lets go of c's own state lock and keeps the wait queue's
// lock the section took with it (lockWith): a wake-up that goes on to
// waiters living on other cores (lockHome). What c holds is then only
// the caller's to know (it took the queue's lock, and lets go of it):
// c.held and c.waitLock say none.
func keepWaitLock(c *CPU) {
	c.held, c.waitLock = heldNone, nil
	coreLocks[c.ID].Unlock()
}

// lockHome takes core h's state lock for c, which holds a wait queue's
// lock (keepWaitLock) and no core's: a wake-up of waiters that live on
// h and go back to it, idle (WakeAddr, Notify). The pair guards all
// such a wake-up touches: the queue's links (its lock with a core's),
// the waiter (it lives on h), h's run queue and deadline cache, and
// nothing of c's but c's own counters and pending kicks. Linux wakes a
// task so under its run queue's lock alone (ttwu_queue). Counted
// atomically: a host test plays every core from several threads.
func lockHome(c *CPU, h int) {
	coreLocks[h].Lock(c.ID)
	atomic.AddUint64(&c.Stats.StateHome, 1)
}

// upgrade turns c's own lock into every core's. It lets go first (the
// rank order has core 0 first), so what other cores did meanwhile must
// be looked at again: the callers upgrade only where they have nothing
// half done, and look again.
func upgrade(c *CPU) {
	c.held = heldNone
	coreLocks[c.ID].Unlock()
	lockAll(c)
}

func unlockState(c *CPU) {
	held, wl := c.held, c.waitLock
	c.held, c.waitLock = heldNone, nil
	switch held {
	case heldAll:
		for i := range coreLocks[:stateCores] {
			coreLocks[i].Unlock()
		}
	case heldCore:
		coreLocks[c.ID].Unlock()
	}
	if wl != nil {
		wl.Unlock()
	}
	trace.Stamp(c.ID)
}

// dropWaitLock lets go of the wait queue's lock a section took with its
// core's (the thread is on the queue; the core's lock covers the rest).
func dropWaitLock(c *CPU) {
	if l := c.waitLock; l != nil {
		c.waitLock = nil
		l.Unlock()
	}
}

// StateLockCounts returns the contention of the core locks and of the
// wait queues' locks, each kind summed (for the stats).
func StateLockCounts() (cores, waitq cpu.LockCounts) {
	for i := range coreLocks {
		cores = cores.Plus(coreLocks[i].LockCounts)
	}
	for i := range addrLocks {
		waitq = waitq.Plus(addrLocks[i].LockCounts)
	}
	return cores, waitq
}

// ResetStateLockCounts zeroes those counts (the kernel does when the app
// starts, as for its other locks).
func ResetStateLockCounts() {
	for i := range coreLocks {
		coreLocks[i].ResetCounts()
	}
	for i := range addrLocks {
		addrLocks[i].ResetCounts()
	}
}
