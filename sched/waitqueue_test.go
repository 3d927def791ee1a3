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
