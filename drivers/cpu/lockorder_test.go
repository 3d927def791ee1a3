//go:build !arm64

package cpu

import "testing"

// The checker against the order it enforces: ranks must rise, a lock
// is never taken twice, and locks may be released in any order.
func TestLockOrderChecker(t *testing.T) {
	a := &Spinlock{Name: "a", Rank: 1}
	b := &Spinlock{Name: "b", Rank: 2}
	var got []string
	OrderViolation = func(core int, taking, holding *HeldLock) {
		got = append(got, taking.Lock.Name+" under "+holding.Lock.Name)
	}
	OrderCheck = true
	defer func() { OrderCheck, OrderViolation = false, nil }()

	a.Lock(1)
	b.Lock(1)
	b.Unlock()
	a.Unlock()
	if len(got) != 0 || HeldBy(1) != 0 {
		t.Fatalf("a then b: violations %v, %d held", got, HeldBy(1))
	}

	// Out-of-order release leaves the right lock held.
	a.Lock(1)
	b.Lock(1)
	a.Unlock()
	if HeldBy(1) != 1 || coreHeld[1].held[0].Lock != b {
		t.Fatalf("after releasing a first: %d held", HeldBy(1))
	}
	b.Unlock()

	// b then a breaks the order; the checker reports it before spinning.
	b.Lock(2)
	c := &Spinlock{Name: "c", Rank: 2}
	a.Lock(3) // another core's locks are its own
	a.Unlock()
	got = nil
	c.Lock(2) // same rank as b: not above it
	if len(got) != 1 || got[0] != "c under b" {
		t.Fatalf("c under b: got %v", got)
	}
	b.Unlock()

	// A lock taken twice by one core would spin forever: reported first.
	got = nil
	coreHeld[2].n = 0
	a.Lock(2)
	func() {
		defer func() { recover() }()
		OrderViolation = func(core int, taking, holding *HeldLock) {
			got = append(got, taking.Lock.Name+" under "+holding.Lock.Name)
			panic("stop") // the kernel's hook never returns
		}
		a.Lock(2)
	}()
	if len(got) != 1 || got[0] != "a under a" {
		t.Fatalf("a twice: got %v", got)
	}
}
