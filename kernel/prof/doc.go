// Package prof is the whole-system sampling profiler: each core, at its
// own timer interrupt, samples what it was doing — the app's PC and its
// Go frame-pointer chain, the kernel's activity (a system call, an
// interrupt, a fault, waiting for the kernel lock), or idle in WFI — and
// counts identical samples in a fixed per-core table (no heap, no lock:
// a core writes only its own). At exit the tables go to the host
// (kernel/prof_arm64.go), which writes a pprof profile with the app's
// symbols (cmd/gometal). This package is the table and the file format;
// it builds and is tested on the host.
package prof
