package tests

import "testing"

// Pipes read and written without the kernel lock (kernel/vfs/unlockedio.go),
// from every core at once, beside what that must meet safely: buffers
// unmapped under a read, descriptors closed under a reader, and the
// same pipes through epoll (tests/progs/pipes checks every byte). The
// stats must show the pipes' own locks taken and calls answered without
// the kernel lock, and wake-ups onto idle cores under two locks, or the
// test proved nothing about those ways.
func TestPipesWithoutTheKernelLock(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", "-env", "GOMETAL_STATS=1", "./tests/progs/pipes")
	r.expectClean(t, 0,
		"streams: 4 pipes, 8 MiB each, intact",
		"unmap race: 2000 reads, each whole or EFAULT",
		"close race: 300 pipes closed under a reader",
		"polled: 4 os.Pipes, 8 MiB each, intact",
		"PASS")
	logLine(t, r.out, `unmap race: .*`)
	logLine(t, r.out, `stats: lock kernel: .*`)
	logLine(t, r.out, `stats: lock objects: .*`)
	logLine(t, r.out, `stats: unlocked-io: .*`)
	// 4 streams of 8 MiB in writes of up to 192 KiB and reads of up to
	// 100 KB: thousands of calls, most of which find data or room.
	if n := r.counter(t, `stats: unlocked-io: unlocked=(\d+)`); n < 1000 {
		t.Errorf("%d pipe calls answered without the kernel lock, want >= 1000", n)
	}
	// A reader or writer blocked on a core that then idles is woken
	// under the pipe queue's lock and that core's alone
	// (sched.lockHome): thousands of times in one run (4026 in one),
	// so none means that way is gone.
	logLine(t, r.out, `stats: state-locks: .*`)
	if n := r.counter(t, `state-locks: .* home-core=(\d+)`); n == 0 {
		t.Errorf("no wake-up onto a waiter's idle core took that core's lock alone (home-core=0)")
	}
}
