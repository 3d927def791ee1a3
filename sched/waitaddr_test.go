//go:build !arm64

package sched

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A host model of the futex wait/wake protocol: real host threads play
// the app's threads on several cores, a sync.Mutex plays KernelLock, and
// the kernel side is this package's own code, called exactly as the
// kernel calls it: FUTEX_WAIT compares and blocks under KernelLock and
// StateLock (sys_futex), FUTEX_WAKE takes StateLock alone (the lock-free
// path). Lost wake-ups show up as a hang, caught by a timeout; lost
// updates as a wrong count.

type futexModel struct {
	kernel sync.Mutex // KernelLock
	mem    [64]atomic.Uint32
}

// wait is FUTEX_WAIT(addr, val): compare and block under the locks, then
// "run" again once some waker made the thread runnable.
func (m *futexModel) wait(th *Thread, addr int, val uint32) {
	m.kernel.Lock()
	LockState()
	if m.mem[addr].Load() != val {
		UnlockState()
		m.kernel.Unlock() // EAGAIN
		return
	}
	WaitOnLocked(th, WaitFutex, uintptr(addr), 0, 0)
	UnlockState()
	m.kernel.Unlock()
	for {
		LockState()
		if th.State != Blocked {
			// Woken: Ready queued it on some core; that core runs it.
			for q := range runQueues {
				runQueues[q].take(func(x *Thread) bool { return x == th })
			}
			th.State = Running
			UnlockState()
			return
		}
		UnlockState()
		runtime.Gosched()
	}
}

func (m *futexModel) wake(addr int, n int) {
	WakeAddr(WaitFutex, uintptr(addr), n)
}

func (m *futexModel) newThread(t *testing.T) *Thread {
	m.kernel.Lock()
	defer m.kernel.Unlock()
	th := New()
	if th == nil {
		t.Fatal("thread table full")
	}
	th.State = Running
	return th
}

func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: no progress in %v (a lost wake-up leaves a waiter asleep)", what, d)
	}
}

// The three-state futex mutex (0 unlocked, 1 locked, 2 locked with
// sleepers), the shape of the Go runtime's lock_futex.go and of glibc's.
func TestFutexModelMutex(t *testing.T) {
	resetCores(t, 4)
	m := &futexModel{}
	const key = 0
	lock := func(th *Thread) {
		if m.mem[key].CompareAndSwap(0, 1) {
			return
		}
		for m.mem[key].Swap(2) != 0 {
			m.wait(th, key, 2)
		}
	}
	unlock := func() {
		if m.mem[key].Swap(0) == 2 {
			m.wake(key, 1)
		}
	}
	const workers, rounds = 8, 3000
	counter := 0
	within(t, 30*time.Second, "futex mutex", func() {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			th := m.newThread(t)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < rounds; i++ {
					lock(th)
					counter++
					unlock()
				}
			}()
		}
		wg.Wait()
	})
	if counter != workers*rounds {
		t.Fatalf("counter %d, want %d", counter, workers*rounds)
	}
}

// The runtime's M semaphore (lock_futex.go semasleep/semawakeup): a ring
// of Ms, each sleeping on its own word until the previous one wakes it.
func TestFutexModelSemaphoreRing(t *testing.T) {
	resetCores(t, 4)
	m := &futexModel{}
	const ms, laps = 6, 500
	sleep := func(th *Thread, addr int) {
		for v := int32(m.mem[addr].Add(^uint32(0))); ; v = int32(m.mem[addr].Load()) {
			if v >= 0 {
				return
			}
			m.wait(th, addr, uint32(v))
		}
	}
	wakeup := func(addr int) {
		if m.mem[addr].Add(1) == 0 {
			m.wake(addr, 1)
		}
	}
	var passes atomic.Int64
	within(t, 30*time.Second, "semaphore ring", func() {
		var wg sync.WaitGroup
		for i := 0; i < ms; i++ {
			th := m.newThread(t)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for lap := 0; lap < laps; lap++ {
					if i != 0 || lap != 0 {
						sleep(th, i)
					}
					passes.Add(1)
					wakeup((i + 1) % ms)
				}
			}()
		}
		wg.Wait()
	})
	if passes.Load() != ms*laps {
		t.Fatalf("%d passes, want %d", passes.Load(), ms*laps)
	}
}

// Wake order is FIFO and the count is honoured.
func TestWakeAddrOldestFirst(t *testing.T) {
	resetCores(t, 2)
	a, b, c := New(), New(), New()
	WaitOn(b, WaitFutex, 0x40, 0, 0)
	WaitOn(a, WaitFutex, 0x40, 0, 0)
	WaitOn(c, WaitFutex, 0x80, 0, 0)
	if n := WakeAddr(WaitFutex, 0x40, 1); n != 1 || b.State != Runnable || a.State != Blocked {
		t.Fatalf("woke %d; b %v a %v: want b (oldest) only", n, b.State, a.State)
	}
	if n := WakeAddr(WaitFutex, 0x40, 10); n != 1 || a.State != Runnable {
		t.Fatalf("second wake woke %d", n)
	}
	if c.State != Blocked || WakeAddr(WaitEpoll, 0x80, 1) != 0 {
		t.Fatal("wake crossed addresses or kinds")
	}
}

// A lock-free wake-up that finds a waiter still on its core (its context
// not yet saved) ends the wait where it is, queueing nothing: Schedule on
// that core finds it Running and runs it on.
func TestWakeAddrWakesWaiterOnCore(t *testing.T) {
	resetCores(t, 2)
	w := New()
	w.State, w.CPU = Running, 1
	CPUs[1].Current = Index(w)
	WaitOn(w, WaitFutex, 0x40, 0, 0) // blocked, but still core 1's Current
	if n := WakeAddr(WaitFutex, 0x40, 1); n != 1 {
		t.Fatalf("woke %d, want 1", n)
	}
	if w.State != Running || !w.wokeOnCore || w.Wait != WaitNone {
		t.Fatalf("waiter %v wokeOnCore=%v wait=%v, want Running on its core", w.State, w.wokeOnCore, w.Wait)
	}
	for q := range runQueues {
		if runQueues[q].n != 0 {
			t.Fatalf("core %d's run queue holds the waiter: another core could run it with a stale context", q)
		}
	}
	if addrQueue(0x40).head != 0 || CPUs[0].Stats.EarlyWakes != 1 {
		t.Fatalf("waiter still queued, or not counted (%d)", CPUs[0].Stats.EarlyWakes)
	}
}
