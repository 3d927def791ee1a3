package linux

import (
	"sync/atomic"

	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"
)

// pipeIO answers read(2) or write(2) (write) without the kernel lock
// when the descriptor is an end of an anonymous pipe and the call needs
// none of what the kernel lock is for (vfs.TryPipeIO says what); it
// reports whether it answered, and whether the thread now waits. The
// descriptor is looked up under sched.FDLock with a reference of this
// call's own, so a close on another core meanwhile leaves the
// description alive until the call is over; if that close left this
// reference the last, the release (which may free the pipe) is made
// under the kernel lock, taken here with no other lock held, and a call
// that would wait goes the locked way (to find the descriptor closed).
func pipeIO(c *sched.CPU, t *sched.Thread, f *sched.Frame, write bool) (answered, blocked bool) {
	fi := refFD(f.X[0])
	if fi < 0 {
		return false, false // EBADF, the locked way
	}
	fl := &vfs.Files[fi]
	r, gen := vfs.TryPipeIO(t, c.ID, fl, uintptr(f.X[1]), f.X[2], write)
	var q *sched.Queue
	if r == vfs.PipeIOWait {
		q = &fl.Impl.Waitable().Q // before the reference goes
	}
	if !vfs.PutRef(fi) {
		sched.KernelLock.Lock(c.ID)
		vfs.DecRef(fi)
		sched.KernelLock.Unlock()
		q = nil
	}
	switch {
	case r == vfs.PipeIOWait && q != nil && pipeWait(t, f, q, write, gen):
		return true, true
	case r == vfs.PipeIOWait, r == vfs.PipeIOLocked:
		if t.Progress > 0 {
			t.Retried = true // the locked way's Write goes on from there
		}
		return false, false
	}
	f.X[0] = r
	return true, false
}

// pipeWait blocks t on a pipe's queue q without the kernel lock, as a
// lock-free futex wait blocks (lockFreeWait): unless a signal is
// pending for it, checked under StateLock as a signal's sender decides
// (signalWake), or the pipe was notified since its count was gen. It
// sets up what syscall sets for every call, for the signal code: a
// signal that ends the wait restarts the call from these, or ends it
// with the bytes a write had moved (t.Progress).
func pipeWait(t *sched.Thread, f *sched.Frame, q *sched.Queue, write bool, gen uint32) bool {
	t.SysNr, t.OrigX0 = f.X[8], f.X[0]
	lx(t).Interrupted = false
	sched.LockState()
	ok := !signalsPending(t) && sched.BlockOnGenLocked(t, q, sched.WaitFile, vfs.PipeIOEvents(write), 0, 0, gen)
	sched.UnlockState()
	if ok {
		atomic.AddUint64(&vfs.Stats.Waits[vfs.KindPipe], 1)
	}
	return ok
}
