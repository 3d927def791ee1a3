//go:build !arm64

// Host-only: these tests play the cores through self_other.go.

package sched

import "testing"

// resetCores gives a fresh table with n online cores, all busy running
// nothing in particular (Current = a dummy slot) unless idle is listed.
func resetCores(t *testing.T, n int, idle ...int) {
	t.Helper()
	Reset(n)
	for _, i := range idle {
		CPUs[i].Current = -1
		CPUs[i].Idle = true
	}
}

func TestPlacementPrefersLastCoreWhenIdle(t *testing.T) {
	resetCores(t, 4, 1, 2)
	a := New()
	a.CPU = 2
	Ready(a)
	if runQueues[2].n != 1 {
		t.Fatalf("thread not placed on its idle last core: queues %d %d %d %d", runQueues[0].n, runQueues[1].n, runQueues[2].n, runQueues[3].n)
	}
	if len(kicked) != 1 || kicked[0] != 2 {
		t.Errorf("idle core 2 not woken with an SGI: kicked %v", kicked)
	}
}

func TestPlacementSpreadsOverIdleCores(t *testing.T) {
	resetCores(t, 4, 1, 2, 3)
	for i := 0; i < 3; i++ {
		th := New()
		th.CPU = 0 // all last ran on the busy waker's core
		Ready(th)
	}
	for c := 1; c <= 3; c++ {
		if runQueues[c].n != 1 {
			t.Errorf("core %d got %d threads, want 1 (one per idle core)", c, runQueues[c].n)
		}
	}
	if len(kicked) != 3 {
		t.Errorf("kicked %v, want the three idle cores", kicked)
	}
}

func TestPlacementLeastLoadedWhenAllBusy(t *testing.T) {
	resetCores(t, 3)
	runQueues[0].push(New().index(), 0)
	runQueues[2].push(New().index(), 0)
	th := New()
	th.CPU = 2
	Ready(th)
	if runQueues[1].n != 1 {
		t.Errorf("want the least loaded core 1; queues %d %d %d", runQueues[0].n, runQueues[1].n, runQueues[2].n)
	}
	// A busy core whose queue was empty is kicked so it arms its slice.
	if len(kicked) != 1 || kicked[0] != 1 {
		t.Errorf("kicked %v, want [1]", kicked)
	}
}

func TestPlacementHonoursAffinity(t *testing.T) {
	resetCores(t, 4, 1, 2, 3)
	th := New()
	th.Affinity = 1 << 3
	Ready(th)
	if runQueues[3].n != 1 {
		t.Errorf("thread allowed only on core 3 placed elsewhere")
	}
	// No online core allowed: the waker's core, rather than nowhere.
	resetCores(t, 2)
	th = New()
	th.Affinity = 1 << 7
	Ready(th)
	if runQueues[0].n != 1 {
		t.Errorf("unplaceable thread not kept on the waker's core")
	}
}

func TestStealTakesOldestAllowed(t *testing.T) {
	resetCores(t, 3, 1)
	a, b, c := New(), New(), New()
	a.Affinity = 1 << 0 // may not move to core 1
	runQueues[2].push(a.index(), 0)
	runQueues[2].push(b.index(), 0)
	runQueues[2].push(c.index(), 0)
	got := steal(&CPUs[1])
	if got != b.index() {
		t.Fatalf("stole %d, want %d (oldest allowed)", got, b.index())
	}
	if q := &runQueues[2]; q.n != 2 || q.pop() != a.index() || q.pop() != c.index() || q.pop() != -1 {
		t.Error("queue damaged by take")
	}
	if CPUs[1].Stats.Steals != 1 {
		t.Error("steal not counted")
	}
	if steal(&CPUs[1]) != -1 {
		t.Error("stole from empty queues")
	}
}

func TestTakeTail(t *testing.T) {
	resetCores(t, 1)
	a, b := New(), New()
	q := &runQueues[0]
	q.push(a.index(), 0)
	q.push(b.index(), 0)
	if q.take(func(t *Thread) bool { return t == b }) != b.index() {
		t.Fatal("take(tail)")
	}
	c := New()
	q.push(c.index(), 0) // tail must have moved back to a
	if q.pop() != a.index() || q.pop() != c.index() || q.n != 0 {
		t.Error("tail not fixed after taking the last element")
	}
}

func TestMustMoveOnAffinityChange(t *testing.T) {
	resetCores(t, 2)
	th := New()
	if mustMove(th, &CPUs[0]) {
		t.Error("no affinity means every core")
	}
	th.Affinity = 1 << 1
	if !mustMove(th, &CPUs[0]) || mustMove(th, &CPUs[1]) {
		t.Error("affinity 0b10")
	}
}

func TestWatchdogSilentCore(t *testing.T) {
	resetCores(t, 3, 2)
	CPUs[0].Heartbeat = 1000
	CPUs[1].Heartbeat = 100
	CPUs[2].Heartbeat = 1 // idle: never silent
	if got := Silent(1050, 500, 0); got != 1 {
		t.Errorf("Silent = %d, want core 1", got)
	}
	if got := Silent(1050, 2000, 0); got != -1 {
		t.Errorf("Silent within the limit = %d", got)
	}
	if got := Silent(1050, 500, 1); got != -1 {
		t.Errorf("a core does not report itself: %d", got)
	}
}

func TestWatchdogStarvedThread(t *testing.T) {
	resetCores(t, 2)
	CPUs[0].Heartbeat = 100
	a := New()
	Ready(a) // placed at counter 100
	CPUs[0].Heartbeat = 900
	b := New()
	Ready(b)
	if got := Starved(1000, 950); got != -1 {
		t.Errorf("Starved within the limit = %d", got)
	}
	if got := Starved(1000, 500); got != a.index() {
		t.Errorf("Starved = %d, want the thread queued at 100 (%d)", got, a.index())
	}
	// Both cores run a thread: a goes to the waker's core 0, b to the
	// less loaded core 1.
	if ca, cb := QueuedOn(a.index()), QueuedOn(b.index()); ca != 0 || cb != 1 {
		t.Errorf("QueuedOn = %d, %d; want 0, 1", ca, cb)
	}
	// Once it runs (popped), it is no longer starved.
	for c := range 2 {
		for runQueues[c].n > 0 {
			runQueues[c].pop()
		}
	}
	if got := Starved(5000, 500); got != -1 {
		t.Errorf("Starved with empty queues = %d", got)
	}
}

func (t *Thread) index() int32 { return Index(t) }

// A thread a wake-up put ahead on its waker's core, which ran on past
// affineWaitNanos, goes to an idle core (with an SGI); with no core
// idle, it stays at the head where it is.
func TestSpreadBuddyMovesToIdleCore(t *testing.T) {
	for _, idle := range []bool{true, false} {
		if idle {
			resetCores(t, 4, 3)
		} else {
			resetCores(t, 4)
		}
		var q Queue
		w := New()
		w.CPU = 0
		BlockOn(w, &q, WaitFile, 1, 0, 0)
		q.NotifySync(1)
		if w.CPU != 0 || !w.buddy {
			t.Fatalf("setup: waiter on core %d buddy %v", w.CPU, w.buddy)
		}
		kicked = nil
		LockState()
		spreadBuddy(&CPUs[0])
		UnlockState()
		if idle && (w.CPU != 3 || runQueues[0].n != 0 || runQueues[3].n != 1 || len(kicked) != 1 || CPUs[0].Stats.Spreads != 1) {
			t.Fatalf("waiter on core %d, queues %d/%d, kicked %v: want it moved to idle core 3 with an SGI", w.CPU, runQueues[0].n, runQueues[3].n, kicked)
		}
		if !idle && (w.CPU != 0 || runQueues[0].head != Index(w) || len(kicked) != 0) {
			t.Fatalf("no idle core: waiter on core %d, kicked %v: want it left at core 0's head", w.CPU, kicked)
		}
	}
}
