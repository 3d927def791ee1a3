package sched

// The scheduling policy, all in this file so it can be read and changed
// in one place. It is the kernel-side mirror of the Go scheduler's: the Go
// runtime keeps one P per core and parks or wakes Ms with futexes; the
// kernel's job is to put every runnable M on a core at once when it can.
//
//   - Placement (pickCore): a thread made runnable goes to the core it last
//     ran on if that core is idle (its caches are warm), else to any idle
//     core, else to the least loaded core (queue length, plus one for a
//     running thread), ties going to its last core, then to the waker's.
//     Only cores in the thread's affinity mask are considered.
//   - Waking: placing a thread on an idle core sends that core an SGI; an
//     idle core sleeps in WFI and never spins (runqueue.go, enqueue).
//   - Time slices: a core runs the head of its queue for SliceNanos; when
//     the slice ends and others wait there, the thread goes to the back.
//   - Next buddy: a thread a file woke (a pipe's reader) placed on the
//     waker's own core goes to the head of the queue, not the back, so it
//     answers before the threads already waiting (readyNext: one at a
//     time, and not once the head has waited a millisecond).
//   - Synchronous wake-ups (wakeAffine): a thread a pipe's writer or
//     reader woke (NotifySync) goes to the waker's core, at the head of
//     its queue, when the waker is all that core runs, as Linux does
//     for WF_SYNC wake-ups (wake_affine_idle): the waker is about to
//     block on the answer, and the woken thread then runs there with a
//     local switch. If the waker runs on instead, the woken thread is
//     moved to an idle core once it has waited affineWaitNanos
//     (spreadBuddy), so no core idles long while another's queue holds
//     a thread.
//   - Stealing (steal): a core whose queue is empty takes the oldest
//     waiting thread it may run from another core's queue before it goes
//     idle, like an idle P stealing goroutines from another P.
//   - Migration: a running thread whose affinity no longer includes its
//     core is placed afresh at its core's next kernel entry.

// allowedOn reports whether t may run on core i.
func allowedOn(t *Thread, i int) bool {
	return CPUs[i].Online && (t.Affinity == 0 || t.Affinity&(1<<uint(i)) != 0)
}

// idleFor reports whether core i has nothing to do: asleep in WFI, or
// looking for work (no current thread), with an empty queue.
func idleFor(i int) bool {
	return (CPUs[i].Idle || CPUs[i].Current < 0) && runQueues[i].n == 0
}

// load is how many threads core i has to run.
func load(i int) int {
	n := runQueues[i].n
	if CPUs[i].Current >= 0 {
		n++
	}
	return n
}

// pickCore chooses the core for runnable thread t; waker is the calling
// core. A thread no online core may run falls back to the waker's core
// (affinity is checked against online cores when it is set, so this only
// guards the boot core before Online is set).
func pickCore(t *Thread, waker int) int {
	// lab:placement begin
	prev := int(t.CPU)
	if prev >= 0 && allowedOn(t, prev) && idleFor(prev) {
		return prev
	}
	best, bestLoad := -1, 0
	for i := range CPUs {
		if !allowedOn(t, i) {
			continue
		}
		if idleFor(i) {
			return i
		}
		l := load(i)
		if best < 0 || l < bestLoad || l == bestLoad && (i == prev || i == waker && best != prev) {
			best, bestLoad = i, l
		}
	}
	if best < 0 {
		return waker
	}
	return best
	// lab:placement stub
	// // TODO(lab placement): choose the core as the policy above says
	// // (allowedOn, idleFor, load help).
	// return waker
	// lab:placement end
}

// steal takes, for core c, the oldest waiting thread allowed on it from
// another core's queue, scanning from the next core round, or returns -1.
func steal(c *CPU) int32 {
	// lab:placement begin
	n := len(CPUs)
	for k := 1; k < n; k++ {
		o := (c.ID + k) % n
		if runQueues[o].n == 0 {
			continue
		}
		if i := runQueues[o].take(func(t *Thread) bool { return allowedOn(t, c.ID) }); i >= 0 {
			c.Stats.Steals++
			return i
		}
	}
	return -1
	// lab:placement stub
	// // TODO(lab placement): take the oldest thread allowed on c from
	// // another core's queue (runQueues[o].take), counting c.Stats.Steals.
	// return -1
	// lab:placement end
}

// mustMove reports whether the thread running on c may no longer run
// there (its affinity changed).
func mustMove(t *Thread, c *CPU) bool { return !allowedOn(t, c.ID) }

// wakeAffine reports whether thread t, woken by a synchronous wake-up
// that core c makes, goes to c: c is making one (NotifySync), t may run
// there, and c runs the waker and has no thread waiting. Read with c's
// state lock or every core's held; under another core's alone it is a
// guess, which the wake-up's last step (every core's) looks at again.
func wakeAffine(t *Thread, c *CPU) bool {
	return c.wakeSync && c.Current >= 0 && runQueues[c.ID].n == 0 && allowedOn(t, c.ID)
}

// affineWaitNanos bounds how long a thread a wake-up put ahead on its
// waker's core waits there for the waker to block (200 us) before it
// goes to an idle core (spreadBuddy). Well above a system call's round
// trip under QEMU's TCG (a pipe ping-pong's waker blocks within tens of
// microseconds), well below a time slice.
const affineWaitNanos = 200_000

// spreadBuddy moves the thread a wake-up put at the head of c's queue
// (readyNext), which has waited affineWaitNanos while c's thread ran on,
// to an idle core, if the placement policy finds one. Called by c with
// every core's state lock held.
func spreadBuddy(c *CPU) {
	q := &runQueues[c.ID]
	if q.n == 0 || !Threads[q.head].buddy {
		return
	}
	i := q.head
	t := &Threads[i]
	core := pickCore(t, c.ID)
	if core == c.ID || !idleFor(core) {
		return // no idle core: at c's head it runs as soon as c's thread stops
	}
	q.pop()
	c.Stats.Spreads++
	enqueue(t, core)
}

// LendQueue is for a core that stays in the kernel a long time with its
// interrupts masked (polling a slow device under the kernel lock: a read
// of a large file from the Pi's SD card by PIO takes seconds). The
// threads queued on it would wait for all of that: no tick comes to
// switch or to move a wake-up's buddy on (spreadBuddy), an idle core
// sleeps until told, and a busy one steals only once it runs out of
// work. So it hands each to another core, as Linux's active balancing
// pushes a task off a busy CPU: an idle one, else the least loaded,
// where it runs within a slice. A thread allowed nowhere else stays.
func LendQueue() {
	me := self()
	if runQueues[me.ID].n == 0 { // a hint, read without the lock
		return
	}
	LockState()
	q := &runQueues[me.ID]
	for q.n > 0 {
		i := q.head
		core := otherCore(&Threads[i], me.ID)
		if core < 0 {
			break
		}
		q.pop()
		me.Stats.Spreads++
		enqueue(&Threads[i], core)
	}
	UnlockState()
}

// otherCore is the core other than busy that t goes to: idle first,
// else the least loaded; -1 if none may run it.
func otherCore(t *Thread, busy int) int {
	best, bestLoad := -1, 0
	for i := range CPUs {
		if i == busy || !allowedOn(t, i) {
			continue
		}
		if idleFor(i) {
			return i
		}
		if l := load(i); best < 0 || l < bestLoad {
			best, bestLoad = i, l
		}
	}
	return best
}
