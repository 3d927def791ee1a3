package cpu

import "sync/atomic"

// Spinlock is a test-and-set lock for cross-core kernel state. IRQs are
// always masked in the kernel, so a holder cannot be interrupted on its own
// core; the lock order is written down where the locks are declared.
type Spinlock struct {
	v atomic.Uint32
}

func (l *Spinlock) Lock() {
	for !l.v.CompareAndSwap(0, 1) {
		for l.v.Load() != 0 {
		}
	}
}

func (l *Spinlock) Unlock() { l.v.Store(0) }
