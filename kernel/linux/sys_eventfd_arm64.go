package linux

import (
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// eventfd2 (eventfd(2)); the counter is vfs.Eventfd.
func sysEventfd2(t *sched.Thread, f *sched.Frame) uint64 {
	flags := f.X[1]
	if flags&^uint64(unix.EFD_CLOEXEC|unix.EFD_NONBLOCK|unix.EFD_SEMAPHORE) != 0 {
		return errno(unix.EINVAL)
	}
	fd := freeFD(0)
	if fd < 0 {
		return errno(unix.EMFILE)
	}
	fi := vfs.NewEventfd(uint64(uint32(f.X[0])), flags&unix.EFD_SEMAPHORE != 0, uint32(flags&unix.EFD_NONBLOCK))
	setFD(fd, fi, flags&unix.EFD_CLOEXEC != 0)
	return uint64(fd)
}
