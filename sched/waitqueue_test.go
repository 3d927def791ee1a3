//go:build !arm64

package sched

import "testing"

// A Notify between a waiter's read of the queue's count and its block
// keeps it from blocking: the wake-up it would have missed is seen.
func TestBlockOnGenSeesNotifyInBetween(t *testing.T) {
	resetCores(t, 2)
	var q Queue
	w := New()
	w.State = Running
	gen := q.Gen()
	q.Notify(1) // a pipe written on another core, between try and block
	if BlockOnGen(w, &q, WaitFile, 1, 0, 0, gen) || w.State != Running || !q.Empty() {
		t.Fatalf("blocked after a Notify it did not see: state %v", w.State)
	}
	if !BlockOnGen(w, &q, WaitFile, 1, 0, 0, q.Gen()) || w.State != Blocked || !w.BlockedCall {
		t.Fatal("no Notify since: must block")
	}
}

// A Retry of a waiter whose core has not switched away from it yet (a
// pipe written without the kernel lock while the waiter's system call
// is still on its way out) wakes it where it is, to run its call again
// there; queued, another core could run its stale saved context.
func TestRetryWakesWaiterOnCore(t *testing.T) {
	resetCores(t, 2)
	var q Queue
	w := New()
	w.State, w.CPU = Running, 1
	CPUs[1].Current = Index(w)
	BlockOn(w, &q, WaitEpoll, 1, 12345, 0)
	if n := q.Notify(1); n != 1 {
		t.Fatalf("woke %d, want 1", n)
	}
	if w.State != Running || !w.wokeOnCore || !w.wokeRetry || w.RetryDeadline != 12345 || !q.Empty() {
		t.Fatalf("waiter %v wokeOnCore=%v wokeRetry=%v deadline %d: want Running on its core, to retry",
			w.State, w.wokeOnCore, w.wokeRetry, w.RetryDeadline)
	}
	for c := range runQueues {
		if runQueues[c].n != 0 {
			t.Fatalf("core %d's run queue holds the waiter", c)
		}
	}
}

// A Notify of waiters that live on the notifying core and stay there
// takes that core's state lock and the queue's alone, and rewinds each
// to its SVC on the core's own queue; one that lives elsewhere is
// retried under every core's lock, after the first, in order.
func TestNotifyOnOwnCoreTakesOneCoreLock(t *testing.T) {
	resetCores(t, 4)
	var q Queue
	local, remote := New(), New()
	local.CPU, local.Affinity = 0, 1
	remote.CPU = 2
	local.Ctx.PC, local.OrigX0 = 0x1004, 7
	BlockOn(local, &q, WaitFile, 1, 0, 0)
	ResetStateLockCounts()
	if n := q.Notify(1); n != 1 || local.State != Runnable || !local.Retried || local.Ctx.PC != 0x1000 || local.Ctx.X[0] != 7 {
		t.Fatalf("woke %d; waiter %v retried=%v pc %#x x0 %d: want Runnable, rewound to the SVC", n, local.State, local.Retried, local.Ctx.PC, local.Ctx.X[0])
	}
	if runQueues[0].n != 1 || len(kicked) != 0 {
		t.Fatalf("core 0's queue %d, kicked %v: want the waiter there, no SGI", runQueues[0].n, kicked)
	}
	for i := 1; i < len(coreLocks); i++ {
		if coreLocks[i].Taken != 0 {
			t.Fatalf("core %d's state lock taken by a Notify on core 0", i)
		}
	}
	BlockOn(remote, &q, WaitFile, 1, 0, 0)
	if n := q.Notify(1); n != 1 || remote.State != Runnable || coreLocks[2].Taken == 0 {
		t.Fatalf("woke %d; remote %v, core 2's lock taken %d: want it retried under every core's lock", n, remote.State, coreLocks[2].Taken)
	}
	expectNoStateLocks(t)
}

// A synchronous wake-up (a pipe's writer waking its reader) from a core
// that runs only the waker pulls the waiter onto that core, at the head
// of its queue, with no SGI (Linux's wake_affine_idle); a plain Notify
// puts it back on its idle home core, which gets an SGI.
func TestNotifySyncPullsWaiterToWaker(t *testing.T) {
	for _, sync := range []bool{false, true} {
		resetCores(t, 4, 2, 3)
		var q Queue
		w := New()
		w.CPU = 2
		BlockOn(w, &q, WaitFile, 1, 0, 0)
		n := 0
		if sync {
			n = q.NotifySync(1)
		} else {
			n = q.Notify(1)
		}
		if n != 1 || w.State != Runnable {
			t.Fatalf("sync=%v: woke %d, waiter %v", sync, n, w.State)
		}
		want, wantKicks := 2, 1
		if sync {
			want, wantKicks = 0, 0
		}
		if int(w.CPU) != want || runQueues[want].n != 1 || len(kicked) != wantKicks {
			t.Fatalf("sync=%v: waiter on core %d (queue %d), kicked %v: want core %d, %d SGIs", sync, w.CPU, runQueues[want].n, kicked, want, wantKicks)
		}
		if sync && (runQueues[0].head != Index(w) || !w.buddy || CPUs[0].affineDue == 0) {
			t.Fatalf("pulled waiter not at the head as a buddy with a due time: head %d buddy %v due %d", runQueues[0].head, w.buddy, CPUs[0].affineDue)
		}
		expectNoStateLocks(t)
	}
}

// The rule holds only while the waker is all its core runs: with a
// thread already waiting there, a synchronous wake-up places the waiter
// as any other (its idle home core).
func TestNotifySyncLeavesBusyWakerCore(t *testing.T) {
	resetCores(t, 4, 2)
	var q Queue
	other := New()
	ready(other) // no idle core but 2: ...
	if other.CPU != 2 {
		t.Fatalf("setup: other on core %d", other.CPU)
	}
	runQueues[2].pop() // ... so put it on core 0's queue by hand
	runQueues[0].push(Index(other), 0)
	other.CPU = 0
	w := New()
	w.CPU = 2
	BlockOn(w, &q, WaitFile, 1, 0, 0)
	if n := q.NotifySync(1); n != 1 || w.CPU != 2 || runQueues[2].n != 1 {
		t.Fatalf("woke %d, waiter on core %d: want its idle home, core 2", n, w.CPU)
	}
	expectNoStateLocks(t)
}
