//go:build !arm64

package sched

import (
	"fmt"
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
	// pinned: every thread lives on core 0, the waker's, and may run
	// only there, so FUTEX_WAKE takes the futex queue's lock and core
	// 0's alone (WakeAddr's first pass) while waits take every core's.
	pinned bool
	// idleHomes: cores 1 to 3 run nothing (Current -1), so a waiter that
	// lives there is woken under the queue's lock and its core's alone
	// (WakeAddr's second step), by several wakers at once.
	idleHomes bool
}

// futexMode is a variant of the model, run as a subtest.
type futexMode struct{ pinned, idleHomes bool }

var futexModes = []futexMode{{}, {pinned: true}, {idleHomes: true}}

func (m futexMode) String() string {
	return fmt.Sprintf("pinned=%v,idleHomes=%v", m.pinned, m.idleHomes)
}

// newFutexModel resets the cores and sets them up for mode.
func newFutexModel(t *testing.T, mode futexMode) *futexModel {
	resetCores(t, 4)
	if mode.idleHomes {
		for i := 1; i < 4; i++ {
			CPUs[i].Current = -1
		}
	}
	return &futexModel{pinned: mode.pinned, idleHomes: mode.idleHomes}
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
	if m.pinned {
		th.CPU, th.Affinity = 0, 1
	}
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
	for _, mode := range futexModes {
		t.Run(mode.String(), func(t *testing.T) { testFutexModelMutex(t, mode) })
	}
}

func testFutexModelMutex(t *testing.T, mode futexMode) {
	m := newFutexModel(t, mode)
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
		var ths [workers]*Thread // all made first, as in the ring below
		for w := range ths {
			ths[w] = m.newThread(t)
		}
		for _, th := range ths {
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
	for _, mode := range futexModes {
		t.Run(mode.String(), func(t *testing.T) { testFutexModelSemaphoreRing(t, mode) })
	}
}

func testFutexModelSemaphoreRing(t *testing.T, mode futexMode) {
	m := newFutexModel(t, mode)
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
		// Every thread made before any runs: New reads the table's
		// states, which a running thread's wake-ups write (the kernel's
		// clone and a lock-free wake-up meet so only over threads that
		// are not Free, which New does not take).
		var ths [ms]*Thread
		for i := range ths {
			ths[i] = m.newThread(t)
		}
		for i := 0; i < ms; i++ {
			th := ths[i]
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
	if mode.idleHomes && CPUs[0].Stats.StateHome == 0 {
		t.Fatal("no wake-up took a waiter's idle core's lock alone: the mode tested nothing")
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

// A wake-up of a waiter that lives on the waker's core and stays there
// takes that core's state lock and the futex queue's, and no other
// core's: the waiter goes on the core's own queue, with no SGI.
func TestWakeAddrOnOwnCoreTakesOneCoreLock(t *testing.T) {
	resetCores(t, 4)
	w := New()
	w.CPU, w.Affinity = 0, 1 // lives on core 0, the waker's, and may run only there
	WaitOn(w, WaitFutex, 0x40, 0, 0)
	ResetStateLockCounts()
	if n := WakeAddr(WaitFutex, 0x40, 1); n != 1 || w.State != Runnable {
		t.Fatalf("woke %d, waiter %v: want 1, Runnable", n, w.State)
	}
	if runQueues[0].n != 1 || len(kicked) != 0 {
		t.Fatalf("core 0's queue holds %d, kicked %v: want the waiter there, no SGI", runQueues[0].n, kicked)
	}
	for i := 1; i < len(coreLocks); i++ {
		if coreLocks[i].Taken != 0 {
			t.Fatalf("core %d's state lock taken %d times by a wake-up on core 0", i, coreLocks[i].Taken)
		}
	}
	if coreLocks[0].Taken != 1 || addrLocks[addrHash(0x40)].Taken != 1 {
		t.Fatalf("core 0's lock taken %d, the futex queue's %d: want 1 each", coreLocks[0].Taken, addrLocks[addrHash(0x40)].Taken)
	}
	expectNoStateLocks(t)
}

// A waiter on another core, or one the policy sends to another core,
// is woken under every core's lock, and the order still holds: the
// oldest first, then the rest, whichever way each goes.
func TestWakeAddrFallsBackInOrder(t *testing.T) {
	resetCores(t, 4, 2, 3)
	local, remote, idleBound := New(), New(), New()
	local.CPU, local.Affinity = 0, 1 // core 0's, and stays there
	remote.CPU = 1                   // lives on core 1
	idleBound.CPU = 0                // core 0's, but cores 2 and 3 are idle
	for _, w := range []*Thread{local, remote, idleBound} {
		WaitOn(w, WaitFutex, 0x40, 0, 0)
	}
	if n := WakeAddr(WaitFutex, 0x40, 2); n != 2 || local.State != Runnable || remote.State != Runnable || idleBound.State != Blocked {
		t.Fatalf("woke %d (local %v, remote %v, third %v): want the two oldest", n, local.State, remote.State, idleBound.State)
	}
	if runQueues[0].n != 1 || local.CPU != 0 || remote.CPU != 2 {
		t.Fatalf("core 0's queue holds %d; local on %d, remote on %d: want 0 and idle core 2", runQueues[0].n, local.CPU, remote.CPU)
	}
	if n := WakeAddr(WaitFutex, 0x40, 1); n != 1 || idleBound.CPU != 3 {
		t.Fatalf("woke %d; third on core %d: want it on idle core 3", n, idleBound.CPU)
	}
	if len(kicked) != 2 {
		t.Fatalf("kicked %v: want idle cores 2 and 3", kicked)
	}
	expectNoStateLocks(t)
}

// A wake-up of a waiter that lives on another core, idle, takes the
// futex queue's lock, the waker's core's (its first step finds the
// waiter) and the idle core's, and no other: the waiter goes back on its
// core's queue, which gets the one SGI.
func TestWakeAddrOnIdleHomeTakesTwoCoreLocks(t *testing.T) {
	resetCores(t, 4, 2)
	w := New()
	w.CPU = 2 // lives on core 2, idle; may run anywhere
	WaitOn(w, WaitFutex, 0x40, 0, 0)
	ResetStateLockCounts()
	CPUs[0].Stats = CPUStats{}
	if n := WakeAddr(WaitFutex, 0x40, 1); n != 1 || w.State != Runnable || w.CPU != 2 {
		t.Fatalf("woke %d; waiter %v on core %d: want 1, Runnable on core 2", n, w.State, w.CPU)
	}
	if runQueues[2].n != 1 || len(kicked) != 1 || kicked[0] != 2 {
		t.Fatalf("core 2's queue holds %d, kicked %v: want the waiter there and one SGI to core 2", runQueues[2].n, kicked)
	}
	for _, i := range []int{1, 3} {
		if coreLocks[i].Taken != 0 {
			t.Fatalf("core %d's state lock taken %d times by a wake-up onto idle core 2", i, coreLocks[i].Taken)
		}
	}
	if coreLocks[0].Taken != 1 || coreLocks[2].Taken != 1 || CPUs[0].Stats.StateHome != 1 || CPUs[0].Stats.StateAll != 0 {
		t.Fatalf("locks taken: core 0 %d, core 2 %d; sections home %d, every-core %d: want 1, 1, 1, 0",
			coreLocks[0].Taken, coreLocks[2].Taken, CPUs[0].Stats.StateHome, CPUs[0].Stats.StateAll)
	}
	expectNoStateLocks(t)
}

// Waiters woken in the three steps keep their order: the waker's own
// first, then one on an idle core under that core's lock, then, at one
// on a busy core, the rest under every core's lock; a step that finds
// the home core busy after all (another waiter went there first) hands
// over to the next.
func TestWakeAddrStepsKeepOrder(t *testing.T) {
	resetCores(t, 4, 2, 3)
	local, idleHome, busyHome, sameHome := New(), New(), New(), New()
	local.CPU, local.Affinity = 0, 1
	idleHome.CPU = 2
	busyHome.CPU = 1
	sameHome.CPU = 2
	for _, w := range []*Thread{local, idleHome, sameHome, busyHome} {
		WaitOn(w, WaitFutex, 0x40, 0, 0)
	}
	ResetStateLockCounts()
	CPUs[0].Stats = CPUStats{}
	if n := WakeAddr(WaitFutex, 0x40, 4); n != 4 {
		t.Fatalf("woke %d, want 4", n)
	}
	// local on core 0; idleHome back on idle core 2; sameHome finds core 2
	// busy now and goes, with busyHome, under every core's lock: to idle
	// core 3 first, then the least loaded.
	if local.CPU != 0 || idleHome.CPU != 2 || sameHome.CPU != 3 {
		t.Fatalf("placed on %d, %d, %d: want 0, 2, 3", local.CPU, idleHome.CPU, sameHome.CPU)
	}
	if CPUs[0].Stats.StateHome != 1 || CPUs[0].Stats.StateAll != 1 {
		t.Fatalf("sections: home %d, every-core %d: want 1 and 1", CPUs[0].Stats.StateHome, CPUs[0].Stats.StateAll)
	}
	if runQueues[2].head != Index(idleHome) {
		t.Fatalf("core 2's queue starts with thread %d, want idleHome (%d)", runQueues[2].head, Index(idleHome))
	}
	expectNoStateLocks(t)
}

// expectNoStateLocks fails if a state lock is still held.
func expectNoStateLocks(t *testing.T) {
	t.Helper()
	for i := range coreLocks {
		if coreLocks[i].Held() {
			t.Fatalf("core %d's state lock still held", i)
		}
	}
	for i := range addrLocks {
		if addrLocks[i].Held() {
			t.Fatalf("wait queue lock %d still held", i)
		}
	}
	if c := self(); c.held != heldNone || c.waitLock != nil {
		t.Fatalf("core %d still records held=%d waitLock=%v", c.ID, c.held, c.waitLock)
	}
}
