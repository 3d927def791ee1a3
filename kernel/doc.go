// Package kernel owns the Linux personality the app sees: trap entry and
// exit, the syscall table (split by area into sys_*.go files: mm, signal,
// futex, epoll, fs, time, proc, socket), the descriptor table, what Linux
// keeps per thread (thread.go), the ELF loader and initial stack, signal
// frames; and, until they move into packages of their own, the objects
// that implement vfs.Impl beside the state they need: the /dev memory
// devices. The file layer itself (descriptions, waiting, pipes, epoll) is
// package vfs; the initramfs and tmpfs are package fs; sockets are
// package socket; the console as a terminal is package tty (the UARTs
// under it stay here).
//
// It runs with the Go runtime never started (ARCHITECTURE.md): no heap, no
// package initializers, no goroutines. Everything is a fixed array or a
// page from mm.
package kernel
