// Package proc owns processes: the process table (a PID, a parent, a
// process group and a session, a count of live threads, an exit status
// once a zombie) and the rules that relate processes to each other:
// which children a wait may reap, where orphans go, who may move whom
// into which process group. It knows no threads, system-call arguments
// or memory: the Linux layer (kernel/linux) resolves a system call's
// arguments and calls it, and holds what a process shares with the
// threads that belong to it. Everything here runs under the kernel lock
// (ARCHITECTURE.md, "The process layer"); the logic is pure Go over the
// fixed table, so host tests cover it.
package proc
