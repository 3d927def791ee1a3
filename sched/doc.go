// Package sched owns threads and where they run: the thread table (one
// kernel thread per Go M), per-core run queues, blocking and waking with
// timeouts, time slices on the core's timer tick, and the idle loop that
// sleeps in WFI.
//
// Policy (all of it lives in Schedule and Pick): a core runs the thread
// at the head of its run queue for a 10 ms slice; a thread that blocks or
// whose slice ends while others wait goes to the back. A core with nothing
// to run waits for an interrupt in WFI with its timer set to the earliest
// deadline. Threads never migrate yet: there is one core (issue: "Every
// core" adds placement, stealing and cross-core wakeups).
package sched
