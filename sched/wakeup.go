package sched

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/sched/trace"
)

// A wake-up of a wait queue's waiters (FUTEX_WAKE's WakeAddr, an
// object's Queue.Notify) takes the queue's lock and no more core locks
// than the waiters it wakes need (statelock.go), in up to three steps,
// each starting again from the queue's first waiter, so the order holds:
//
//  1. with the calling core's state lock, the waiters that live on this
//     core and are to run here: a Go program's threads that hand work
//     to each other on one core, futex ping-pong pairs, a pipe's reader
//     and writer on one core;
//  2. then, keeping the queue's lock, with the lock of the core the next
//     waiter lives on alone, while that core is idle and the placement
//     policy puts the waiter back there (stays): the Go runtime waking a
//     parked M whose core has nothing else to do, at the cost of that
//     core's lock and its SGI (Linux wakes a task so, under its run
//     queue's lock: ttwu_queue);
//  3. the rest under every core's lock.
//
// A step stops at the first waiter it may not wake under its locks, and
// says which core's lock alone could wake it (idleHome), or that the
// rest need every core's.

// wakeUp is one wake-up in progress: a FUTEX_WAKE of up to n threads
// waiting with kind w on addr (q nil), or a Notify of q's waiters for
// events. It lives on the waker's kernel stack.
type wakeUp struct {
	q      *Queue
	events uint32
	w      WaitKind
	addr   uintptr
	n      int
	woke   int
}

// run makes the wake-up, l being the queue's lock, and returns how many
// woke.
func (u *wakeUp) run(c *CPU, l *cpu.Spinlock) int {
	lockWith(c, l)
	if u.q != nil {
		atomic.StoreUint32(&u.q.gen, u.q.gen+1)
	}
	next := u.step(c, c.ID)
	if next == nil {
		unlockState(c)
		return u.woke
	}
	home := idleHome(next, c.ID)
	keepWaitLock(c)
	for home >= 0 {
		// next lives on core home, and stays on the queue while its lock
		// is held, unless a section under every core's lock wakes it (a
		// signal, another waker's last step): the step looks again under
		// home's lock (stays).
		lockHome(c, home)
		next = u.step(c, home)
		h := home
		home = idleHome(next, h)
		coreLocks[h].Unlock()
	}
	l.Unlock()
	trace.Stamp(c.ID)
	if next != nil {
		lockAll(c)
		u.step(c, anyCore)
		unlockState(c)
	}
	return u.woke
}

// step wakes what it may under the queue's lock and core's state lock
// (anyCore: every core's lock, and all it finds), and returns the waiter
// it stopped at, or nil.
func (u *wakeUp) step(c *CPU, core int) *Thread {
	var more int
	var next *Thread
	if u.q != nil {
		more, next = u.q.notify(c, u.events, core)
	} else {
		more, next = wakeAddr(c, u.w, u.addr, u.n-u.woke, core)
	}
	u.woke += more
	return next
}

// stays reports whether blocked thread t, found under a wait queue's
// lock and core's state lock alone, may be woken under those: t lives
// on core, and is either still core's current thread or to be placed
// there. For another core than the caller's (c's), that core must be
// idle, which its lock lets it read exactly, and which makes the
// placement policy put t back on it (pickCore's first rule) without
// looking at the cores whose locks are not held.
func stays(t *Thread, c *CPU, core int) bool {
	if int(t.CPU) != core {
		return false
	}
	if onCore(t) {
		return true
	}
	if wakeAffine(t, c) {
		// It goes to the waker's core: a wake-up from another core's
		// lock moves it, which takes every core's (the last step).
		return core == c.ID
	}
	if core != c.ID && !idleFor(core) {
		return false
	}
	return pickCore(t, c.ID) == core
}

// idleHome is the core whose lock alone a wake-up's next step takes,
// for next, the waiter its step under core held's lock stopped at: the
// core next lives on, if that is another and it looks idle or still
// runs next. Read without that core's lock, it is a guess; stays
// decides under the lock. -1: no such step (next is nil, or the rest go
// under every core's lock).
func idleHome(next *Thread, held int) int {
	if next == nil {
		return -1
	}
	h := int(next.CPU)
	if h == held || h < 0 || h >= len(CPUs) {
		return -1
	}
	if o := &CPUs[h]; o.Idle || o.Current < 0 || o.Current == Index(next) {
		return h
	}
	return -1
}
