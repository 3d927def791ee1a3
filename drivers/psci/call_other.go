//go:build !arm64

package psci

// Host builds (vet, unit tests) have no firmware to call.
func hvc(fn, a1, a2, a3 uint64) int64 { return NotSupported }
func smc(fn, a1, a2, a3 uint64) int64 { return NotSupported }
