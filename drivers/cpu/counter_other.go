//go:build !arm64

package cpu

// Host builds (unit tests of pure kernel logic) have no generic counter;
// a zero count keeps Spinlock's stuck detection idle there.
func ReadCNTVCT() uint64 { return 0 }

// WFE and SEV do nothing on the host: Spinlock's waiters just spin.
func WFE() {}
func SEV() {}

// ReadFP has no frame chain to offer on the host: lock stacks stay empty.
func ReadFP() uintptr { return 0 }
