package linux

import (
	"sync/atomic"

	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// unlockedIO answers read(2) or write(2) (write) without the kernel lock
// when the descriptor is an end of an anonymous pipe or an eventfd and
// the call needs none of what the kernel lock is for (vfs.TryIO says
// what); it reports whether it answered, and whether the thread now
// waits. The descriptor is looked up with a reference of this call's
// own (refFD), so a close on another core meanwhile leaves the
// description alive until the call is over; if that close left this
// reference the last (unrefFD), a call that would wait goes the locked
// way (to find the descriptor closed).
func unlockedIO(c *sched.CPU, t *sched.Thread, f *sched.Frame, write bool) (answered, blocked bool) {
	fi := refFD(f.X[0])
	if fi < 0 {
		return false, false // EBADF, the locked way
	}
	fl := &vfs.Files[fi]
	r, gen := vfs.TryIO(t, c.ID, fl, uintptr(f.X[1]), f.X[2], write)
	var q *sched.Queue
	kind := fl.Impl.Kind()
	if r == vfs.IOWait {
		q = &fl.Impl.Waitable().Q // before the reference goes
	}
	if unrefFD(c, fi) {
		q = nil
	}
	switch {
	case r == vfs.IOWait && q != nil && unlockedWait(t, f, q, sched.WaitFile, vfs.IOEvents(write), 0, gen):
		atomic.AddUint64(&vfs.Stats.Waits[kind], 1)
		return true, true
	case r == vfs.IOWait, r == vfs.IOLocked:
		if t.Progress > 0 {
			t.Retried = true // the locked way's Write goes on from there
		}
		return false, false
	}
	f.X[0] = r
	return true, false
}

// unlockedWait blocks t on an object's queue q without the kernel
// lock, as a lock-free futex wait blocks (lockFreeWait): unless a
// signal is pending for it, checked under q's lock and this core's
// state lock (sched.LockQueueToBlock; a signal's sender decides under
// every core's, signalWake), or the object was notified since its
// count was gen. It sets up what syscall sets for every call, for the
// signal code: a signal that ends the wait restarts the call from
// these, or ends it with the bytes a write had moved (t.Progress). If
// it blocked, it returns with this core's state lock held
// (kernel.Personality.LockFree).
func unlockedWait(t *sched.Thread, f *sched.Frame, q *sched.Queue, kind sched.WaitKind, events uint32, deadline uint64, gen uint32) bool {
	beginCall(t, f)
	sched.LockQueueToBlock(q)
	if signalsPending(t) || !sched.BlockOnGenLocked(t, q, kind, events, deadline, 0, gen) {
		sched.UnlockState()
		return false
	}
	t.Retried = false // this run is over; a Retry sets it again
	return true       // the core's state lock held: it schedules in this section
}

// unlockedEpollWait answers epoll_pwait without the kernel lock when
// every registration of the instance is on an object read without it
// (vfs.Epoll.TryCollect), and no signal mask is passed (Go passes
// none); it reports whether it answered, and whether the thread now
// waits. Anything else (bad arguments included) goes the locked way.
func unlockedEpollWait(c *sched.CPU, t *sched.Thread, f *sched.Frame) (answered, blocked bool) {
	max := int64(f.X[2])
	if f.X[4] != 0 || max <= 0 || max > vfs.MaxEvents {
		return false, false
	}
	fi := refFD(f.X[0])
	if fi < 0 {
		return false, false
	}
	fl := &vfs.Files[fi]
	ep, isEpoll := fl.Impl.(*vfs.Epoll)
	var n int
	var gen uint32
	ok := false
	if isEpoll {
		n, gen, ok = ep.TryCollect(c.ID, uintptr(f.X[1]), int(max))
	}
	if unrefFD(c, fi) {
		ok = ok && n > 0 // events taken are answered; a wait goes the locked way
	}
	if !ok {
		return false, false
	}
	deadline, poll := epollDeadline(t, epollTimeout(f.X[3]), callCounter(false)) // no lock held
	switch {
	case n == 0 && !poll:
		if !unlockedWait(t, f, &ep.W.Q, sched.WaitEpoll, unix.EPOLLIN, deadline, gen) {
			return false, false // collect again, the locked way
		}
		atomic.AddUint64(&vfs.EpollStats.Blocked, 1)
		return true, true
	case n == 0:
		atomic.AddUint64(&vfs.EpollStats.Polls, 1)
	}
	t.Retried = false
	f.X[0] = uint64(n)
	return true, false
}
