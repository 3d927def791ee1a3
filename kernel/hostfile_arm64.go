package kernel

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/semihost"
	"github.com/gometal/gometal/sched"
)

// HostFile is a file the kernel writes on the host through semihosting
// (SYS_OPEN, SYS_WRITE, SYS_CLOSE) when the app exits: the kernel trace,
// the profile, and the files the app left (kernel/linux's copyout). It
// remembers the first failure, so a writer writes every part and checks
// once, at Close.
type HostFile struct {
	h  int64
	ok bool
}

// CreateHostFile creates (or truncates) the host file named by the
// NUL-terminated name, n bytes long; false if the host refused.
func CreateHostFile(name *byte, n int) (HostFile, bool) {
	h := semihost.Create(name, n)
	if h < 0 {
		return HostFile{}, false
	}
	return HostFile{h: h, ok: true}, true
}

// Write writes n bytes at p (kernel memory).
func (f *HostFile) Write(p unsafe.Pointer, n uint64) {
	if f.ok && n > 0 {
		f.ok = semihost.Write(f.h, uintptr(p), n)
	}
}

// Close closes the file and reports whether every write went through.
func (f *HostFile) Close() bool {
	semihost.Close(f.h)
	return f.ok
}

// onlineCores is one more than the highest online core.
func onlineCores() int {
	cores := 0
	for i := range sched.CPUs {
		if sched.CPUs[i].Online {
			cores = i + 1
		}
	}
	return cores
}
