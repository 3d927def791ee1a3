package sched

// Waiting on an address: the mechanism behind futex. A thread blocks with
// a kind and an address; a waker wakes up to n of the threads blocked
// with that kind on that address, oldest first (Linux wakes futex waiters
// of equal priority in FIFO order).
//
// Waiters sit on a Queue chosen by a hash of the address (like Linux's
// futex_queues), in the order they came, so a wake-up looks at the few
// threads that hashed alike instead of the whole thread table.
//
// No wake-up is lost because the waiter compares the futex word with the
// value it expects while it holds its queue's lock (and its core's state
// lock, or every core's), and blocks before letting go
// (LockAddrToBlockAt or LockState, the read, WaitOnLocked, UnlockState),
// and the waker takes the queue's lock (or every core's) after it
// changed the word; a queue's links are only ever changed under its lock
// and a core's, or under every core's (statelock.go), so the two meet.
// The waker therefore either runs before the compare, and the waiter
// sees the new value and does not sleep, or after the waiter is queued,
// and finds it.
// waitaddr_test.go checks this with the Go runtime's own futex mutex
// protocol on real host threads, wakers holding no other lock.
//
// A waker needs no kernel lock (FUTEX_WAKE takes only the state locks), so it
// may find a waiter whose core has not yet left the system call that
// blocked it: its registers are still live in that core's trap frame,
// not yet saved in the thread, and no other core may run it. Such a
// waiter is woken where it is (wakeOnCore): it becomes Running again,
// off its queue, and Schedule on its core finds it so, gives it X0 = 0
// and goes on running it, as Linux's try_to_wake_up only marks a task
// that is still on its CPU TASK_RUNNING.

// addrQueueBits sets the number of futex queues (64).
const addrQueueBits = 6

var addrQueues [1 << addrQueueBits]Queue

// addrHash is the number of addr's queue: a multiplicative (Fibonacci)
// hash, since futex words are aligned and often a page apart.
func addrHash(addr uintptr) uint64 {
	return (uint64(addr) * 0x9E3779B97F4A7C15) >> (64 - addrQueueBits)
}

// addrQueue is the queue of addr's waiters.
func addrQueue(addr uintptr) *Queue { return &addrQueues[addrHash(addr)] }

// A futex is named by its address in an address space: two processes
// running the same program wait on the same addresses in different
// memory, and a wake-up in one must not take the other's waiter (Linux
// keys a private futex by mm and address: get_futex_key). The key puts
// the space's slot (Thread.Space) above the 48 bits of a user address;
// the waker's space is that of the thread its core works for.
const addrSpaceShift = 48

func addrKey(space int32, addr uintptr) uintptr {
	return addr&(1<<addrSpaceShift-1) | uintptr(space)<<addrSpaceShift
}

// callerKey is addr's key for the thread the calling core works for.
func callerKey(addr uintptr) uintptr {
	c := self()
	if c.Current < 0 {
		return addrKey(0, addr)
	}
	return addrKey(Threads[c.Current].Space, addr)
}

// WaitUserAddr is the user address a futex waiter waits on (WaitAddr
// less its space), for reports.
func (t *Thread) WaitUserAddr() uintptr { return t.WaitAddr & (1<<addrSpaceShift - 1) }

// WaitOn blocks t on addr until WakeAddr or the deadline (a counter value,
// 0 for none; on timeout X0 becomes timeoutResult).
func WaitOn(t *Thread, w WaitKind, addr uintptr, deadline, timeoutResult uint64) {
	LockState()
	WaitOnLocked(t, w, addr, deadline, timeoutResult)
	UnlockState()
}

// WaitOnLocked is WaitOn for a caller that holds the state locks, as
// futex wait must across its compare and its block: every core's
// (LockState), or addr's queue's and its own core's (LockAddrToBlockAt);
// the queue's lock is let go once t is on it, the core's is kept for
// Schedule (ScheduleLocked).
func WaitOnLocked(t *Thread, w WaitKind, addr uintptr, deadline, timeoutResult uint64) {
	addr = addrKey(t.Space, addr)
	blockOn(t, addrQueue(addr), w, 0, deadline, timeoutResult)
	t.WaitAddr = addr
	dropWaitLock(self())
}

// WakeAddr wakes up to n threads blocked with kind w on addr, oldest
// first, with X0 = 0, and returns how many woke. The caller holds no
// lock (FUTEX_WAKE's lock-free path) or KernelLock; a waiter still on its
// core is woken where it is (it can only be met without KernelLock: its
// core holds KernelLock until Schedule has saved it). It takes addr's
// queue's lock and the core locks its waiters need, in steps
// (wakeup.go).
func WakeAddr(w WaitKind, addr uintptr, n int) int {
	addr = callerKey(addr)
	u := wakeUp{w: w, addr: addr, n: n}
	return u.run(self(), &addrLocks[addrHash(addr)])
}

// wakeAddr wakes up to n of addr's waiters, oldest first, and returns
// how many woke. Under every core's state lock (core anyCore) it wakes
// any of them (WakeLocked). Under addr's queue's lock and the state
// lock of one core alone, it wakes them while they live on that core
// and stay there (stays), and returns the first it may not wake so,
// next (nil when it is done).
//
// What it reads of a waiter on another core before it stops is stable
// under the queue's lock: a thread on the queue leaves it, and its wait,
// only under that lock or every core's, and a blocked thread's CPU does
// not change while it waits.
func wakeAddr(c *CPU, w WaitKind, addr uintptr, n int, core int) (woke int, next *Thread) {
	q := addrQueue(addr)
	for i := q.head; i != 0 && woke < n; {
		t := &Threads[i-1]
		i = t.qnext // t leaves the queue below; i already points past it
		if t.Wait != w || t.WaitAddr != addr || t.State != Blocked {
			continue
		}
		if core != anyCore && !stays(t, c, core) {
			return woke, t
		}
		wakeTo(t, 0, core)
		woke++
	}
	return woke, nil
}

// onCore reports whether t is still its core's current thread: its
// context is live in that core's trap frame, not yet in t.Ctx.
func onCore(t *Thread) bool {
	return t.CPU >= 0 && int(t.CPU) < len(CPUs) && CPUs[t.CPU].Current == Index(t)
}

// wakeOnCore ends the wait of t, which its core has not switched away
// from yet: t goes on running there, and Schedule gives it X0 = result
// (wokeOnCore), or for a Retry rewinds it to the SVC (wokeRetry).
// Nothing else can have saved or queued it meanwhile: only its own
// core's Schedule switches away from it, under that core's state lock,
// which the caller holds.
func wakeOnCore(t *Thread, result uint64) {
	CancelBlockLocked(t) // as if it had never blocked, but the system
	t.wokeOnCore = true  // call path may have seen it blocked and left X0
	t.wokeResult = result
	self().Stats.EarlyWakes++
}
