package kernel

// appOutOfMemory ends the app when a page fault cannot be backed, as the
// Linux OOM killer would, with a report instead of a hang.
func appOutOfMemory(addr uintptr) {
	puts("gometal: out of memory: app killed faulting in ")
	putHex(uint64(addr))
	puts(" (boot with more memory: -m)\n")
	appExit(137)
}
