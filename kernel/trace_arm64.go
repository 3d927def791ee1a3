package kernel

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/sched"
	"github.com/gometal/gometal/sched/trace"
)

// The kernel trace on its way out: boot argument gometal.trace=PATH
// turns recording on (sched/trace), and at exit the rings go to the
// host file PATH through semihosting, in sched/trace's format. Without
// semihosting (a board) there is no host to write to; the CLI only asks
// for a trace under QEMU.

// traceName is the host path, NUL-terminated (bootargs are words, so it
// has no spaces).
var (
	traceName    [512]byte
	traceNameLen int
	traceHeader  trace.Header
	traceCores   [len(sched.CPUs)]trace.CoreHeader
)

// CopyoutArgs are the boot arguments gometal.copyout=GUEST:HOST: files
// the app leaves (a Go execution trace, a profile) that the Linux layer
// writes to the host through semihosting when the app exits.
var (
	CopyoutArgs [4][]byte
	NumCopyouts int
)

// Semihosting reports whether the host answers semihosting calls.
func Semihosting() bool { return semihosting }

// traceBootarg takes gometal.trace=PATH.
func traceBootarg(path []byte) {
	if len(path) == 0 || len(path) >= len(traceName) {
		Puts("gometal: gometal.trace= needs a host path shorter than 512 bytes; not tracing\n")
		return
	}
	traceNameLen = copy(traceName[:], path)
	traceName[traceNameLen] = 0
	trace.Enable()
}

// writeTrace writes the rings to the host file, if tracing is on. Other
// cores may still record for an instant after Disable; their last event
// may then be torn, which the reader tolerates as one bad event.
func writeTrace() {
	if !trace.On() || !semihosting {
		return
	}
	trace.Disable()
	trace.StampAll()
	f, ok := CreateHostFile(&traceName[0], traceNameLen)
	if !ok {
		Puts("gometal: cannot create the trace file on the host\n")
		return
	}
	cores := onlineCores()
	copy(traceHeader.Magic[:], trace.Magic)
	traceHeader.Version = trace.Version
	traceHeader.Cores = uint32(cores)
	traceHeader.Freq = timer.Freq()
	for i := 0; i < cores; i++ {
		first, second, n := trace.Ring(i)
		traceCores[i] = trace.CoreHeader{Written: n, Kept: uint64(len(first) + len(second))}
	}
	f.Write(unsafe.Pointer(&traceHeader), uint64(unsafe.Sizeof(traceHeader)))
	f.Write(unsafe.Pointer(&traceCores[0]), uint64(cores)*uint64(unsafe.Sizeof(traceCores[0])))
	for i := 0; i < cores; i++ {
		first, second, _ := trace.Ring(i)
		writeEvents(&f, first)
		writeEvents(&f, second)
	}
	if !f.Close() {
		Puts("gometal: writing the trace file on the host failed\n")
	}
}

func writeEvents(f *HostFile, ev []trace.Event) {
	if len(ev) > 0 {
		f.Write(unsafe.Pointer(&ev[0]), uint64(len(ev))*trace.EventSize)
	}
}
