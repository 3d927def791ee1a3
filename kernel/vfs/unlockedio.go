package vfs

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Reads and writes without the kernel lock, of the objects that have a
// lock of their own (sched.RankObject): an anonymous pipe (its mu) and
// an eventfd (its mu). Two threads moving bytes through two pipes on two
// cores no longer take turns (the scaling figures of make bench), and an
// eventfd written to wake another core's epoll_pwait costs no kernel
// lock either. A call that would block waits without the kernel lock
// too (IOWait: the caller blocks on the object's queue, as a futex wait
// does), and Notify's Retry brings it back here. What may not happen
// without the kernel lock is left to the locked way, before anything
// has changed: faulting an app page in, allocating a ring page, SIGPIPE.
// A FIFO's pipe, a socket's, and a pipe a splice holds (Hold) go the
// locked way whole. The app's memory is pinned for the call
// (mm.Space.Pin), and every byte it copies is checked present first.

const (
	// IOLocked is TryIO's "take the locked way".
	IOLocked = ^uint64(0)
	// IOWait is TryIO's "block on the object's queue": for the events
	// IOEvents names, unless it was notified since gen.
	IOWait = ^uint64(1)
)

// TryIO is read(2) (write false) or write(2) of n bytes at buf on
// description f for thread t, on core, answered without the kernel
// lock if f is one of the objects above and the call needs none of
// what the locked way is for. It returns the call's result, IOLocked
// when the locked way must answer (nothing has moved then, except for
// a blocking pipe write that moved part of its buffer, which leaves
// that count in t.Progress with t.Retried set, as a write woken by
// Retry has it, so that the locked way's Write goes on from there), or
// IOWait with the queue's count gen read before the try
// (sched.BlockOnGen), a write's count so far in t.Progress. The caller
// holds a reference to f.
func TryIO(t *sched.Thread, core int, f *File, buf uintptr, n uint64, write bool) (r uint64, gen uint32) {
	r = IOLocked
	if usermem.Cur().Pin(core) {
		switch impl := f.Impl.(type) {
		case *pipeEnd:
			if !impl.both && impl.write == write { // else EBADF, or a FIFO opened O_RDWR
				r, gen = impl.p.tryIO(t, f, buf, n, write)
			}
		case *Eventfd:
			r, gen = impl.tryIO(f, buf, n, write)
		}
		usermem.Cur().Unpin(core)
	}
	switch r {
	case IOLocked:
		atomic.AddUint64(&UnlockedIOStats.Locked, 1)
	case IOWait:
		atomic.AddUint64(&UnlockedIOStats.Waits, 1)
	default:
		atomic.AddUint64(&UnlockedIOStats.Unlocked, 1)
		t.Progress, t.Retried = 0, false // the call is over
	}
	return r, gen
}

// tryIO is TryIO on pipe p, with the app's memory pinned.
func (p *Pipe) tryIO(t *sched.Thread, f *File, buf uintptr, n uint64, write bool) (r uint64, gen uint32) {
	gen = p.W.Q.Gen()
	p.lock()
	r = IOLocked
	if p.anonymous() && p.holds == 0 {
		if write {
			r = p.tryWrite(t, f, buf, n)
		} else {
			r = p.tryRead(f, buf, n)
		}
	}
	p.mu.Unlock()
	return r, gen
}

// anonymous reports whether p is a pipe(2)'s: neither a FIFO's nor a
// socket's, whose extra state is the kernel lock's.
func (p *Pipe) anonymous() bool { return p.tag == 0 && p.ReadOwner == nil && p.WriteOwner == nil }

// IOEvents are the events a read (write false) or write waits for
// after IOWait.
func IOEvents(write bool) uint32 {
	if write {
		return unix.EPOLLOUT | unix.EPOLLERR | unix.EPOLLHUP
	}
	return unix.EPOLLIN | unix.EPOLLERR | unix.EPOLLHUP
}

// tryRead is TryIO's read, with p.mu held and the app's memory
// pinned.
func (p *Pipe) tryRead(f *File, buf uintptr, n uint64) uint64 {
	if n == 0 {
		return 0
	}
	if p.n == 0 {
		switch {
		case p.writers == 0:
			return 0 // end of file
		case f.Nonblocking():
			return errAgain
		}
		return IOWait
	}
	if !usermem.Cur().Present(buf, uintptr(min(n, uint64(p.n))), mm.AccessWrite) {
		return IOLocked // fault the buffer in, or EFAULT
	}
	got, _ := p.Take(buf, n)
	return got
}

// tryWrite is TryIO's write, with p.mu held and the app's memory
// pinned.
func (p *Pipe) tryWrite(t *sched.Thread, f *File, buf uintptr, n uint64) uint64 {
	if p.readers == 0 {
		return IOLocked // EPIPE and SIGPIPE
	}
	done := uint64(0)
	if t.Retried {
		done = t.Progress
	}
	if done >= n {
		return IOLocked
	}
	if p.atomicWaits(n - done) {
		if f.Nonblocking() {
			return errAgain
		}
		t.Progress, t.Retried = done, false
		return IOWait
	}
	if want := min(n-done, uint64(p.Room())); want > 0 {
		if !usermem.Cur().Present(buf+uintptr(done), uintptr(want), mm.AccessRead) {
			return IOLocked
		}
		put, _ := p.putFrom(buf+uintptr(done), want, false)
		if put == 0 {
			return IOLocked // a ring page to allocate
		}
		done += put
		if done == n || f.Nonblocking() {
			return done
		}
		if put < want {
			// A ring page to allocate for the rest: the locked way
			// goes on from here.
			t.Progress, t.Retried = done, true
			return IOLocked
		}
	} else if f.Nonblocking() {
		return errAgain
	}
	// Full: wait for room, with what moved so far (a signal ends the
	// wait with that count).
	t.Progress, t.Retried = done, false
	return IOWait
}

// UnlockedIOStats counts the calls TryIO answered (Unlocked), those
// it left to the locked way (Locked) and those that waited (Waits).
var UnlockedIOStats struct{ Unlocked, Locked, Waits uint64 }

// ObjectLockCounts sums the contention counters of every pipe's and
// eventfd's lock, for the stats.
func ObjectLockCounts() cpu.LockCounts {
	var c cpu.LockCounts
	for i := range pipes {
		c = c.Plus(pipes[i].mu.LockCounts)
	}
	for i := range eventfds {
		c = c.Plus(eventfds[i].mu.LockCounts)
	}
	return c
}
