package sched

import (
	"sync/atomic"
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
)

// Wait queues: the threads blocked on one object (a pipe, an eventfd, an
// epoll instance, the console), each with the events it waits for. This
// is the one way a file operation waits (the kernel's vfs package builds
// on it): the object answered "would block", the caller blocks here, and
// when the object's state changes it notifies its queue, which makes the
// waiters that care run their system call again (Retry). The call then
// finds the object ready, or blocks once more. Nothing is completed on a
// waiter's behalf by the waker, so a blocked call always finishes on its
// own thread, in its own context, through the same code as a call that
// never blocked (Linux's wait_event loop; gVisor's waiter.Queue).
//
// A queue is a singly linked FIFO through Thread.qnext; a thread is on at
// most one queue (Thread.queue), and leaves it when it wakes for any
// reason: a notify, its deadline, or a signal (Ready unlinks it).
//
// Locking: a queue's links are the scheduler's state, under the queue's
// own lock (queueLock) with a core's state lock, or under every core's
// (statelock.go; every function here takes what it needs). What a
// waiter waits for is its object's, and the waiter does not hold the
// object's lock when it blocks: a pipe written without KernelLock may
// notify between the waiter's "would block" and its BlockOn. So a queue
// counts its notifications (Gen, bumped under those locks, and a waiter
// compares it under them too), the waiter reads the count
// before it tries the object, and BlockOnGen blocks only if no Notify
// came since; otherwise the caller tries again. This is the futex
// protocol (compare under the lock that wakers take) with the count as
// the word.

// Queue is the threads waiting on one object. Its zero value is empty.
type Queue struct {
	head, tail int32  // 1 + thread index; 0: none
	gen        uint32 // Notify calls so far (Gen)
}

// Gen returns how many times q was notified (wrapping): read before a
// try of the object, it lets BlockOnGen tell a Notify that came after.
// Epoll's EPOLLET reads it too: an object reports again only once it
// changed.
func (q *Queue) Gen() uint32 { return atomic.LoadUint32(&q.gen) }

// Empty reports whether nobody waits.
func (q *Queue) Empty() bool { return q.head == 0 }

// BlockOn blocks t on q for events (an object-defined mask, EPOLL* bits
// for files), with a deadline (a counter value, 0 for none) after which
// it wakes with X0 = timeoutResult.
func BlockOn(t *Thread, q *Queue, kind WaitKind, events uint32, deadline, timeoutResult uint64) {
	LockState()
	blockOn(t, q, kind, events, deadline, timeoutResult)
	UnlockState()
}

// BlockOnGen is BlockOn unless q was notified since its Gen was gen:
// then t stays running and the result is false, and the caller tries
// its object again (see Locking above).
func BlockOnGen(t *Thread, q *Queue, kind WaitKind, events uint32, deadline, timeoutResult uint64, gen uint32) bool {
	LockState()
	ok := BlockOnGenLocked(t, q, kind, events, deadline, timeoutResult, gen)
	UnlockState()
	return ok
}

// BlockOnGenLocked is BlockOnGen for a caller that holds the state
// locks: every core's, or q's and its own core's (LockQueueToBlock); a
// wait without the kernel lock checks for signals in the same section.
// Once t is on q, q's lock is let go; the core's is kept for Schedule.
func BlockOnGenLocked(t *Thread, q *Queue, kind WaitKind, events uint32, deadline, timeoutResult uint64, gen uint32) bool {
	if q.gen != gen {
		return false
	}
	blockOn(t, q, kind, events, deadline, timeoutResult)
	dropWaitLock(self())
	return true
}

// queueLock is q's own lock: the wait-queue lock (rank RankWaitQueue)
// that q's address hashes to, of those the futex queues use. A wait queue lives in an object made at
// run time, which could not give a lock of its own its rank without
// code to run; a few queues share each lock, and a core never holds two
// of them.
func queueLock(q *Queue) *cpu.Spinlock {
	return &addrLocks[addrHash(uintptr(unsafe.Pointer(q)))]
}

// blockOn is BlockOn with the state locks held: every core's, or for a
// futex queue its lock and t's core's (statelock.go).
func blockOn(t *Thread, q *Queue, kind WaitKind, events uint32, deadline, timeoutResult uint64) {
	block(t, kind, deadline, timeoutResult)
	t.WaitEvents = events
	t.queue = q
	i := Index(t) + 1
	t.qnext = 0
	if q.tail == 0 {
		q.head = i
	} else {
		Threads[q.tail-1].qnext = i
	}
	q.tail = i
}

// unqueue takes t off the queue it waits on, if any.
func unqueue(t *Thread) {
	q := t.queue
	if q == nil {
		return
	}
	t.queue = nil
	me := Index(t) + 1
	var prev int32
	for i := q.head; i != 0; prev, i = i, Threads[i-1].qnext {
		if i != me {
			continue
		}
		next := Threads[i-1].qnext
		if prev == 0 {
			q.head = next
		} else {
			Threads[prev-1].qnext = next
		}
		if q.tail == me {
			q.tail = prev
		}
		break
	}
	t.qnext = 0
}

// Notify makes every thread on q that waits for one of events run its
// system call again, oldest first, and returns how many it woke. It
// takes q's lock and the core locks its waiters need, in steps, as
// FUTEX_WAKE does (wakeup.go): a pipe's reader and writer on one core
// hand the pipe back and forth without touching another core's lock.
func (q *Queue) Notify(events uint32) int {
	u := wakeUp{q: q, events: events}
	return u.run(self(), queueLock(q))
}

// NotifySync is Notify for a waker that will most likely block soon on
// the answer: a pipe's writer waking its reader (and the reader its
// writer). Linux marks these wake-ups synchronous (WF_SYNC:
// pipe_write's wake_up_interruptible_sync_poll, fs/pipe.c), and its
// placement then keeps the woken task on the waker's core when the
// waker is all that core runs (wake_affine_idle, kernel/sched/fair.c).
// Here the same rule is wakeAffine (policy.go): two processes that
// hand a pipe back and forth end up on one core, each switch a local
// one, instead of paying a cross-core wake-up (an SGI, a WFI exit) at
// every byte.
func (q *Queue) NotifySync(events uint32) int {
	u := wakeUp{q: q, events: events}
	c := self()
	c.wakeSync = true
	n := u.run(c, queueLock(q))
	c.wakeSync = false
	return n
}

// notify makes q's waiters for events run their call again, oldest
// first, and returns how many. Under every core's state lock (core
// anyCore) it takes any of them; under q's lock and one core's state
// lock alone, only while they live on that core and stay there (stays),
// and returns the first it may not take so, next (nil when it is done).
// Each step starts from q's first waiter: those an earlier step took
// have left q, and one that came since was notified after its Gen read
// anyway, so at worst it tries its object once more.
func (q *Queue) notify(c *CPU, events uint32, core int) (woke int, next *Thread) {
	i := q.head
	for i != 0 {
		t := &Threads[i-1]
		i = t.qnext // t leaves q below; i already points past it
		if t.WaitEvents&events == 0 {
			continue
		}
		if core != anyCore && t.State == Blocked && !stays(t, c, core) {
			return woke, t
		}
		retryTo(t, core)
		woke++
	}
	return woke, nil
}

// Retry ends t's wait by making it run its system call again: the PC
// goes back to the SVC and X0 back to the call's first argument (the
// Linux ABI's syscall restart, as after a signal with SA_RESTART). The
// call sees Retried set, so it keeps the deadline it had rather than
// starting a new one, and Progress, the bytes it had already moved.
func Retry(t *Thread) {
	LockState()
	retryTo(t, anyCore)
	UnlockState()
}

// retryTo is Retry with the state locks held, placing t on core: every
// core's, with core anyCore (t goes where the placement policy puts
// it), or t's wait queue's and the state lock of core, where t lives and
// is to stay (stays). A thread that blocked without the
// kernel lock, or whose core has not yet switched away from it while a
// waker without the kernel lock (a pipe written under its own lock)
// notifies, still has its context live in its core's trap frame: it is
// woken where it is, and Schedule rewinds that frame (wokeRetry).
func retryTo(t *Thread, core int) {
	if t.State != Blocked {
		return
	}
	atomic.AddUint64(&Retries, 1) // counted under different cores' locks
	t.RetryDeadline = t.Deadline
	if onCore(t) {
		wakeOnCore(t, 0)
		t.wokeRetry = true
		return
	}
	t.Ctx.X[0] = t.OrigX0
	t.Ctx.PC -= SVCSize
	t.Retried = true
	readyNext(t, core)
}

// RetryOnTimeout, as a wait's timeoutResult, makes its timeout run the
// system call again (as a Notify does) instead of ending it with a
// value: a call that must write its answer when its time runs out
// (ppoll's revents, pselect6's sets, the time left) finds its deadline
// passed and answers then. No system call returns this value.
const RetryOnTimeout = 1<<63 | 0x5254

// SVCSize is the size of the SVC instruction that entered the kernel
// (A64: every instruction is 4 bytes).
const SVCSize = 4

// Retries counts the waits that ended in a Retry.
var Retries uint64
