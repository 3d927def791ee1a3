package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Opening a FIFO (fifo(7), open(2)): a read-only open waits until a
// writer has the FIFO open, a write-only open until a reader does;
// O_RDWR never waits. With O_NONBLOCK a reader opens at once, and a
// writer without a reader gets ENXIO.
//
// The opener counts as a reader or writer from its first try, as in
// Linux's fifo_open, so that its partner's open does not wait for it in
// turn: it blocks on the pipe, and AddEnd from the partner's open makes
// it try again (sched.Retry). lthread.FIFOWait remembers the counted end
// across tries; a signal that ends or restarts the wait gives it back
// (dropFIFOWait), so no end is counted twice or leaked.

func openFIFO(t *sched.Thread, n *fs.Inode, flags uint32, cloexec bool) uint64 {
	p := fs.FIFOPipe(n)
	if p == nil {
		return errno(unix.ENFILE)
	}
	acc := flags & unix.O_ACCMODE
	l := lx(t)
	if acc == unix.O_RDWR {
		dropFIFOWait(t)
		p.AddEnd(false)
		p.AddEnd(true)
		return openFIFOEnd(p, p.Both(), flags, cloexec, false, true)
	}
	write := acc == unix.O_WRONLY
	want := fifoWait(p, write)
	if !t.Retried || l.FIFOWait != want {
		dropFIFOWait(t)
		p.AddEnd(write)
		l.FIFOWait = want
	}
	readers, writers := p.Ends()
	partner := writers > 0
	if write {
		partner = readers > 0
	}
	switch {
	case partner || !write && flags&unix.O_NONBLOCK != 0:
	case flags&unix.O_NONBLOCK != 0:
		return errno(unix.ENXIO) // dropped by sysOpenat
	default:
		sched.BlockOn(t, &p.W.Q, sched.WaitFile, unix.EPOLLIN|unix.EPOLLOUT, 0, 0)
		return 0
	}
	l.FIFOWait = 0
	impl := p.Reader()
	if write {
		impl = p.Writer()
	}
	return openFIFOEnd(p, impl, flags, cloexec, write, false)
}

// openFIFOEnd gives a counted end of p (both ends for O_RDWR) a
// description and a descriptor, or gives the end back.
func openFIFOEnd(p *vfs.Pipe, impl vfs.Impl, flags uint32, cloexec, write, both bool) uint64 {
	fd := openFD(impl, flags, cloexec)
	if vfs.IsErr(fd) {
		if both {
			p.Close(false)
		}
		p.Close(write || both)
	}
	return fd
}

// fifoWait encodes an end of pipe p for lthread.FIFOWait: 1 + 2*index,
// plus 1 for the write end.
func fifoWait(p *vfs.Pipe, write bool) int32 {
	w := 1 + 2*p.Index()
	if write {
		w++
	}
	return w
}

// dropFIFOWait gives back the FIFO end t counted while waiting in open,
// if any.
func dropFIFOWait(t *sched.Thread) {
	l := lx(t)
	if w := l.FIFOWait; w != 0 {
		l.FIFOWait = 0
		vfs.PipeAt((w - 1) / 2).Close((w-1)%2 == 1)
	}
}

// sysMknodat makes a FIFO, a regular file or, for a privileged caller
// (CAP_MKNOD: root here), a device node of any number (mknod(2); opening
// one no driver here answers is ENXIO, as on Linux). Socket files are
// made by bind(2) (EPERM here, as before).
func sysMknodat(t *sched.Thread, f *sched.Frame) uint64 {
	mode := uint32(f.X[2])
	perm := mode & 0o7777 &^ fsCtx().Umask
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		_, e := createAt(int64(f.X[0]), uintptr(f.X[1]), unix.S_IFIFO|perm)
		return errno(e)
	case 0, unix.S_IFREG:
		_, e := createAt(int64(f.X[0]), uintptr(f.X[1]), unix.S_IFREG|perm)
		return errno(e)
	case unix.S_IFCHR, unix.S_IFBLK:
		if !procOf(t).Cred.Privileged() {
			return errno(unix.EPERM) // may_mknod: CAP_MKNOD
		}
		i, e := createAt(int64(f.X[0]), uintptr(f.X[1]), mode&unix.S_IFMT|perm)
		if e == 0 {
			fs.Inodes[i].Rdev = newDevNumber(f.X[3])
		}
		return errno(e)
	case unix.S_IFSOCK:
		return errno(unix.EPERM)
	}
	return errno(unix.EINVAL)
}
