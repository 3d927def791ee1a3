package sched

// Waiting on an address: the mechanism behind futex. A thread blocks with
// a kind and an address; a waker wakes up to n of the threads blocked
// with that kind on that address, oldest first (Linux wakes futex waiters
// of equal priority in FIFO order).
//
// Both sides run under KernelLock, and the futex syscall compares the
// futex word with the expected value under that same lock before it
// calls WaitOn. A waker (futex wake, also under the lock) therefore
// either runs before the compare, and the waiter sees the new value and
// does not sleep, or after WaitOn, and finds the waiter: no wake-up is
// lost. waitaddr_test.go checks this with the Go runtime's own futex
// mutex protocol on real host threads.

// waitSeq orders waiters: the lowest sequence number waited longest.
var waitSeq uint64

// WaitOn blocks t on addr until WakeAddr or the deadline (a counter value,
// 0 for none; on timeout X0 becomes timeoutResult).
func WaitOn(t *Thread, w WaitKind, addr uintptr, deadline, timeoutResult uint64) {
	Block(t, w, deadline, timeoutResult)
	t.WaitAddr = addr
	waitSeq++
	t.waitSeq = waitSeq
}

// WakeAddr wakes up to n threads blocked with kind w on addr, oldest
// first, with X0 = 0, and returns how many woke.
func WakeAddr(w WaitKind, addr uintptr, n int) int {
	woke := 0
	for woke < n {
		var oldest *Thread
		for i := range Active() {
			t := &Threads[i]
			if t.State == Blocked && t.Wait == w && t.WaitAddr == addr && (oldest == nil || t.waitSeq < oldest.waitSeq) {
				oldest = t
			}
		}
		if oldest == nil {
			break
		}
		Wake(oldest, 0)
		woke++
	}
	return woke
}
