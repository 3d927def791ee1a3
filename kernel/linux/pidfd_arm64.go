package linux

import (
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Process descriptors (pidfd_open(2), pidfd_send_signal(2), clone's
// CLONE_PIDFD, waitid's P_PIDFD; Linux's kernel/pid.c and
// kernel/signal.c): a descriptor that names one process for good. It is
// readable (EPOLLIN) once the process has exited, so epoll and poll can
// wait for the exit, and signals and waits through it can never reach a
// later process with the same PID (gometal does not reuse PIDs within a
// run at all).

// maxPidfds bounds the open process descriptors.
const maxPidfds = 256

// pidfdNonblock is PIDFD_NONBLOCK (O_NONBLOCK): a wait through the
// descriptor answers EAGAIN instead of blocking.
const pidfdNonblock = unix.O_NONBLOCK

// pidFD is one process descriptor's object.
type pidFD struct {
	vfs.Base
	W    vfs.Waitable
	PID  int32
	used bool
}

var pidfds [maxPidfds]pidFD

func (p *pidFD) Readiness(f *vfs.File) uint32 {
	if i := proc.ByPID(p.PID); i >= 0 && proc.Procs[i].State == proc.Live {
		return 0
	}
	return unix.EPOLLIN
}

func (p *pidFD) Waitable() *vfs.Waitable { return &p.W }
func (p *pidFD) Kind() vfs.Kind          { return vfs.KindPidfd }
func (p *pidFD) Release(f *vfs.File)     { p.used = false }

// Stat describes an anonymous inode, as Linux's pidfs did before 6.9.
func (p *pidFD) Stat(f *vfs.File) unix.Stat_t {
	return unix.Stat_t{Mode: unix.S_IFREG | 0o600, Nlink: 1, Blksize: 4096}
}

// newPidfd opens a process descriptor for pid in the caller's table
// (always close-on-exec, as Linux makes it), or answers the errno.
func newPidfd(pid int32, flags uint32) uint64 {
	for i := range pidfds {
		p := &pidfds[i]
		if !p.used {
			*p = pidFD{PID: pid, used: true}
			r := openFD(p, unix.O_RDWR|flags&pidfdNonblock, true)
			if int64(r) < 0 {
				p.used = false
			}
			return r
		}
	}
	return errno(unix.ENFILE)
}

// pidfdProcess is the process descriptor fd names: its slot (-1: the
// process is gone) and 0, or the errno for fd.
func pidfdProcess(fd uint64) (int32, *pidFD, unix.Errno) {
	fl, ok := getFD(fd)
	if !ok {
		return -1, nil, unix.EBADF
	}
	p, ok := fl.Impl.(*pidFD)
	if !ok {
		return -1, nil, unix.EBADF
	}
	return proc.ByPID(p.PID), p, 0
}

// pidfdLive is the slot of the live process pidfd fd names: EBADF for
// no pidfd, ESRCH once the process has exited.
func pidfdLive(fd uint64) (int32, unix.Errno) {
	p, _, e := pidfdProcess(fd)
	if e == 0 && (p < 0 || proc.Procs[p].State != proc.Live) {
		e = unix.ESRCH
	}
	return p, e
}

// pidfdExited tells the descriptors of the process that has just
// exited (pid) that they are readable.
func pidfdExited(pid int32) {
	for i := range pidfds {
		if p := &pidfds[i]; p.used && p.PID == pid {
			vfs.Notify(&p.W, unix.EPOLLIN)
		}
	}
}

func sysPidfdOpen(t *sched.Thread, f *sched.Frame) uint64 {
	pid, flags := int32(f.X[0]), f.X[1]
	if flags&^uint64(pidfdNonblock) != 0 || pid <= 0 {
		return errno(unix.EINVAL)
	}
	p := proc.ByPID(pid)
	if p < 0 {
		// A thread that is not a process's first (PIDFD_THREAD is not
		// supported) is EINVAL, as on Linux 6.1; no task at all, ESRCH.
		if sched.ByTID(pid) != nil {
			return errno(unix.EINVAL)
		}
		return errno(unix.ESRCH)
	}
	return newPidfd(pid, uint32(flags))
}

func sysPidfdSendSignal(t *sched.Thread, f *sched.Frame) uint64 {
	sig := int(f.X[1])
	if f.X[3] != 0 || !validSignal(sig) {
		return errno(unix.EINVAL)
	}
	p, e := pidfdLive(f.X[0])
	if e != 0 {
		return errno(e)
	}
	info := userInfo(t, siUSER)
	if a := uintptr(f.X[2]); a != 0 {
		var r uint64
		if info, r = readQueuedInfo(a); r != 0 {
			return r
		}
	}
	return send(t, p, nil, sig, info)
}

// sysPidfdGetfd is pidfd_getfd(2): a new descriptor (close-on-exec) in
// the caller's table for the description the process behind the pidfd
// has at targetfd, as a dup across processes (SCM_RIGHTS without the
// other's help). flags must be 0; a descriptor that is no pidfd, or a
// targetfd the process does not have, is EBADF; a process that has
// exited, ESRCH. The ptrace access check Linux makes passes: every
// process is root here.
func sysPidfdGetfd(t *sched.Thread, f *sched.Frame) uint64 {
	if f.X[2] != 0 {
		return errno(unix.EINVAL)
	}
	p, e := pidfdLive(f.X[0])
	if e != 0 {
		return errno(e)
	}
	target := f.X[1]
	ft := &proc.FDTables[proc.Procs[p].Files]
	if target >= uint64(len(ft.Slots)) || ft.Slots[target].File == 0 {
		return errno(unix.EBADF)
	}
	fd := freeFD(0)
	if fd < 0 {
		return errno(unix.EMFILE)
	}
	shareFD(fd, ft.Slots[target].File-1, true)
	return uint64(fd)
}
