package kernel

import (
	"unsafe"

	"gometal/sched"

	"golang.org/x/sys/unix"
)

// epoll and eventfd, enough for the Go runtime's netpoller: an eventfd to
// break the wait, timeouts for timers, and readiness of pollable fds
// (eventfds and the console). Regular files are not pollable: EPERM, as on
// Linux, which makes Go use blocking reads for them.

const (
	maxEpolls   = 8
	maxInterest = 1024 // Go registers every pollable fd with one instance
)

type interest struct {
	fd      int32
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
			fl.cloexec = f.X[0]&unix.EPOLL_CLOEXEC != 0
			return uint64(fd)
		}
	}
	return errno(unix.ENOMEM)
}

func pollable(fl *file) bool {
	switch fl.kind {
	case kindEventfd, kindConsole, kindNull, kindPipeRead, kindPipeWrite, kindSocket:
		return true
	}
	return false
}

// readiness returns fl's current EPOLL* bits.
func readiness(fd int32) uint32 {
	fl := &fds[fd]
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
	case kindNull:
		return unix.EPOLLIN | unix.EPOLLOUT
	case kindPipeRead:
		return pipes[fl.pipe].readEvents()
	case kindSocket:
		return sockReadiness(fl.sock)
	case kindPipeWrite:
		return pipes[fl.pipe].writeEvents()
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
	var slot *interest
	for i := range ep.list {
		if ep.list[i].used && ep.list[i].fd == int32(fd) {
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
				ep.list[i] = interest{fd: int32(fd), events: ev.Events, data: data, lastGen: fileGen(fl) - 1, used: true}
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

// epollForget drops a closed fd from every interest list.
func epollForget(fd int) {
	for i := range epolls {
		for j := range epolls[i].list {
			if epolls[i].list[j].used && epolls[i].list[j].fd == int32(fd) {
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
		ready := readiness(it.fd) & (it.events | unix.EPOLLERR | unix.EPOLLHUP)
		if ready == 0 {
			continue
		}
		gen := fileGen(&fds[it.fd])
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
	epf, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if epf.kind != kindEpoll {
		return errno(unix.EINVAL)
	}
	max := int64(f.X[2])
	if max <= 0 || max > 1<<20 {
		return errno(unix.EINVAL)
	}
	n, ok := collect(&epolls[epf.ep], uintptr(f.X[1]), int(max))
	if !ok {
		return errno(unix.EFAULT)
	}
	timeout := int64(int32(f.X[3]))
	if n > 0 || timeout == 0 {
		return uint64(n)
	}
	var deadline uint64
	if timeout > 0 {
		deadline = deadlineAfter(timeout * 1e6)
	}
	sched.Block(t, sched.WaitEpoll, deadline, 0)
	t.WaitAddr = uintptr(epf.ep)
	t.WaitArg[0] = uintptr(f.X[1])
	t.WaitArg[1] = uintptr(max)
	return 0
}

// epollNotify completes epoll waits that now have events.
func epollNotify() {
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
		}
	}
}

func sysEventfd2(t *sched.Thread, f *sched.Frame) uint64 {
	flags := f.X[1]
	if flags&^uint64(unix.EFD_CLOEXEC|unix.EFD_NONBLOCK|unix.EFD_SEMAPHORE) != 0 {
		return errno(unix.EINVAL)
	}
	fd, fl := allocFD(0)
	if fl == nil {
		return errno(unix.EMFILE)
	}
	fl.kind = kindEventfd
	fl.count = uint64(uint32(f.X[0]))
	fl.flags = unix.O_RDWR | uint32(flags&unix.EFD_NONBLOCK)
	fl.cloexec = flags&unix.EFD_CLOEXEC != 0
	fl.semaphore = flags&unix.EFD_SEMAPHORE != 0
	return uint64(fd)
}

func eventfdRead(t *sched.Thread, fl *file, buf uintptr, n uint64) uint64 {
	if n < 8 {
		return errno(unix.EINVAL)
	}
	if fl.count == 0 {
		if fl.flags&unix.O_NONBLOCK != 0 {
			return errno(unix.EAGAIN)
		}
		// Blocking eventfd reads are not needed by Go; refuse clearly.
		return errno(unix.EAGAIN)
	}
	v := fl.count
	if fl.semaphore {
		v = 1
	}
	if !writeU64(buf, v) {
		return errno(unix.EFAULT)
	}
	fl.count -= v
	fl.gen++
	return 8
}

func eventfdWrite(t *sched.Thread, fl *file, buf uintptr, n uint64) uint64 {
	if n < 8 {
		return errno(unix.EINVAL)
	}
	v, ok := readU64(buf)
	if !ok {
		return errno(unix.EFAULT)
	}
	if v == ^uint64(0) {
		return errno(unix.EINVAL)
	}
	if fl.count+v < fl.count || fl.count+v == ^uint64(0) {
		return errno(unix.EAGAIN)
	}
	fl.count += v
	fl.gen++
	epollNotify()
	return 8
}

// fileGen is the readiness generation EPOLLET compares against.
func fileGen(fl *file) uint32 {
	switch fl.kind {
	case kindPipeRead, kindPipeWrite:
		return pipes[fl.pipe].gen
	case kindSocket:
		return sockGen(fl.sock)
	}
	return fl.gen
}
