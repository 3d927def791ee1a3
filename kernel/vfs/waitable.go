package vfs

import (
	"sync/atomic"

	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Waitable is the part of an object that callers wait on and epoll
// watches: the threads blocked on it (whose queue also counts the
// notifications: Q.Gen, which EPOLLET compares) and the epoll
// registrations watching it. The watch list changes under the kernel
// lock and sched.WatchLock both, and a Notify made without the kernel
// lock (a pipe's, TryIO) walks it under WatchLock.
type Waitable struct {
	Q        sched.Queue
	watchers int32 // 1 + interest index, linked through interest.wnext
}

// Notify says that w's object changed in a way that may end waits for
// events (EPOLL* bits: what may now be possible). It is the one wake-up
// path: syscalls that change an object and interrupt handlers (the
// console's receive interrupt, a timerfd's alarm) call it alike. Blocked
// callers waiting for one of events run their call again (sched.Retry);
// every epoll instance watching the object whose registration now has
// events gets its own Notify, which wakes its epoll_pwait callers.
//
// The watch list is read once without WatchLock, and walked only if it
// is not empty: an EPOLL_CTL_ADD links under WatchLock and then (after
// a full barrier) asks the object's readiness itself, and this Notify
// loads the list after a full barrier too, so either this load sees
// the new registration or that readiness sees the change this Notify
// reports (Dekker's argument, as in mm.Space.Pin).
func Notify(w *Waitable, events uint32) { notify(w, events, false) }

// NotifySync is Notify from a waker that will most likely block on the
// answer (a pipe's reader or writer): its blocked callers are woken
// with sched's Queue.NotifySync, which may pull them onto the waker's
// core; the epoll instances watching w are woken as by Notify.
func NotifySync(w *Waitable, events uint32) { notify(w, events, true) }

func notify(w *Waitable, events uint32, sync bool) {
	atomic.AddUint64(&Stats.Notifies, 1)
	if sync {
		atomic.AddUint64(&Stats.Woken, uint64(w.Q.NotifySync(events)))
	} else {
		atomic.AddUint64(&Stats.Woken, uint64(w.Q.Notify(events)))
	}
	sched.Fence() // the change this reports, before the load below
	if atomic.LoadInt32(&w.watchers) == 0 {
		return
	}
	sched.LockObject(&sched.WatchLock)
	for i := w.watchers; i != 0; i = interests[i-1].wnext {
		it := &interests[i-1]
		f := &Files[it.file]
		if f.Impl.Readiness(f)&it.events != 0 {
			ep := &epolls[it.ep]
			atomic.AddUint64(&Stats.EpollWoken, uint64(ep.W.Q.Notify(unix.EPOLLIN)))
		}
	}
	sched.WatchLock.Unlock()
}

// Wait blocks thread t until f's object may have one of events (EPOLL*
// bits; EPOLLERR and EPOLLHUP always count), after an operation on it
// answered EAGAIN. It returns EAGAIN itself when f is non-blocking or the
// object never blocks; otherwise it returns 0 with t blocked, and the
// call runs again when the object notifies (Notify), which finds it ready
// or waits again. A signal ends the wait with EINTR or a restart, like
// every blocking call (the kernel's signal code, through sched.Wake).
func Wait(t *sched.Thread, f *File, events uint32) uint64 {
	w := f.Impl.Waitable()
	if w == nil || f.Nonblocking() {
		return errAgain
	}
	atomic.AddUint64(&Stats.Waits[f.Impl.Kind()], 1)
	sched.BlockOn(t, &w.Q, sched.WaitFile, events|unix.EPOLLERR|unix.EPOLLHUP, 0, 0)
	return 0
}

// WaitGen is Wait for a caller that read the object's Q.Gen before it
// tried the object (gen): blocked false with r 0 means the object
// notified since, and the caller tries it again instead of blocking
// (sched.BlockOnGen). A read or write of a pipe needs this, since the
// other end may be written without the kernel lock (unlockedIO).
func WaitGen(t *sched.Thread, f *File, events uint32, gen uint32) (r uint64, blocked bool) {
	w := f.Impl.Waitable()
	if w == nil || f.Nonblocking() {
		return errAgain, false
	}
	if !sched.BlockOnGen(t, &w.Q, sched.WaitFile, events|unix.EPOLLERR|unix.EPOLLHUP, 0, 0, gen) {
		return 0, false
	}
	atomic.AddUint64(&Stats.Waits[f.Impl.Kind()], 1)
	return 0, true
}

// Stats counts waits and wake-ups: waits per kind of file (one path for
// every kind, so a console, a pipe and a socket read all count here),
// Notify calls, callers woken, epoll waiters woken, and of those the
// ones an eventfd write woke (the runtime's netpollBreak).
var Stats counters

type counters struct {
	Waits      [NumKinds]uint64
	Notifies   uint64
	Woken      uint64
	EpollWoken uint64
	Breaks     uint64
}
