//go:build !arm64

package sched

// Reset empties the thread table and run queues and brings cores 0..n-1
// online, busy, with core 0 as the calling core: the starting state of a
// host test of code built on sched (the kernel's vfs package uses it;
// this package's own tests have resetCores). Host builds only.
func Reset(n int) {
	Threads = [MaxThreads]Thread{}
	highWater = 0
	runQueues = [len(runQueues)]runQueue{}
	CPUs = [len(CPUs)]CPU{}
	coreDeadlines = [len(coreDeadlines)]coreDeadline{}
	addrQueues = [len(addrQueues)]Queue{}
	kicked = nil
	initLocks()
	stateCores = len(coreLocks)
	testSelf = 0
	Retries = 0
	for i := 0; i < n; i++ {
		CPUs[i].ID = i
		CPUs[i].Online = true
		CPUs[i].Current = int32(MaxThreads - 1 - i)
	}
}

// buddyTicks is nextBuddyNanos in counter ticks: host tests count in
// nanoseconds.
func buddyTicks() uint64 { return nextBuddyNanos }

// affineTicks is affineWaitNanos in counter ticks (nanoseconds here).
func affineTicks() uint64 { return affineWaitNanos }
