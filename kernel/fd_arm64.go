package kernel

import (
	"gometal/sched"

	"golang.org/x/sys/unix"
)

// The descriptor table and the open-file descriptions it refers to (one
// process, so one table). As on Linux (open(2): "open file description"),
// a description holds the object, the file offset and the status flags;
// dup, dup3 and F_DUPFD make descriptors that share one, each with its
// own close-on-exec flag, so dup'd descriptors share the offset,
// O_NONBLOCK and an eventfd's counter, and an epoll registration lasts
// until the last descriptor of its description is closed. A description
// lives while a descriptor refers to it (refs).

const (
	maxFDs = 1024
	// maxFiles: every descriptor holds one description at most, so
	// there can never be more descriptions than descriptors.
	maxFiles = maxFDs
)

type fileKind uint8

const (
	kindNone fileKind = iota
	kindConsole
	kindFile
	kindDir
	kindEventfd
	kindEpoll
	kindMemDev
	kindPipeRead
	kindPipeWrite
	kindSocket
	kindTmpFile
	kindTmpDir
	kindTimerfd
)

// file is an open-file description.
type file struct {
	kind  fileKind
	refs  int32  // descriptors referring to it; 0: free
	flags uint32 // O_ACCMODE | O_NONBLOCK | O_APPEND
	node  fsNode
	pos   int64 // byte offset, or archive offset for directories

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

// fdSlot is one descriptor.
type fdSlot struct {
	file    int32 // 1 + index into files; 0: the descriptor is free
	cloexec bool
}

var (
	fdTable [maxFDs]fdSlot
	files   [maxFiles]file
)

func getFD(fd uint64) (*file, bool) {
	if fd >= maxFDs || fdTable[fd].file == 0 {
		return nil, false
	}
	return &files[fdTable[fd].file-1], true
}

// fileOf returns the description index of open descriptor fd.
func fileOf(fd int) int32 { return fdTable[fd].file - 1 }

// freeFD returns the lowest free descriptor >= min, or -1.
func freeFD(min int) int {
	for i := min; i < maxFDs; i++ {
		if fdTable[i].file == 0 {
			return i
		}
	}
	return -1
}

// allocFD returns the lowest free descriptor >= min with a new
// description of its own (zeroed, kind still kindNone: the caller fills
// it in, or closes the descriptor again).
func allocFD(min int) (int, *file) {
	fd := freeFD(min)
	if fd < 0 {
		return -1, nil
	}
	for i := range files {
		if files[i].refs == 0 {
			files[i] = file{refs: 1}
			fdTable[fd] = fdSlot{file: int32(i) + 1}
			return fd, &files[i]
		}
	}
	return -1, nil
}

// shareFD makes free descriptor fd refer to description fi.
func shareFD(fd int, fi int32, cloexec bool) {
	files[fi].refs++
	fdTable[fd] = fdSlot{file: fi + 1, cloexec: cloexec}
}

// setCloexec sets descriptor fd's close-on-exec flag.
func setCloexec(fd int, on bool) { fdTable[fd].cloexec = on }

// initConsoleFDs opens the console once, read-write, as descriptors 0, 1
// and 2, as Linux's init gets it (one open of /dev/console, dup'd twice).
func initConsoleFDs() {
	fd, fl := allocFD(0)
	fl.kind = kindConsole
	fl.flags = unix.O_RDWR
	shareFD(fd+1, fileOf(fd), false)
	shareFD(fd+2, fileOf(fd), false)
}

// closeFD frees descriptor fd, and its description with the last
// descriptor that refers to it.
func closeFD(fd int) {
	fi := fileOf(fd)
	fdTable[fd] = fdSlot{}
	if files[fi].refs--; files[fi].refs > 0 {
		return
	}
	releaseFile(fi)
}

// releaseFile frees description fi and drops its object's reference.
func releaseFile(fi int32) {
	f := &files[fi]
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
	epollForget(fi)
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
	if _, ok := getFD(f.X[0]); !ok {
		return errno(unix.EBADF)
	}
	n := freeFD(0)
	if n < 0 {
		return errno(unix.EMFILE)
	}
	shareFD(n, fileOf(int(f.X[0])), false)
	return uint64(n)
}

func sysDup3(t *sched.Thread, f *sched.Frame) uint64 {
	_, ok := getFD(f.X[0])
	nfd := f.X[1]
	if !ok {
		return errno(unix.EBADF)
	}
	if nfd >= maxFDs || f.X[0] == nfd || f.X[2]&^unix.O_CLOEXEC != 0 {
		return errno(unix.EINVAL)
	}
	fi := fileOf(int(f.X[0]))
	files[fi].refs++ // held across the close below, which may be of a dup of it
	if fdTable[nfd].file != 0 {
		closeFD(int(nfd))
	}
	fdTable[nfd] = fdSlot{file: fi + 1, cloexec: f.X[2]&unix.O_CLOEXEC != 0}
	return nfd
}

func sysFcntl(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	fd := int(f.X[0])
	switch f.X[1] {
	case unix.F_GETFD:
		if fdTable[fd].cloexec {
			return unix.FD_CLOEXEC
		}
		return 0
	case unix.F_SETFD:
		setCloexec(fd, f.X[2]&unix.FD_CLOEXEC != 0)
		return 0
	case unix.F_GETFL:
		return uint64(fl.flags)
	case unix.F_SETFL:
		// On the description: every dup sees the change (fcntl(2)).
		const changeable = unix.O_NONBLOCK | unix.O_APPEND
		fl.flags = fl.flags&^changeable | uint32(f.X[2])&changeable
		return 0
	case unix.F_DUPFD, unix.F_DUPFD_CLOEXEC:
		if f.X[2] >= maxFDs {
			return errno(unix.EINVAL)
		}
		n := freeFD(int(f.X[2]))
		if n < 0 {
			return errno(unix.EMFILE)
		}
		shareFD(n, fileOf(fd), f.X[1] == unix.F_DUPFD_CLOEXEC)
		return uint64(n)
	case unix.F_GETLK, unix.F_SETLK, unix.F_SETLKW:
		return 0
	}
	return errno(unix.EINVAL)
}
