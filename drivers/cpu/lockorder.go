package cpu

// The lock-order checker. Deadlock between spinlocks needs two cores that
// take two locks in opposite orders; a fixed order (each lock's Rank,
// written down in sched/lock.go) rules it out, and this checks every
// acquisition against it while OrderCheck is on (the kernel turns it on
// with the boot argument gometal.lockcheck=1, which make test passes to
// every kernel it boots). Each core keeps the locks it holds, each with
// the frame-pointer chain of the place that took it; a core that takes a
// lock whose rank is not above every lock it holds (or one it already
// holds, which would spin forever) is reported through OrderViolation
// with both stacks, before it spins, like Linux's lockdep. The check
// reads and writes only the calling core's table, so it needs no lock of
// its own. Off, it costs one load and a branch per Lock and Unlock.

// LockStackDepth is how many return addresses a held lock keeps.
const LockStackDepth = 8

// maxHeld bounds the locks one core holds at once; more is reported as
// a violation. The most a core holds: the kernel lock, one of each
// split rank, and every core's state lock (sched/lock.go).
const maxHeld = 8 + MaxCPUs

// HeldLock is a lock a core holds, or is about to take, and the return
// addresses of the calls that took it, innermost first (0: no more).
type HeldLock struct {
	Lock  *Spinlock
	Stack [LockStackDepth]uintptr
}

// coreLocks is one core's held locks, in the order taken.
type coreLocks struct {
	n      int
	held   [maxHeld]HeldLock
	taking HeldLock // the acquisition being checked
	checks uint64   // acquisitions checked
}

var coreHeld [MaxCPUs]coreLocks

// OrderCheck turns the checker on. It is set at boot before a second core
// runs, and never changes after.
var OrderCheck bool

// OrderViolation reports that core, taking lock taking, holds holding,
// which the order does not allow (holding.Lock == taking.Lock: it already
// holds it). The kernel's hook prints both and ends the run; it must not
// return.
var OrderViolation func(core int, taking, holding *HeldLock)

// Checks returns how many acquisitions the checker has checked, on all
// cores (each counts its own, so no count is lost to a race).
func Checks() uint64 {
	var n uint64
	for i := range coreHeld {
		n += coreHeld[i].checks
	}
	return n
}

// checkOrder records l as held by core, after checking it against the
// locks core already holds; fp is Lock's frame pointer.
func (l *Spinlock) checkOrder(core int, fp uintptr) {
	if core < 0 || core >= MaxCPUs {
		return
	}
	h := &coreHeld[core]
	h.taking.Lock = l
	walkFrames(fp, &h.taking.Stack)
	h.checks++
	for i := 0; i < h.n; i++ {
		if o := &h.held[i]; o.Lock == l || o.Lock.Rank >= l.Rank {
			OrderViolation(core, &h.taking, o)
			return
		}
	}
	if h.n == maxHeld {
		OrderViolation(core, &h.taking, &h.held[h.n-1])
		return
	}
	h.held[h.n] = h.taking
	h.n++
}

// forget drops l from core's held locks (locks need not be released in
// the reverse order of taking).
func (l *Spinlock) forget(core int) {
	if core < 0 || core >= MaxCPUs {
		return
	}
	h := &coreHeld[core]
	for i := 0; i < h.n; i++ {
		if h.held[i].Lock == l {
			copy(h.held[i:h.n-1], h.held[i+1:h.n])
			h.n--
			h.held[h.n] = HeldLock{}
			return
		}
	}
}

// HeldBy returns how many locks core holds as the checker sees them.
func HeldBy(core int) int { return coreHeld[core].n }

// walkFrames fills stack with the return addresses of the frame-pointer
// chain from fp: Go on arm64 keeps the caller's frame pointer at [fp] and
// the return address at [fp+8]. It stops at a frame outside the kernel's
// half of the address space or one that does not go up the stack.
func walkFrames(fp uintptr, stack *[LockStackDepth]uintptr) {
	i := 0
	for ; i < len(stack) && fp >= KernBase && fp&7 == 0; i++ {
		stack[i] = *(*uintptr)(ptr(fp + 8))
		next := *(*uintptr)(ptr(fp))
		if next <= fp {
			i++
			break
		}
		fp = next
	}
	for ; i < len(stack); i++ {
		stack[i] = 0
	}
}
