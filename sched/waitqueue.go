package sched

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
// Locking: a queue's links are the scheduler's state, under StateLock
// (every function here takes it); what a waiter waits for is its object's,
// under the object's lock (KernelLock today), which the waker holds while
// it notifies (order: object, then StateLock).

// Queue is the threads waiting on one object. Its zero value is empty.
type Queue struct {
	head, tail int32 // 1 + thread index; 0: none
}

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

// blockOn is BlockOn with StateLock held.
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
// system call again, oldest first, and returns how many it woke.
func (q *Queue) Notify(events uint32) int {
	LockState()
	woke := 0
	for i := q.head; i != 0; {
		t := &Threads[i-1]
		i = t.qnext
		if t.WaitEvents&events != 0 {
			retry(t)
			woke++
		}
	}
	UnlockState()
	return woke
}

// Retry ends t's wait by making it run its system call again: the PC
// goes back to the SVC and X0 back to the call's first argument (the
// Linux ABI's syscall restart, as after a signal with SA_RESTART). The
// call sees Retried set, so it keeps the deadline it had rather than
// starting a new one, and Progress, the bytes it had already moved.
func Retry(t *Thread) {
	LockState()
	retry(t)
	UnlockState()
}

// retry is Retry with StateLock held.
func retry(t *Thread) {
	if t.State != Blocked {
		return
	}
	t.Ctx.X[0] = t.OrigX0
	t.Ctx.PC -= SVCSize
	t.Retried = true
	t.RetryDeadline = t.Deadline
	Retries++
	ready(t)
}

// SVCSize is the size of the SVC instruction that entered the kernel
// (A64: every instruction is 4 bytes).
const SVCSize = 4

// Retries counts the waits that ended in a Retry.
var Retries uint64
