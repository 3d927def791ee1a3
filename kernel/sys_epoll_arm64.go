package kernel

import (
	"unsafe"

	"gometal/sched"

	"golang.org/x/sys/unix"
)

// epoll, the Go runtime's netpoller: readiness of pollable fds (pipes,
// sockets, eventfds, timerfds, the console), timeouts, and an eventfd
// write to break the wait. Nothing polls: whatever changes an fd's
// readiness (a syscall, the UART's receive interrupt, a timerfd's alarm
// on a core's timer) calls epollNotify, which completes the waits that
// now have events. Regular files are not pollable: EPERM, as on Linux,
// which makes Go use blocking reads for them.

const (
	maxEpolls   = 8
	maxInterest = 1024 // Go registers every pollable fd with one instance
)

// interest is one registration: descriptor fd as it was when added, and
// the open-file description it referred to. Like Linux's epitem it is
// keyed by both, and it lasts until the description is released (the
// last of its descriptors closed), not the descriptor.
type interest struct {
	fd      int32
	file    int32 // index into files
	events  uint32
	data    uint64
	lastGen uint32 // fd's gen when last reported (EPOLLET)
	used    bool
}

type epollInst struct {
	used bool
	list [maxInterest]interest
}

var epolls [maxEpolls]epollInst

func sysEpollCreate1(t *sched.Thread, f *sched.Frame) uint64 {
	if f.X[0]&^unix.EPOLL_CLOEXEC != 0 {
		return errno(unix.EINVAL)
	}
	for i := range epolls {
		if !epolls[i].used {
			fd, fl := allocFD(0)
			if fl == nil {
				return errno(unix.EMFILE)
			}
			epolls[i] = epollInst{used: true}
			fl.kind = kindEpoll
			fl.ep = int32(i)
			fl.flags = unix.O_RDWR
			setCloexec(fd, f.X[0]&unix.EPOLL_CLOEXEC != 0)
			return uint64(fd)
		}
	}
	return errno(unix.ENOMEM)
}

func pollable(fl *file) bool {
	switch fl.kind {
	case kindEventfd, kindConsole, kindMemDev, kindPipeRead, kindPipeWrite, kindSocket, kindTimerfd:
		return true
	}
	return false
}

// readiness returns description fi's current EPOLL* bits.
func readiness(fi int32) uint32 {
	fl := &files[fi]
	switch fl.kind {
	case kindEventfd:
		r := uint32(unix.EPOLLOUT)
		if fl.count > 0 {
			r |= unix.EPOLLIN
		}
		return r
	case kindConsole:
		r := uint32(unix.EPOLLOUT)
		if rxLen() > 0 {
			r |= unix.EPOLLIN
		}
		return r
	case kindMemDev:
		return unix.EPOLLIN | unix.EPOLLOUT
	case kindPipeRead:
		return pipes[fl.pipe].readEvents()
	case kindSocket:
		return sockReadiness(fl.sock)
	case kindPipeWrite:
		return pipes[fl.pipe].writeEvents()
	case kindTimerfd:
		if timerFDs[fl.tfd].count > 0 {
			return unix.EPOLLIN
		}
	}
	return 0
}

func sysEpollCtl(t *sched.Thread, f *sched.Frame) uint64 {
	epf, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if epf.kind != kindEpoll {
		return errno(unix.EINVAL)
	}
	op, fd := f.X[1], f.X[2]
	fl, ok := getFD(fd)
	if !ok {
		return errno(unix.EBADF)
	}
	if fd == f.X[0] {
		return errno(unix.EINVAL)
	}
	if !pollable(fl) {
		return errno(unix.EPERM)
	}
	ep := &epolls[epf.ep]
	var ev unix.EpollEvent
	if op != unix.EPOLL_CTL_DEL {
		if !copyIn(bytesOf(unsafe.Pointer(&ev), unsafe.Sizeof(ev)), uintptr(f.X[3])) {
			return errno(unix.EFAULT)
		}
	}
	data := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
	fi := fileOf(int(fd))
	var slot *interest
	for i := range ep.list {
		if ep.list[i].used && ep.list[i].fd == int32(fd) && ep.list[i].file == fi {
			slot = &ep.list[i]
		}
	}
	switch op {
	case unix.EPOLL_CTL_ADD:
		if slot != nil {
			return errno(unix.EEXIST)
		}
		for i := range ep.list {
			if !ep.list[i].used {
				ep.list[i] = interest{fd: int32(fd), file: fi, events: ev.Events, data: data, lastGen: fileGen(fl) - 1, used: true}
				epollNotify()
				return 0
			}
		}
		return errno(unix.ENOSPC)
	case unix.EPOLL_CTL_MOD:
		if slot == nil {
			return errno(unix.ENOENT)
		}
		slot.events, slot.data, slot.lastGen = ev.Events, data, fileGen(fl)-1
		epollNotify()
		return 0
	case unix.EPOLL_CTL_DEL:
		if slot == nil {
			return errno(unix.ENOENT)
		}
		slot.used = false
		return 0
	}
	return errno(unix.EINVAL)
}

// epollForget drops a released description from every interest list.
func epollForget(fi int32) {
	for i := range epolls {
		for j := range epolls[i].list {
			if epolls[i].list[j].used && epolls[i].list[j].file == fi {
				epolls[i].list[j].used = false
			}
		}
	}
}

// collect writes up to max ready events to the app at buf.
func collect(ep *epollInst, buf uintptr, max int) (int, bool) {
	n := 0
	for i := range ep.list {
		if n >= max {
			break
		}
		it := &ep.list[i]
		if !it.used {
			continue
		}
		ready := readiness(it.file) & (it.events | unix.EPOLLERR | unix.EPOLLHUP)
		if ready == 0 {
			continue
		}
		gen := fileGen(&files[it.file])
		if it.events&unix.EPOLLET != 0 && gen == it.lastGen {
			continue
		}
		ev := unix.EpollEvent{Events: ready, Fd: int32(uint32(it.data)), Pad: int32(uint32(it.data >> 32))}
		if !copyOut(buf+uintptr(n)*unsafe.Sizeof(ev), bytesOf(unsafe.Pointer(&ev), unsafe.Sizeof(ev))) {
			return n, false
		}
		it.lastGen = gen
		if it.events&unix.EPOLLONESHOT != 0 {
			it.events = 0
		}
		n++
	}
	return n, true
}

func sysEpollPwait(t *sched.Thread, f *sched.Frame) uint64 {
	timeout := int64(int32(f.X[3])) // milliseconds; negative: forever
	if timeout > 0 {
		timeout *= 1e6
	}
	return epollWait(t, f, timeout)
}

// sysEpollPwait2 is epoll_pwait with a timespec timeout (NULL: forever).
func sysEpollPwait2(t *sched.Thread, f *sched.Frame) uint64 {
	timeout := int64(-1)
	if ts := uintptr(f.X[3]); ts != 0 {
		ns, e := readTimespec(ts)
		if e != 0 {
			return errno(e)
		}
		timeout = ns
	}
	return epollWait(t, f, timeout)
}

// epollWait returns the ready events at once, or blocks the thread until
// an fd becomes ready (epollNotify), the timeout in nanoseconds passes
// (0: do not wait; negative: no timeout), or a signal interrupts it.
// The sigmask argument (X4) is not supported; Go passes none.
func epollWait(t *sched.Thread, f *sched.Frame, timeout int64) uint64 {
	epf, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if epf.kind != kindEpoll {
		return errno(unix.EINVAL)
	}
	max := int64(f.X[2])
	if max <= 0 || max > maxEpollEvents {
		return errno(unix.EINVAL)
	}
	n, ok := collect(&epolls[epf.ep], uintptr(f.X[1]), int(max))
	if !ok {
		return errno(unix.EFAULT)
	}
	if n > 0 {
		epollStats.ready++
		return uint64(n)
	}
	if timeout == 0 {
		epollStats.polls++
		return 0
	}
	var deadline uint64
	if timeout > 0 {
		deadline = deadlineAfter(timeout)
	}
	sched.Block(t, sched.WaitEpoll, deadline, 0)
	t.WaitAddr = uintptr(epf.ep)
	t.WaitArg[0] = uintptr(f.X[1])
	t.WaitArg[1] = uintptr(max)
	return 0
}

// maxEpollEvents is Linux's EP_MAX_EVENTS (INT_MAX / sizeof(struct
// epoll_event)), the largest maxevents it accepts.
const maxEpollEvents = 0x7FFFFFFF / 12

// epollStats says how epoll waits ended, for the stats switch: events
// ready at once, non-blocking polls with none, and blocked waits woken by
// events, by the runtime's eventfd break (netpollBreak), by their
// timeout (sched.Timeouts) or by a signal (sigInterrupted).
var epollStats struct {
	ready, polls, woken, breaks uint64
}

// epollNotify completes epoll waits that now have events, and returns how
// many it woke.
func epollNotify() int {
	woke := 0
	for i := range sched.Active() {
		w := &sched.Threads[i]
		if w.State != sched.Blocked || w.Wait != sched.WaitEpoll {
			continue
		}
		n, ok := collect(&epolls[w.WaitAddr], w.WaitArg[0], int(w.WaitArg[1]))
		if !ok {
			sched.Wake(w, errno(unix.EFAULT))
		} else if n > 0 {
			sched.Wake(w, uint64(n))
			woke++
		}
	}
	epollStats.woken += uint64(woke)
	return woke
}

// fileGen is the readiness generation EPOLLET compares against.
func fileGen(fl *file) uint32 {
	switch fl.kind {
	case kindPipeRead, kindPipeWrite:
		return pipes[fl.pipe].gen
	case kindSocket:
		return sockGen(fl.sock)
	case kindTimerfd:
		return timerFDs[fl.tfd].gen
	}
	return fl.gen
}
