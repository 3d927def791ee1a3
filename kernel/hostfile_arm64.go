package kernel

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/semihost"
	"github.com/gometal/gometal/sched"
)

// hostFile is a file the kernel writes on the host through semihosting
// (SYS_OPEN, SYS_WRITE, SYS_CLOSE): the kernel trace and the profile at
// exit. It remembers the first failure, so a writer can write every part
// and check once.
type hostFile struct {
	h  int64
	ok bool
}

// createHostFile creates (or truncates) the host file named by the
// NUL-terminated name, n bytes long; what says what it is, for the
// one-line error.
func createHostFile(name *byte, n int, what string) (hostFile, bool) {
	h := semihost.Create(name, n)
	if h < 0 {
		Puts("gometal: cannot create the ")
		Puts(what)
		Puts(" file on the host\n")
		return hostFile{}, false
	}
	return hostFile{h: h, ok: true}, true
}

// write writes n bytes at p (kernel memory).
func (f *hostFile) write(p unsafe.Pointer, n uint64) {
	if f.ok && n > 0 {
		f.ok = semihost.Write(f.h, uintptr(p), n)
	}
}

// close closes the file and reports a failed write in one line.
func (f *hostFile) close(what string) {
	semihost.Close(f.h)
	if !f.ok {
		Puts("gometal: writing the ")
		Puts(what)
		Puts(" file on the host failed\n")
	}
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
