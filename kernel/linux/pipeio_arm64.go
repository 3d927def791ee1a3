package linux

import (
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"
)

// pipeIO answers read(2) or write(2) (write) without the kernel lock
// when the descriptor is an end of an anonymous pipe and the call needs
// none of what the kernel lock is for (vfs.TryPipeIO says what); it
// reports whether it answered. The descriptor is looked up under
// sched.FDLock with a reference of this call's own, so a close on
// another core meanwhile leaves the description alive until the call
// is over; if that close left this reference the last, the release
// (which may free the pipe) is made under the kernel lock, taken here
// with no other lock held.
func pipeIO(c *sched.CPU, t *sched.Thread, f *sched.Frame, write bool) bool {
	fi := refFD(f.X[0])
	if fi < 0 {
		return false // EBADF, the locked way
	}
	r := vfs.TryPipeIO(t, c.ID, &vfs.Files[fi], uintptr(f.X[1]), f.X[2], write)
	if !vfs.PutRef(fi) {
		sched.KernelLock.Lock(c.ID)
		vfs.DecRef(fi)
		sched.KernelLock.Unlock()
	}
	if r == vfs.PipeIOLocked {
		return false
	}
	f.X[0] = r
	return true
}
