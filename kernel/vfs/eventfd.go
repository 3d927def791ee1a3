package vfs

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// eventfd (eventfd(2)): a 64-bit counter as a file. A write adds to it, a
// read takes it all (or 1 in semaphore mode); a read of zero, or a write
// that would overflow it, answers EAGAIN (and waits, when blocking). The
// Go runtime writes one to break a netpoll wait (netpollBreak).
//
// The counter belongs to the open-file description (eventfd(2) creates
// one; dup shares it), so eventfds are kept in a table indexed like Files.

// Eventfd is one eventfd's counter and waiters. The counter is under
// mu: read and write run without the kernel lock (unlockedio.go) as well
// as with it.
type Eventfd struct {
	Base
	W         Waitable
	mu        cpu.Spinlock
	count     uint64
	semaphore bool
}

var eventfds [MaxFiles]Eventfd

// eventfdSize is the size of what read and write move: a uint64.
const eventfdSize = 8

// eventfdMax is the largest count (0xfffffffffffffffe): a write that
// would reach 2^64-1 waits.
const eventfdMax = ^uint64(0) - 1

// NewEventfd returns a description for a new eventfd with count initval,
// or -1 when the table is full.
func NewEventfd(initval uint64, semaphore bool, flags uint32) int32 {
	i := free()
	if i < 0 {
		return -1
	}
	e := &eventfds[i]
	// The lock's counters outlive the eventfd: the stats sum them.
	*e = Eventfd{count: initval, semaphore: semaphore,
		mu: cpu.Spinlock{Name: "eventfd", Rank: sched.RankObject, LockCounts: e.mu.LockCounts}}
	take(i, e, unix.O_RDWR|flags)
	return i
}

func (e *Eventfd) Read(f *File, buf uintptr, n uint64, off int64) uint64 {
	if n < eventfdSize {
		return Err(unix.EINVAL)
	}
	sched.LockObject(&e.mu)
	r := e.read(buf)
	e.mu.Unlock()
	return r
}

// read takes the count (or 1) into the app's buffer at buf, or answers
// EAGAIN at zero; e.mu is held.
func (e *Eventfd) read(buf uintptr) uint64 {
	if e.count == 0 {
		return errAgain
	}
	v := e.count
	if e.semaphore {
		v = 1
	}
	if !usermem.WriteU64(buf, v) {
		return Err(unix.EFAULT)
	}
	e.count -= v
	Notify(&e.W, unix.EPOLLOUT)
	return eventfdSize
}

func (e *Eventfd) Write(f *File, buf uintptr, n uint64, off int64) uint64 {
	if n < eventfdSize {
		return Err(unix.EINVAL)
	}
	sched.LockObject(&e.mu)
	r := e.write(buf)
	e.mu.Unlock()
	return r
}

// write adds the app's value at buf to the count, or answers EAGAIN
// where it would overflow; e.mu is held.
func (e *Eventfd) write(buf uintptr) uint64 {
	v, ok := usermem.ReadU64(buf)
	if !ok {
		return Err(unix.EFAULT)
	}
	if v == ^uint64(0) {
		return Err(unix.EINVAL)
	}
	if v > eventfdMax-e.count {
		return errAgain
	}
	e.count += v
	// A write that wakes an epoll waiter is how the Go runtime breaks a
	// netpoll wait (netpollBreak): count those.
	woken := atomic.LoadUint64(&Stats.EpollWoken)
	Notify(&e.W, unix.EPOLLIN)
	if atomic.LoadUint64(&Stats.EpollWoken) > woken {
		atomic.AddUint64(&Stats.Breaks, 1)
	}
	return eventfdSize
}

// tryIO is TryIO on eventfd e, with the app's memory pinned: read and
// write as ever, with the app's eight bytes checked present first, and
// a call that would block waiting (IOWait) unless f is non-blocking.
func (e *Eventfd) tryIO(f *File, buf uintptr, n uint64, write bool) (r uint64, gen uint32) {
	if n < eventfdSize {
		return Err(unix.EINVAL), 0
	}
	acc := mm.AccessWrite
	if write {
		acc = mm.AccessRead
	}
	gen = e.W.Q.Gen()
	r = IOLocked
	if usermem.Cur().Present(buf, eventfdSize, acc) {
		sched.LockObject(&e.mu)
		if write {
			r = e.write(buf)
		} else {
			r = e.read(buf)
		}
		e.mu.Unlock()
	}
	if r == errAgain && !f.Nonblocking() {
		r = IOWait
	}
	return r, gen
}

func (e *Eventfd) Readiness(f *File) uint32 {
	var r uint32
	if e.count > 0 {
		r |= unix.EPOLLIN
	}
	if e.count < eventfdMax {
		r |= unix.EPOLLOUT
	}
	return r
}

func (e *Eventfd) Waitable() *Waitable { return &e.W }
func (e *Eventfd) Kind() Kind          { return KindEventfd }
