package kernel

import (
	"gometal/sched"

	"golang.org/x/sys/unix"
)

// The file-descriptor table (one process, so one table).

const maxFDs = 1024

type fileKind uint8

const (
	kindNone fileKind = iota
	kindConsole
	kindFile
	kindDir
	kindEventfd
	kindEpoll
	kindNull
	kindPipeRead
	kindPipeWrite
	kindSocket
	kindTmpFile
	kindTmpDir
	kindTimerfd
)

type file struct {
	kind    fileKind
	cloexec bool
	flags   uint32 // O_ACCMODE | O_NONBLOCK | O_APPEND
	node    fsNode
	pos     int64 // byte offset, or archive offset for directories

	// eventfd
	count     uint64
	semaphore bool
	gen       uint32 // bumped on every readiness change (for EPOLLET)

	ep   int32 // kindEpoll: index into epolls
	pipe int32 // kindPipeRead/Write: index into pipes
	sock int32 // kindSocket: index into sockets
	tmp  int32 // kindTmpFile/Dir: index into tmpNodes
	tfd  int32 // kindTimerfd: index into timerFDs (and sched.Alarms)
}

var fds [maxFDs]file

func getFD(fd uint64) (*file, bool) {
	if fd >= maxFDs || fds[fd].kind == kindNone {
		return nil, false
	}
	return &fds[fd], true
}

// allocFD returns the lowest free descriptor >= min.
func allocFD(min int) (int, *file) {
	for i := min; i < maxFDs; i++ {
		if fds[i].kind == kindNone {
			fds[i] = file{}
			return i, &fds[i]
		}
	}
	return -1, nil
}

func initConsoleFDs() {
	fds[0] = file{kind: kindConsole, flags: unix.O_RDONLY}
	fds[1] = file{kind: kindConsole, flags: unix.O_WRONLY}
	fds[2] = file{kind: kindConsole, flags: unix.O_WRONLY}
}

func closeFD(fd int) {
	f := &fds[fd]
	switch f.kind {
	case kindEpoll:
		epolls[f.ep].used = false
	case kindPipeRead, kindPipeWrite:
		pipeRef(f, -1)
	case kindSocket:
		sockUnref(f.sock)
	case kindTmpFile, kindTmpDir:
		tmpNodes[f.tmp].opens--
		tmpRelease(f.tmp)
	case kindTimerfd:
		timerfdRef(f.tfd, -1)
	}
	epollForget(fd)
	*f = file{}
}

func sysClose(t *sched.Thread, f *sched.Frame) uint64 {
	if _, ok := getFD(f.X[0]); !ok {
		return errno(unix.EBADF)
	}
	closeFD(int(f.X[0]))
	return 0
}

func sysDup(t *sched.Thread, f *sched.Frame) uint64 {
	old, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	n, nf := allocFD(0)
	if nf == nil {
		return errno(unix.EMFILE)
	}
	*nf = *old
	nf.cloexec = false
	dupRef(nf)
	return uint64(n)
}

func sysDup3(t *sched.Thread, f *sched.Frame) uint64 {
	old, ok := getFD(f.X[0])
	nfd := f.X[1]
	if !ok {
		return errno(unix.EBADF)
	}
	if nfd >= maxFDs || f.X[0] == nfd || f.X[2]&^unix.O_CLOEXEC != 0 {
		return errno(unix.EINVAL)
	}
	if fds[nfd].kind != kindNone {
		closeFD(int(nfd))
	}
	fds[nfd] = *old
	fds[nfd].cloexec = f.X[2]&unix.O_CLOEXEC != 0
	dupRef(&fds[nfd])
	return nfd
}

func sysFcntl(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	switch f.X[1] {
	case unix.F_GETFD:
		if fl.cloexec {
			return unix.FD_CLOEXEC
		}
		return 0
	case unix.F_SETFD:
		fl.cloexec = f.X[2]&unix.FD_CLOEXEC != 0
		return 0
	case unix.F_GETFL:
		return uint64(fl.flags)
	case unix.F_SETFL:
		const changeable = unix.O_NONBLOCK | unix.O_APPEND
		fl.flags = fl.flags&^changeable | uint32(f.X[2])&changeable
		return 0
	case unix.F_DUPFD, unix.F_DUPFD_CLOEXEC:
		if f.X[2] >= maxFDs {
			return errno(unix.EINVAL)
		}
		n, nf := allocFD(int(f.X[2]))
		if nf == nil {
			return errno(unix.EMFILE)
		}
		*nf = *fl
		nf.cloexec = f.X[1] == unix.F_DUPFD_CLOEXEC
		dupRef(nf)
		return uint64(n)
	case unix.F_GETLK, unix.F_SETLK, unix.F_SETLKW:
		return 0
	}
	return errno(unix.EINVAL)
}

// dupRef accounts for a new descriptor sharing an object.
func dupRef(fl *file) {
	switch fl.kind {
	case kindPipeRead, kindPipeWrite:
		pipeRef(fl, +1)
	case kindSocket:
		sockets[fl.sock].refs++
	case kindTmpFile, kindTmpDir:
		tmpNodes[fl.tmp].opens++
	case kindTimerfd:
		timerfdRef(fl.tfd, +1)
	}
}
