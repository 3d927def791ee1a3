// Package kernel owns the Linux personality the app sees: trap entry and
// exit, the syscall table (split by area into sys_*.go files: mm, signal,
// futex, epoll, fs, time, proc), the ELF loader and initial stack, signal
// frames, the console and the initramfs file system.
//
// It runs with the Go runtime never started (ARCHITECTURE.md): no heap, no
// package initializers, no goroutines. Everything is a fixed array or a
// page from mm.
package kernel
