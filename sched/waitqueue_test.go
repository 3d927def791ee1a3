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
