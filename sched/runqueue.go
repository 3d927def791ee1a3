package sched

// runQueue is a FIFO of thread indices linked through Thread.next.
type runQueue struct {
	head, tail int32
	n          int
}

var runQueues [8]runQueue

func (q *runQueue) push(i int32) {
	Threads[i].next = -1
	if q.n == 0 {
		q.head = i
	} else {
		Threads[q.tail].next = i
	}
	q.tail = i
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

// Ready makes a blocked or new thread runnable on core 0's queue.
func Ready(t *Thread) {
	t.State = Runnable
	t.Wait = WaitNone
	t.Deadline = 0
	runQueues[0].push(Index(t))
}

// Wake ends a thread's wait with result in X0.
func Wake(t *Thread, result uint64) {
	if t.State != Blocked {
		return
	}
	t.Ctx.X[0] = result
	Ready(t)
}

// Block marks the current thread as waiting; Schedule will switch away.
// deadline is a counter value or 0; on timeout X0 becomes timeoutResult.
func Block(t *Thread, w WaitKind, deadline uint64, timeoutResult uint64) {
	t.State = Blocked
	t.Wait = w
	t.Deadline = deadline
	t.TimeoutResult = timeoutResult
}

// HasRunnable reports whether a core has a thread waiting for it.
func HasRunnable(c *CPU) bool { return runQueues[c.ID].n > 0 }
