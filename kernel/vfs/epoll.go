package vfs

import (
	"sync/atomic"
	"unsafe"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// epoll (epoll(7)), the Go runtime's netpoller. An instance keeps a list
// of registrations (interests); each is also on the watch list of the
// object it watches (Waitable.watchers), so that the object's Notify
// reaches exactly the instances watching it, and an instance's waiters
// sleep on the instance's own Waitable until then. Nothing polls and
// nothing scans every instance: an interrupt that makes the console
// readable touches the console's watchers and nothing else.

const (
	// MaxEpolls bounds the instances: every Go process makes one (its
	// netpoller), and a thread waiting in ppoll or pselect6 has one of
	// its own (poll.go).
	MaxEpolls = 256
	// MaxInterests bounds the registrations of all instances together
	// (Go registers every pollable descriptor with its one instance).
	MaxInterests = 4096
)

// interest is one registration: descriptor fd as it was when added, and
// the open-file description it referred to. Like Linux's epitem it is
// keyed by both, and it lasts until the description is released (the
// last of its descriptors closed), not the descriptor.
type interest struct {
	ep      int32 // index into epolls
	fd      int32
	file    int32 // index into Files
	events  uint32
	data    uint64
	lastGen uint32 // the object's Gen when last reported (EPOLLET)
	enext   int32  // 1 + next interest of the same instance
	wnext   int32  // 1 + next interest watching the same object
	used    bool
}

// Epoll is an instance: its registrations and the callers waiting in
// epoll_pwait.
type Epoll struct {
	Base
	W    Waitable
	list int32 // 1 + first interest
	used bool
	// n counts the registrations, and locked those whose object needs
	// the kernel lock to be read (all but anonymous pipes and
	// eventfds): with none, epoll_pwait may run without it
	// (TryCollect). Both change under WatchLock.
	n, locked int32
}

var (
	epolls    [MaxEpolls]Epoll
	interests [MaxInterests]interest
)

// NewEpoll returns a new, empty instance, or nil.
func NewEpoll() *Epoll {
	for i := range epolls {
		if !epolls[i].used {
			epolls[i] = Epoll{used: true}
			return &epolls[i]
		}
	}
	return nil
}

func (ep *Epoll) index() int32 {
	return int32((uintptr(unsafe.Pointer(ep)) - uintptr(unsafe.Pointer(&epolls[0]))) / unsafe.Sizeof(epolls[0]))
}

func (ep *Epoll) Waitable() *Waitable { return &ep.W }
func (ep *Epoll) Kind() Kind          { return KindEpoll }

// Release drops every registration of the instance (f may be nil: an
// instance that never got a description).
func (ep *Epoll) Release(f *File) {
	ep.Clear()
	ep.used = false
}

// Clear drops every registration of the instance and keeps it.
func (ep *Epoll) Clear() {
	for ep.list != 0 {
		ep.remove(&interests[ep.list-1])
	}
}

// Pollable says whether epoll can watch f: it must have a Waitable, and
// must not be an epoll instance itself (gometal does not nest them, so a
// Notify can never loop).
func Pollable(f *File) bool {
	return f.Impl.Waitable() != nil && f.Impl.Kind() != KindEpoll
}

// find returns the registration of (fd, file), or nil.
func (ep *Epoll) find(fd, file int32) *interest {
	for i := ep.list; i != 0; i = interests[i-1].enext {
		if it := &interests[i-1]; it.fd == fd && it.file == file {
			return it
		}
	}
	return nil
}

// alwaysPolled are the events every registration reports, asked for or
// not (epoll_ctl(2); do_epoll_ctl adds them). A one-shot registration
// that fired has no events at all, not even these, until EPOLL_CTL_MOD
// re-arms it, as Linux's ep_poll_callback queues nothing for it.
const alwaysPolled = unix.EPOLLERR | unix.EPOLLHUP

// Ctl is epoll_ctl on descriptor fd, whose description is file.
func (ep *Epoll) Ctl(op int, fd int32, file int32, ev unix.EpollEvent) uint64 {
	f := &Files[file]
	it := ep.find(fd, file)
	data := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
	switch op {
	case unix.EPOLL_CTL_ADD:
		if it != nil {
			return Err(unix.EEXIST)
		}
		w := f.Impl.Waitable()
		for i := range interests {
			if interests[i].used {
				continue
			}
			sched.LockObject(&sched.WatchLock)
			interests[i] = interest{ep: ep.index(), fd: fd, file: file, events: ev.Events | alwaysPolled, data: data,
				lastGen: w.Q.Gen() - 1, enext: ep.list, wnext: w.watchers, used: true}
			ep.list = int32(i) + 1
			ep.n++
			if !unlockedObject(f) {
				ep.locked++
			}
			atomic.StoreInt32(&w.watchers, int32(i)+1)
			sched.WatchLock.Unlock()
			// Notify reads the list before it takes WatchLock: the
			// readiness asked below comes after the link is seen by
			// every core, or a change it missed would reach nobody.
			sched.Fence()
			ep.wakeIfReady(&interests[i])
			return 0
		}
		return Err(unix.ENOSPC)
	case unix.EPOLL_CTL_MOD:
		if it == nil {
			return Err(unix.ENOENT)
		}
		sched.LockObject(&sched.WatchLock)
		it.events, it.data, it.lastGen = ev.Events|alwaysPolled, data, f.Impl.Waitable().Q.Gen()-1
		sched.WatchLock.Unlock()
		ep.wakeIfReady(it)
		return 0
	case unix.EPOLL_CTL_DEL:
		if it == nil {
			return Err(unix.ENOENT)
		}
		ep.remove(it)
		return 0
	}
	return Err(unix.EINVAL)
}

// wakeIfReady wakes the instance's waiters when registration it already
// has events.
func (ep *Epoll) wakeIfReady(it *interest) {
	f := &Files[it.file]
	if f.Impl.Readiness(f)&it.events != 0 {
		Stats.EpollWoken += uint64(ep.W.Q.Notify(unix.EPOLLIN))
	}
}

// remove unlinks registration it from its instance and from the watch
// list of its object, and frees it.
func (ep *Epoll) remove(it *interest) {
	me := int32(indexOfInterest(it)) + 1
	f := &Files[it.file]
	w := f.Impl.Waitable()
	sched.LockObject(&sched.WatchLock)
	unlink(&ep.list, me, func(i int32) *int32 { return &interests[i-1].enext })
	unlink(&w.watchers, me, func(i int32) *int32 { return &interests[i-1].wnext })
	ep.n--
	if !unlockedObject(f) {
		ep.locked--
	}
	*it = interest{}
	sched.WatchLock.Unlock()
}

func indexOfInterest(it *interest) uintptr {
	return (uintptr(unsafe.Pointer(it)) - uintptr(unsafe.Pointer(&interests[0]))) / unsafe.Sizeof(interests[0])
}

// unlink removes me from the singly linked list at head, whose links
// next returns.
func unlink(head *int32, me int32, next func(int32) *int32) {
	for p := head; *p != 0; p = next(*p) {
		if *p == me {
			*p = *next(me)
			return
		}
	}
}

// forgetFile drops description file from every instance's list: it is
// being released.
func forgetFile(file int32) {
	w := Files[file].Impl.Waitable()
	if w == nil {
		return
	}
	for i := w.watchers; i != 0; {
		it := &interests[i-1]
		i = it.wnext
		if it.file == file {
			epolls[it.ep].remove(it)
		}
	}
}

// collect writes up to max ready events to the app at buf; WatchLock
// is held (the registrations' EPOLLET and EPOLLONESHOT state changes
// here, and an epoll_pwait without the kernel lock may collect too).
func (ep *Epoll) collect(buf uintptr, max int) (int, bool) {
	// lab:poller begin
	n := 0
	for i := ep.list; i != 0 && n < max; i = interests[i-1].enext {
		it := &interests[i-1]
		f := &Files[it.file]
		ready := f.Impl.Readiness(f) & it.events
		if ready == 0 {
			continue
		}
		gen := f.Impl.Waitable().Q.Gen()
		if it.events&unix.EPOLLET != 0 && gen == it.lastGen {
			continue
		}
		ev := unix.EpollEvent{Events: ready, Fd: int32(uint32(it.data)), Pad: int32(uint32(it.data >> 32))}
		if !usermem.CopyOut(buf+uintptr(n)*unsafe.Sizeof(ev), usermem.BytesOf(unsafe.Pointer(&ev), unsafe.Sizeof(ev))) {
			return n, false
		}
		it.lastGen = gen
		if it.events&unix.EPOLLONESHOT != 0 {
			it.events = 0
		}
		n++
	}
	return n, true
	// lab:poller stub
	// // TODO(lab poller): walk ep.list; report each registration whose
	// // file is ready (Impl.Readiness) for the events it asked for, once
	// // per change for EPOLLET (Waitable().Q.Gen()), once for EPOLLONESHOT.
	// _, _ = usermem.CopyOut, unsafe.Sizeof(0)
	// return 0, true
	// lab:poller end
}

// MaxEvents is Linux's EP_MAX_EVENTS (INT_MAX / sizeof(struct
// epoll_event)), the largest maxevents it accepts.
const MaxEvents = 0x7FFFFFFF / 12

// EpollStats says how epoll waits ended: events ready at once, polls
// (timeout 0) with none, and waits that blocked.
var EpollStats struct {
	Ready, Polls, Blocked uint64
	// Unlocked counts the collects made without the kernel lock.
	Unlocked uint64
}

// Wait is epoll_pwait for thread t: the ready events at once, or, unless
// poll is set (a zero timeout), a wait on the instance until a watched
// object notifies (Notify), deadline passes (a counter value, 0: none) or
// a signal interrupts it. A wait that a Notify ended runs the call again;
// the caller then passes the deadline of the first run
// (t.RetryDeadline), so that wake-ups without events for this instance
// do not stretch the timeout.
//
// A watched pipe may notify without the kernel lock (unlockedio.go) between
// the collect that found nothing and the wait, so the wait is made only
// if the instance was not notified since collect began (BlockOnGen),
// and collect runs again otherwise.
func (ep *Epoll) Wait(t *sched.Thread, buf uintptr, max int, poll bool, deadline uint64) uint64 {
	for {
		gen := ep.W.Q.Gen()
		sched.LockObject(&sched.WatchLock)
		n, ok := ep.collect(buf, max)
		sched.WatchLock.Unlock()
		if !ok {
			return Err(unix.EFAULT)
		}
		if n > 0 {
			atomic.AddUint64(&EpollStats.Ready, 1)
			return uint64(n)
		}
		if poll {
			atomic.AddUint64(&EpollStats.Polls, 1)
			return 0
		}
		if sched.BlockOnGen(t, &ep.W.Q, sched.WaitEpoll, unix.EPOLLIN, deadline, 0, gen) {
			atomic.AddUint64(&EpollStats.Blocked, 1)
			return 0
		}
	}
}

// unlockedObject reports whether f's object may be read without the
// kernel lock (TryIO's objects: an anonymous pipe's end, an eventfd),
// so that its Readiness may be asked without it.
func unlockedObject(f *File) bool {
	switch impl := f.Impl.(type) {
	case *Eventfd:
		return true
	case *pipeEnd:
		return !impl.both && impl.p.anonymous()
	}
	return false
}

// TryCollect is epoll_pwait's collect without the kernel lock, on
// core, when every registration of ep is on an object that allows it
// (unlockedObject) and the app's buffer for the events is present: ok
// false means the locked way (Wait). gen is the instance's count read
// before, for a wait that follows (sched.BlockOnGen).
func (ep *Epoll) TryCollect(core int, buf uintptr, max int) (n int, gen uint32, ok bool) {
	gen = ep.W.Q.Gen()
	if !usermem.Cur().Pin(core) {
		return 0, 0, false
	}
	sched.LockObject(&sched.WatchLock)
	size := uintptr(min(max, int(ep.n))) * unsafe.Sizeof(unix.EpollEvent{})
	if ep.used && ep.locked == 0 && usermem.Cur().Present(buf, size, mm.AccessWrite) {
		n, ok = ep.collect(buf, max)
	}
	sched.WatchLock.Unlock()
	usermem.Cur().Unpin(core)
	if ok {
		if n > 0 {
			atomic.AddUint64(&EpollStats.Ready, 1)
		}
		atomic.AddUint64(&EpollStats.Unlocked, 1)
	}
	return n, gen, ok
}
