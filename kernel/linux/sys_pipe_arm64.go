package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// pipe2 (pipe(7)); the pipe itself is vfs.Pipe.
func sysPipe2(t *sched.Thread, f *sched.Frame) uint64 {
	flags := uint32(f.X[1])
	if flags&^uint32(unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_DIRECT) != 0 {
		return errno(unix.EINVAL)
	}
	p := vfs.NewPipe()
	if p == nil {
		return errno(unix.ENFILE)
	}
	cloexec := flags&unix.O_CLOEXEC != 0
	r := openFD(p.Reader(), unix.O_RDONLY|flags&unix.O_NONBLOCK, cloexec)
	if vfs.IsErr(r) {
		p.Close(false)
		p.Close(true)
		return r
	}
	w := openFD(p.Writer(), unix.O_WRONLY|flags&unix.O_NONBLOCK, cloexec)
	if vfs.IsErr(w) {
		p.Close(true)
		closeFD(int(r))
		return w
	}
	fds := [2]int32{int32(r), int32(w)}
	if !usermem.CopyOut(uintptr(f.X[0]), usermem.BytesOf(unsafe.Pointer(&fds), unsafe.Sizeof(fds))) {
		closeFD(int(r))
		closeFD(int(w))
		return errno(unix.EFAULT)
	}
	return 0
}
