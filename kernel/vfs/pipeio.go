package vfs

import (
	"sync/atomic"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Reads and writes of an anonymous pipe without the kernel lock: the
// first object whose system calls run under a lock of their own (the
// pipe's mu, sched.RankObject), so that two threads moving bytes through
// two pipes on two cores no longer take turns (the scaling figures of
// make bench). A call that would block waits without the kernel lock
// too (PipeIOWait: the caller blocks on the pipe's queue, as a futex
// wait does), and Notify's Retry brings it back here. What may not
// happen without the kernel lock is left to the locked way, before
// anything has changed: faulting an app page in, allocating a ring
// page, SIGPIPE. A FIFO's pipe, a socket's, and a pipe a splice holds
// (Hold) go the locked way whole.

const (
	// PipeIOLocked is TryPipeIO's "take the locked way".
	PipeIOLocked = ^uint64(0)
	// PipeIOWait is TryPipeIO's "block on the pipe's queue": for the
	// events PipeIOEvents names, unless it was notified since gen.
	PipeIOWait = ^uint64(1)
)

// TryPipeIO is read(2) (write false) or write(2) of n bytes at buf on
// description f for thread t, on core, answered without the kernel
// lock if f is an end of an anonymous pipe and the call needs none of
// what the locked way is for (above). It returns the call's result,
// PipeIOLocked when the locked way must answer (nothing has moved
// then, except for a blocking write that moved part of its buffer,
// which leaves that count in t.Progress with t.Retried set, as a write
// woken by Retry has it, so that the locked way's Write goes on from
// there), or PipeIOWait with the queue's count gen read before the try
// (sched.BlockOnGen), a write's count so far in t.Progress. The caller
// holds a reference to f.
func TryPipeIO(t *sched.Thread, core int, f *File, buf uintptr, n uint64, write bool) (r uint64, gen uint32) {
	e, ok := f.Impl.(*pipeEnd)
	if !ok || e.both || e.write != write {
		return PipeIOLocked, 0 // EBADF and FIFOs opened O_RDWR: the locked way
	}
	p := e.p
	gen = p.W.Q.Gen()
	p.lock()
	r = PipeIOLocked
	if p.tag == 0 && p.ReadOwner == nil && p.WriteOwner == nil && p.holds == 0 {
		if usermem.App.Pin(core) {
			if write {
				r = p.tryWrite(t, f, buf, n)
			} else {
				r = p.tryRead(f, buf, n)
			}
			usermem.App.Unpin(core)
		}
	}
	p.mu.Unlock()
	switch r {
	case PipeIOLocked:
		atomic.AddUint64(&PipeIOStats.Locked, 1)
	case PipeIOWait:
		atomic.AddUint64(&PipeIOStats.Waits, 1)
	default:
		atomic.AddUint64(&PipeIOStats.Unlocked, 1)
		t.Progress, t.Retried = 0, false // the call is over
	}
	return r, gen
}

// PipeIOEvents are the events a read (write false) or write of a pipe
// waits for after PipeIOWait.
func PipeIOEvents(write bool) uint32 {
	if write {
		return unix.EPOLLOUT | unix.EPOLLERR | unix.EPOLLHUP
	}
	return unix.EPOLLIN | unix.EPOLLERR | unix.EPOLLHUP
}

// tryRead is TryPipeIO's read, with p.mu held and the app's memory
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
		return PipeIOWait
	}
	if !usermem.App.Present(buf, uintptr(min(n, uint64(p.n))), mm.AccessWrite) {
		return PipeIOLocked // fault the buffer in, or EFAULT
	}
	got, _ := p.Take(buf, n)
	return got
}

// tryWrite is TryPipeIO's write, with p.mu held and the app's memory
// pinned.
func (p *Pipe) tryWrite(t *sched.Thread, f *File, buf uintptr, n uint64) uint64 {
	if p.readers == 0 {
		return PipeIOLocked // EPIPE and SIGPIPE
	}
	done := uint64(0)
	if t.Retried {
		done = t.Progress
	}
	if done >= n {
		return PipeIOLocked
	}
	if want := min(n-done, uint64(p.Room())); want > 0 {
		if !usermem.App.Present(buf+uintptr(done), uintptr(want), mm.AccessRead) {
			return PipeIOLocked
		}
		put, _ := p.putFrom(buf+uintptr(done), want, false)
		if put == 0 {
			return PipeIOLocked // a ring page to allocate
		}
		done += put
		if done == n || f.Nonblocking() {
			return done
		}
		if put < want {
			// A ring page to allocate for the rest: the locked way
			// goes on from here.
			t.Progress, t.Retried = done, true
			return PipeIOLocked
		}
	} else if f.Nonblocking() {
		return errAgain
	}
	// Full: wait for room, with what moved so far (a signal ends the
	// wait with that count).
	t.Progress, t.Retried = done, false
	return PipeIOWait
}

// PipeIOStats counts the calls TryPipeIO answered (Unlocked), those
// it left to the locked way (Locked) and those that waited (Waits).
var PipeIOStats struct{ Unlocked, Locked, Waits uint64 }

// PipeLockCounts sums the contention counters of every pipe's lock
// (cpu.Spinlock's), for the stats: taken, found held, ticks waited.
func PipeLockCounts() (taken, contended, waitTicks uint64) {
	for i := range pipes {
		l := &pipes[i].mu
		taken += l.Taken
		contended += l.Contended
		waitTicks += l.WaitTicks
	}
	return taken, contended, waitTicks
}
