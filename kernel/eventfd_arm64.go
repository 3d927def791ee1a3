package kernel

import (
	"unsafe"

	"gometal/sched"

	"golang.org/x/sys/unix"
)

// eventfd (eventfd(2)): a 64-bit counter as a file. A write adds to it, a
// read takes it all (or 1 in semaphore mode); a read of zero or a write
// that would overflow blocks, or fails with EAGAIN when non-blocking. The
// Go runtime writes one to break a netpoll wait.

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
	setCloexec(fd, flags&unix.EFD_CLOEXEC != 0)
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
		sched.WaitOn(t, sched.WaitEventfd, eventfdAddr(fl), 0, 0)
		return 0
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
	retryWaiters(sched.WaitEventfd, eventfdAddr(fl)) // writers waiting for room
	epollNotify()                                    // EPOLLOUT again
	return 8
}

// eventfdAddr is what threads blocked on an eventfd wait on.
func eventfdAddr(fl *file) uintptr { return uintptr(unsafe.Pointer(fl)) }

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
		// The counter would overflow: wait for a read to make room.
		if fl.flags&unix.O_NONBLOCK != 0 {
			return errno(unix.EAGAIN)
		}
		sched.WaitOn(t, sched.WaitEventfd, eventfdAddr(fl), 0, 0)
		return 0
	}
	fl.count += v
	fl.gen++
	retryWaiters(sched.WaitEventfd, eventfdAddr(fl)) // blocked readers
	// A write to an eventfd that wakes an epoll waiter is how the Go
	// runtime breaks a netpoll wait (netpollBreak).
	epollStats.breaks += uint64(epollNotify())
	return 8
}
