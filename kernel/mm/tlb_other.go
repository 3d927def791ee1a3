//go:build !arm64

package mm

// Host tests have no TLB.
func flushPage(va uintptr) {}
