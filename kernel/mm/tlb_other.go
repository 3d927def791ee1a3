//go:build !arm64

package mm

// Host tests have no TLB and no other cores' walkers.
func flushPage(va uintptr)                 {}
func flushKernel()                         {}
func flushUserPage(id *uint64, va uintptr) {}
func flushSpace(id *uint64)                {}
func publish()                             {}
func syncICache()                          {}

// fence: host tests' atomics are sequentially consistent already.
func fence() {}
