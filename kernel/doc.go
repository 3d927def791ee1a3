// Package kernel is the core: Start (the DTB, memory, interrupts, clocks,
// the secondary cores), trap entry and exit and interrupt handling, SMP,
// the console's UARTs, kernel panic reports, machine power and the
// watchdog. It knows exceptions, cores and memory, not Linux: a system
// call, a fault from the app and the first thread are the personality's
// above it (package linux), which it calls through OS.
//
// It runs with the Go runtime never started (docs/ARCHITECTURE.md): no
// heap, no package initializers, no goroutines. Everything is a fixed
// array or a page from mm.
package kernel
