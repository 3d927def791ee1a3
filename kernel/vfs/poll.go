package vfs

import "golang.org/x/sys/unix"

// Waiting on several descriptors at once without an epoll descriptor
// (ppoll, pselect6): the thread gets an instance of its own, with no
// descriptor, registers each descriptor it polls in it just before it
// waits, and waits on the instance's queue, which any of the objects'
// Notify wakes (Linux's poll_wqueues does the same with a wait-queue
// entry per file). The registrations stay until the thread's next poll
// or its end; an object notifying a thread that no longer waits wakes
// nobody.

// PollInstance is the instance at index i (1 + i, as threads keep it; 0:
// none), made if there is none: nil when the table is full.
func PollInstance(i *int32) *Epoll {
	if *i != 0 {
		return &epolls[*i-1]
	}
	ep := NewEpoll()
	if ep != nil {
		*i = ep.index() + 1
	}
	return ep
}

// ReleasePollInstance frees the thread's instance (at its end).
func ReleasePollInstance(i *int32) {
	if *i != 0 {
		epolls[*i-1].Release(nil)
		*i = 0
	}
}

// Watch registers descriptor fd (description file) in ep for events.
func (ep *Epoll) Watch(fd, file int32, events uint32) {
	if Pollable(&Files[file]) {
		ep.Ctl(unix.EPOLL_CTL_ADD, fd, file, unix.EpollEvent{Events: events}) // a repeat is EEXIST, harmless
	}
}
