// Package sched owns threads and where they run: the thread table (one
// kernel thread per Go M), per-core run queues, placement, stealing and
// migration between cores, blocking and waking (with timeouts; on a wait
// queue, whose waiters run their system call again, for file objects; on
// an address for futex), time slices on each core's timer tick, wake-up
// SGIs, the idle loop that sleeps in WFI, the kernel lock, and the
// watchdog that turns a silent core into a report.
//
// The policy (where a runnable thread goes, when a core steals) is in
// policy.go and nowhere else. The kernel lock and the lock order are in
// lock.go. Files without an _arm64 suffix are pure logic with host tests.
package sched
