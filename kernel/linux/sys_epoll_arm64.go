package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// epoll_create1, epoll_ctl, epoll_pwait and epoll_pwait2 over vfs.Epoll.
// Regular files are not pollable: EPERM, as on Linux, which makes Go use
// blocking reads for them.

func sysEpollCreate1(t *sched.Thread, f *sched.Frame) uint64 {
	if f.X[0]&^unix.EPOLL_CLOEXEC != 0 {
		return errno(unix.EINVAL)
	}
	ep := vfs.NewEpoll()
	if ep == nil {
		return errno(unix.ENOMEM)
	}
	r := openFD(ep, unix.O_RDWR, f.X[0]&unix.EPOLL_CLOEXEC != 0)
	if vfs.IsErr(r) {
		ep.Release(nil)
	}
	return r
}

// epollOf returns the instance descriptor fd refers to.
func epollOf(fd uint64) (*vfs.Epoll, uint64) {
	f, ok := getFD(fd)
	if !ok {
		return nil, errno(unix.EBADF)
	}
	ep, ok := f.Impl.(*vfs.Epoll)
	if !ok {
		return nil, errno(unix.EINVAL)
	}
	return ep, 0
}

func sysEpollCtl(t *sched.Thread, f *sched.Frame) uint64 {
	ep, e := epollOf(f.X[0])
	if e != 0 {
		return e
	}
	op, fd := f.X[1], f.X[2]
	fl, ok := getFD(fd)
	if !ok {
		return errno(unix.EBADF)
	}
	if fd == f.X[0] {
		return errno(unix.EINVAL)
	}
	if !vfs.Pollable(fl) {
		return errno(unix.EPERM)
	}
	var ev unix.EpollEvent
	if op != unix.EPOLL_CTL_DEL {
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&ev), unsafe.Sizeof(ev)), uintptr(f.X[3])) {
			return errno(unix.EFAULT)
		}
	}
	return ep.Ctl(int(op), int32(fd), fileOf(int(fd)), ev)
}

func sysEpollPwait(t *sched.Thread, f *sched.Frame) uint64 {
	return epollWait(t, f, epollTimeout(f.X[3]))
}

// epollTimeout is epoll_pwait's timeout argument (an int of
// milliseconds; negative: forever) in nanoseconds.
func epollTimeout(arg uint64) int64 {
	timeout := int64(int32(arg))
	if timeout > 0 {
		timeout *= 1e6
	}
	return timeout
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

// epollWait returns the ready events at once, or waits (vfs.Epoll.Wait)
// for the timeout in nanoseconds (0: do not wait; negative: no timeout).
// A run after a wake-up keeps the first run's deadline. The sigmask
// argument (X4) is not supported; Go passes none.
func epollWait(t *sched.Thread, f *sched.Frame, timeout int64) uint64 {
	ep, e := epollOf(f.X[0])
	if e != 0 {
		return e
	}
	max := int64(f.X[2])
	if max <= 0 || max > vfs.MaxEvents {
		return errno(unix.EINVAL)
	}
	deadline, poll := epollDeadline(t, timeout, entryCounter())
	return ep.Wait(t, uintptr(f.X[1]), int(max), poll, deadline)
}

// epollDeadline is the deadline of an epoll wait with timeout (in
// nanoseconds; 0: do not wait, negative: none), and whether the call
// is only a poll. now is the counter the call reckons from (its entry
// under the kernel lock). A run after a wake-up keeps the first run's
// deadline.
func epollDeadline(t *sched.Thread, timeout int64, now uint64) (deadline uint64, poll bool) {
	if timeout > 0 {
		deadline = deadlineFrom(now, timeout)
	}
	if t.Retried {
		deadline = t.RetryDeadline
		if deadline != 0 && deadline <= now {
			timeout = 0 // it passed while the wake-up was on its way
		}
	}
	return deadline, timeout == 0
}
