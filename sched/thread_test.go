//go:build !arm64

package sched

import "testing"

func TestNewIndexReady(t *testing.T) {
	resetCores(t, 1)
	a, b := New(), New()
	if Index(a) != 0 || Index(b) != 1 || len(Active()) != 2 {
		t.Fatalf("Index %d %d, active %d", Index(a), Index(b), len(Active()))
	}
	if a.TID == b.TID {
		t.Error("duplicate TIDs")
	}
	Ready(a)
	Ready(b)
	q := &runQueues[0]
	if q.pop() != 0 || q.pop() != 1 || q.pop() != -1 {
		t.Error("run queue is not FIFO")
	}
	b.State = Dead
	if ByTID(b.TID) != nil || ByTID(a.TID) != a || Live() != 1 {
		t.Error("ByTID/Live")
	}
}

func TestWakeOnlyBlocked(t *testing.T) {
	resetCores(t, 1)
	a := New()
	Block(a, WaitFutex, 100, 7)
	Wake(a, 42)
	if a.State != Runnable || a.Ctx.X[0] != 42 || a.Deadline != 0 {
		t.Errorf("woken thread: %+v", a.State)
	}
	Wake(a, 5) // not blocked any more: no effect
	if a.Ctx.X[0] != 42 || runQueues[0].n != 1 {
		t.Error("Wake of a runnable thread changed it")
	}
}
