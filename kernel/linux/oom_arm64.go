package linux

import "github.com/gometal/gometal/kernel"

// appOutOfMemory ends the app when a page fault cannot be backed, as the
// Linux OOM killer would, with a report instead of a hang.
func appOutOfMemory(addr uintptr) {
	kernel.Puts("gometal: out of memory: app killed faulting in ")
	kernel.PutHex(uint64(addr))
	kernel.Puts(" (boot with more memory: -m)\n")
	appExit(137)
}
