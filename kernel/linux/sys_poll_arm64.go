package linux

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// ppoll(2) and pselect6(2) (fs/select.c: do_sys_poll, core_sys_select).
// A call looks at each descriptor's readiness; when none is ready and it
// may wait, it registers them all in the thread's own poll instance
// (vfs.PollInstance) and waits on it, then runs again when any of them
// notifies, or its time is up (answering 0). The sigmask argument is
// checked and not applied (as epoll_pwait's): a wait is interrupted by
// the signals the thread's own mask lets through.

// The poll bits of a select set (fs/select.c's POLLIN_SET, POLLOUT_SET,
// POLLEX_SET; golang.org/x/sys names the *NORM and *BAND bits only as
// EPOLL*, which are the same numbers).
const (
	pollInSet  = unix.EPOLLRDNORM | unix.EPOLLRDBAND | unix.POLLIN | unix.POLLHUP | unix.POLLERR
	pollOutSet = unix.EPOLLWRBAND | unix.EPOLLWRNORM | unix.POLLOUT | unix.POLLERR
	pollExSet  = unix.POLLPRI
	// pollAlways are reported whether asked for or not.
	pollAlways = unix.POLLERR | unix.POLLHUP | unix.POLLNVAL
	// pollDefault is a file with no readiness of its own (a regular
	// file, a directory): always ready (DEFAULT_POLLMASK).
	pollDefault = unix.POLLIN | unix.POLLOUT | unix.EPOLLRDNORM | unix.EPOLLWRNORM
)

// pollMask is descriptor fd's readiness as poll bits (the EPOLL* and
// POLL* bits are the same numbers), POLLNVAL if fd is not open.
func pollMask(fd int32) uint32 {
	fl, ok := getFD(uint64(fd))
	if fd < 0 || !ok {
		return unix.POLLNVAL
	}
	if fl.Impl.Waitable() == nil {
		return pollDefault
	}
	return fl.Impl.Readiness(fl)
}

// pollSigmask checks a ppoll/pselect6 signal-mask argument: a set of 8
// bytes, or none.
func pollSigmask(set, size uint64) unix.Errno {
	if set != 0 && size != 8 {
		return unix.EINVAL
	}
	return 0
}

// pollTimeout reads a relative timeout (NULL: none) and gives the
// call's deadline and whether it may not wait at all.
func pollTimeout(t *sched.Thread, tsp uintptr) (deadline uint64, poll bool, e unix.Errno) {
	timeout := int64(-1)
	if tsp != 0 {
		if timeout, e = readTimespec(tsp); e != 0 {
			return 0, false, e
		}
	}
	deadline, poll = epollDeadline(t, timeout, entryCounter())
	return deadline, poll, 0
}

// pollLeft writes the time left before deadline back to the timeout,
// as the system calls do (glibc hides it for ppoll; Go's calls do not).
func pollLeft(tsp uintptr, deadline uint64) {
	if tsp == 0 || deadline == 0 {
		return
	}
	left := int64(0)
	if now := entryCounter(); deadline > now {
		left = timer.TicksToNanos(deadline - now)
	}
	writeTimespec(tsp, left)
}

// pollWait registers the descriptors (watch) in the thread's poll
// instance and waits, unless scan, run after the registrations, finds
// one ready (then it answers scan's count) or the instance was notified
// since (then it scans again). The call runs again when a descriptor
// notifies or its time is up: its scan then writes the answer.
func pollWait(t *sched.Thread, deadline uint64, watch func(ep *vfs.Epoll), scan func() (int, bool)) uint64 {
	ep := vfs.PollInstance(&lx(t).PollEp)
	if ep == nil {
		return errno(unix.ENOMEM)
	}
	ep.Clear()
	watch(ep)
	for {
		gen := ep.W.Q.Gen()
		n, ok := scan()
		if !ok {
			return errno(unix.EFAULT)
		}
		if n > 0 {
			return uint64(n)
		}
		if sched.BlockOnGen(t, &ep.W.Q, sched.WaitEpoll, unix.EPOLLIN, deadline, sched.RetryOnTimeout, gen) {
			return 0 // run again when notified or when the time is up
		}
	}
}

// sysPpoll: more entries than RLIMIT_NOFILE is EINVAL (do_sys_poll).
func sysPpoll(t *sched.Thread, f *sched.Frame) uint64 {
	fds, nfds, tsp := uintptr(f.X[0]), f.X[1], uintptr(f.X[2])
	if nfds > nofile() {
		return errno(unix.EINVAL)
	}
	if e := pollSigmask(f.X[3], f.X[4]); e != 0 {
		return errno(e)
	}
	deadline, poll, e := pollTimeout(t, tsp)
	if e != 0 {
		return errno(e)
	}
	scan := func() (int, bool) { return ppollScan(fds, int(nfds)) }
	n, ok := scan()
	switch {
	case !ok:
		return errno(unix.EFAULT)
	case n > 0 || poll:
		pollLeft(tsp, deadline)
		return uint64(n)
	}
	return pollWait(t, deadline, func(ep *vfs.Epoll) {
		var p unix.PollFd
		for i := 0; i < int(nfds); i++ {
			if usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&p), unsafe.Sizeof(p)), fds+uintptr(i)*unsafe.Sizeof(p)) && p.Fd >= 0 {
				if fl, ok := getFD(uint64(p.Fd)); ok {
					ep.Watch(p.Fd, fl.Index(), uint32(uint16(p.Events))|pollAlways)
				}
			}
		}
	}, scan)
}

// ppollScan writes each entry's revents and counts those with any.
func ppollScan(fds uintptr, n int) (int, bool) {
	ready := 0
	var p unix.PollFd
	for i := 0; i < n; i++ {
		a := fds + uintptr(i)*unsafe.Sizeof(p)
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&p), unsafe.Sizeof(p)), a) {
			return 0, false
		}
		p.Revents = 0
		if p.Fd >= 0 {
			p.Revents = int16(pollMask(p.Fd) & (uint32(uint16(p.Events)) | pollAlways))
		}
		if p.Revents != 0 {
			ready++
		}
		if !usermem.CopyOut(a, usermem.BytesOf(unsafe.Pointer(&p), unsafe.Sizeof(p))) {
			return 0, false
		}
	}
	return ready, true
}

// selectSets are pselect6's three descriptor sets as the app passed
// them (in) and as the call answers (out), n bits each.
type selectSets struct {
	addr [3]uintptr
	in   [3][maxSelectWords]uint64
	n    int
}

// maxSelectWords bounds a set: FD_SETSIZE is 1024 bits, but Linux takes
// sets as large as the descriptor table, which is this many words here.
const maxSelectWords = (maxFDs + 63) / 64

// selectEvents are the poll bits each set asks about.
var selectEvents = [3]uint32{pollInSet, pollOutSet, pollExSet}

func sysPselect6(t *sched.Thread, f *sched.Frame) uint64 {
	n := int64(f.X[0])
	if n < 0 {
		return errno(unix.EINVAL)
	}
	n = min(n, int64(maxFDs)) // core_sys_select: past the table, the table
	var s selectSets
	s.n = int(n)
	words := (s.n + 63) / 64
	for k := range s.addr {
		s.addr[k] = uintptr(f.X[1+k])
		if s.addr[k] != 0 && !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&s.in[k][0]), uintptr(words)*8), s.addr[k]) {
			return errno(unix.EFAULT)
		}
	}
	// A descriptor in a set must be open (max_select_fd's EBADF).
	for fd := 0; fd < s.n; fd++ {
		if s.asked(fd) != 0 {
			if _, ok := getFD(uint64(fd)); !ok {
				return errno(unix.EBADF)
			}
		}
	}
	if sm := uintptr(f.X[5]); sm != 0 {
		var arg [2]uint64 // struct { const sigset_t *ss; size_t ss_len; }
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&arg), 16), sm) {
			return errno(unix.EFAULT)
		}
		if e := pollSigmask(arg[0], arg[1]); e != 0 {
			return errno(e)
		}
	}
	tsp := uintptr(f.X[4])
	deadline, poll, e := pollTimeout(t, tsp)
	if e != 0 {
		return errno(e)
	}
	// The sets are written back only with the answer: a run that waits
	// must find them as the app gave them when it runs again.
	scan := func() (int, bool) { return s.scan(false) }
	cnt, ok := s.scan(poll)
	switch {
	case !ok:
		return errno(unix.EFAULT)
	case cnt > 0 || poll:
		pollLeft(tsp, deadline)
		return uint64(cnt)
	}
	return pollWait(t, deadline, func(ep *vfs.Epoll) {
		for fd := 0; fd < s.n; fd++ {
			if ev := s.asked(fd); ev != 0 {
				if fl, ok := getFD(uint64(fd)); ok {
					ep.Watch(int32(fd), fl.Index(), ev)
				}
			}
		}
	}, scan)
}

// asked is the poll bits fd is asked about, 0 if it is in no set.
func (s *selectSets) asked(fd int) uint32 {
	var ev uint32
	for k := range s.in {
		if s.in[k][fd/64]&(1<<(fd%64)) != 0 {
			ev |= selectEvents[k]
		}
	}
	return ev
}

// scan counts the ready descriptors' bits and, when there are some or
// final is set, writes the sets of them back.
func (s *selectSets) scan(final bool) (int, bool) {
	var out [3][maxSelectWords]uint64
	cnt := 0
	for fd := 0; fd < s.n; fd++ {
		if s.asked(fd) == 0 {
			continue
		}
		mask := pollMask(int32(fd))
		for k := range s.in {
			if s.in[k][fd/64]&(1<<(fd%64)) != 0 && mask&selectEvents[k] != 0 {
				out[k][fd/64] |= 1 << (fd % 64)
				cnt++
			}
		}
	}
	if cnt == 0 && !final {
		return 0, true
	}
	words := (s.n + 63) / 64
	for k := range s.addr {
		if s.addr[k] != 0 && !usermem.CopyOut(s.addr[k], usermem.BytesOf(unsafe.Pointer(&out[k][0]), uintptr(words)*8)) {
			return 0, false
		}
	}
	return cnt, true
}
