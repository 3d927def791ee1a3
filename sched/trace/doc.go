// Package trace owns the kernel's event trace: what each core did and
// when, recorded into per-core rings of fixed-size events in kernel
// memory (no heap, no lock: only its own core writes a ring). When a
// ring is full the oldest events are overwritten and counted as lost.
// `gometal run -trace FILE` turns it on (boot argument gometal.trace=)
// and the kernel writes the rings to the host at exit (kernel/trace_arm64.go).
//
// The format (format.go) is shared with the host's reader
// (cmd/gometal/ktrace.go): a header, then each core's events oldest
// first, each an Event as laid out in memory, little-endian.
package trace
