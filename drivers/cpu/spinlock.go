package cpu

import "sync/atomic"

// Spinlock is a test-and-set lock for cross-core kernel state. IRQs are
// always masked in the kernel, so a holder cannot be interrupted on its own
// core; the lock order is written down where the locks are declared
// (sched/lock.go) as each lock's Rank, and checked while OrderCheck is on
// (lockorder.go).
//
// A waiter that spins longer than StuckTicks calls Stuck, so a deadlock or
// a holder that stopped answering ends in a report naming the lock and the
// core holding it instead of a silent hang.
type Spinlock struct {
	v     atomic.Uint32
	owner atomic.Int32 // core holding it (valid while v == 1)
	Name  string       // for reports; a constant
	// Rank places the lock in the lock order: a core may take it only
	// while every lock it holds has a lower rank (lockorder.go).
	Rank uint8
	// Contention, written by each holder once it has the lock
	// (gometal.stats=1 prints them).
	LockCounts
}

// LockCounts is a lock's contention: how many times it was taken, how
// many of those found it held, and the counter ticks those waited in all.
type LockCounts struct {
	Taken, Contended, WaitTicks uint64
}

// Plus returns c and o added up (the stats sum a kind of lock's).
func (c LockCounts) Plus(o LockCounts) LockCounts {
	return LockCounts{c.Taken + o.Taken, c.Contended + o.Contended, c.WaitTicks + o.WaitTicks}
}

// StuckTicks is how many counter ticks a waiter spins before calling
// Stuck (0: never). The kernel sets it once the counter frequency is known.
var StuckTicks uint64

// Stuck reports a lock that could not be taken in StuckTicks. It must not
// return (the kernel's hook prints a report and ends the run).
var Stuck func(l *Spinlock, waiter int)

// Progress counts the steps of work done on purpose while holding a lock
// for long: each device request the block layer and the 9p share poll
// for under the kernel lock (a big read of a file from a slow device,
// the Pi's SD card under QEMU, holds it for seconds). A waiter that sees
// it move is waiting on work, not on a deadlock, and starts its count of
// StuckTicks over.
var Progress atomic.Uint64

// Lock takes l for core. It is never inlined, so that the lock-order
// checker's walk of the frame-pointer chain starts at Lock's own frame
// and its first return address is the place that took the lock.
//
//go:noinline
func (l *Spinlock) Lock(core int) {
	if OrderCheck {
		l.checkOrder(core, ReadFP()) // before spinning: a wrong order may be a deadlock
	}
	if !l.v.CompareAndSwap(0, 1) {
		l.WaitTicks += l.spin(core)
		l.Contended++
	}
	l.Taken++
	l.owner.Store(int32(core))
}

// spin waits for l in WFE rather than in a tight load loop: Unlock sends
// an event (SEV), and each core's event stream (timer.InitCPU) bounds the
// wait besides. It returns the counter ticks it waited.
//
// Under QEMU's multi-threaded TCG, WFE is a no-op, and what keeps a
// waiter from taking host time from the core that holds the lock, when
// there are more vCPUs than host cores, is the counter read of each
// round: it takes QEMU's global lock (CNTVCT_EL0 is a register marked
// for I/O), on which a waiting vCPU's host thread sleeps while another
// has it. Reading the counter only every 4096 rounds made the waits of
// scale_futex's 4 pairs ten times longer (StateLock waited 1.4 s -> 19-22 s
// in all, 4 vCPUs on 2 host cores), so the read stays in every round.
func (l *Spinlock) spin(core int) uint64 {
	start := ReadCNTVCT()
	since, seen := start, Progress.Load()
	for {
		for l.v.Load() != 0 {
			WFE()
			if now := ReadCNTVCT(); StuckTicks != 0 && now-since > StuckTicks && Stuck != nil {
				if p := Progress.Load(); p != seen {
					since, seen = now, p // the holder is working: not stuck
					continue
				}
				Stuck(l, core)
			}
		}
		if l.v.CompareAndSwap(0, 1) {
			return ReadCNTVCT() - start
		}
	}
}

// Unlock releases l (a store-release: everything written under the lock
// is visible to the next holder).
func (l *Spinlock) Unlock() {
	if OrderCheck {
		l.forget(int(l.owner.Load()))
	}
	l.owner.Store(-1)
	l.v.Store(0)
	SEV() // wake the waiters' WFE (after a DSB: the store comes first)
}

// ResetCounts zeroes l's contention counters; the caller holds l.
func (l *Spinlock) ResetCounts() { l.LockCounts = LockCounts{} }

// Held reports whether some core holds l.
func (l *Spinlock) Held() bool { return l.v.Load() != 0 }

// Owner is the core holding l, or -1.
func (l *Spinlock) Owner() int {
	if !l.Held() {
		return -1
	}
	return int(l.owner.Load())
}
