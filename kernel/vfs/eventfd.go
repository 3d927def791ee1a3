package vfs

import (
	"github.com/gometal/gometal/kernel/usermem"

	"golang.org/x/sys/unix"
)

// eventfd (eventfd(2)): a 64-bit counter as a file. A write adds to it, a
// read takes it all (or 1 in semaphore mode); a read of zero, or a write
// that would overflow it, answers EAGAIN (and waits, when blocking). The
// Go runtime writes one to break a netpoll wait (netpollBreak).
//
// The counter belongs to the open-file description (eventfd(2) creates
// one; dup shares it), so eventfds are kept in a table indexed like Files.

// Eventfd is one eventfd's counter and waiters.
type Eventfd struct {
	Base
	W         Waitable
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
	*e = Eventfd{count: initval, semaphore: semaphore}
	take(i, e, unix.O_RDWR|flags)
	return i
}

func (e *Eventfd) Read(f *File, buf uintptr, n uint64, off int64) uint64 {
	if n < eventfdSize {
		return Err(unix.EINVAL)
	}
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
	woken := Stats.EpollWoken
	Notify(&e.W, unix.EPOLLIN)
	if Stats.EpollWoken > woken {
		Stats.Breaks++
	}
	return eventfdSize
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
