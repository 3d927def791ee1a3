package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// splice(2), tee(2), sendfile(2) and copy_file_range(2): bytes from one
// open file to another without a trip through the app, as Go's io.Copy
// asks for them (net.TCPConn.ReadFrom a file or a socket, os.File's
// ReadFrom and WriteTo). A pipe's or a file's pages are lent to the
// other object's own Read or Write (vfs.SpliceOut/SpliceIn, usermem.Lend).
// The checks and their order are Linux 6.1's (fs/splice.c do_splice,
// fs/read_write.c do_sendfile and vfs_copy_file_range).

const (
	spliceFlags = unix.SPLICE_F_MOVE | unix.SPLICE_F_NONBLOCK | unix.SPLICE_F_MORE | unix.SPLICE_F_GIFT
	// maxRWCount is MAX_RW_COUNT (INT_MAX rounded down to a page): the
	// most one call moves, as for read and write.
	maxRWCount = 0x7fff_f000
)

// spliceZero is what a hole in a file reads as (fs.Chunk).
var spliceZero [mm.PageSize]byte

// readOffset reads the loff_t at addr (0: none, -1 back).
func readOffset(addr uintptr) (int64, bool) {
	if addr == 0 {
		return -1, true
	}
	v, ok := usermem.ReadU64(addr)
	return int64(v), ok
}

// splice(fd_in, off_in, fd_out, off_out, len, flags): one side must be a
// pipe; the other is read or written at its offset (off_*, which then
// moves instead of the file's) or its position. The pipe side blocks
// unless SPLICE_F_NONBLOCK or the pipe's O_NONBLOCK says not to; the
// other side by its own O_NONBLOCK. It returns after moving anything.
func splice(t *sched.Thread, f *sched.Frame) uint64 {
	offIn, offOut, n, flags := uintptr(f.X[1]), uintptr(f.X[3]), f.X[4], f.X[5]
	if n == 0 {
		return 0
	}
	if flags&^spliceFlags != 0 {
		return errno(unix.EINVAL)
	}
	in, ok1 := getFD(f.X[0])
	out, ok2 := getFD(f.X[2])
	if !ok1 || !ok2 {
		return errno(unix.EBADF)
	}
	ip, inPipe := vfs.PipeOf(in)
	op, outPipe := vfs.PipeOf(out)
	if inPipe && offIn != 0 || outPipe && offOut != 0 {
		return errno(unix.ESPIPE)
	}
	posIn, okIn := readOffset(offIn)
	posOut, okOut := readOffset(offOut)
	if !okIn || !okOut {
		return errno(unix.EFAULT)
	}
	if !in.Readable() || !out.Writable() {
		return errno(unix.EBADF)
	}
	n = min(n, maxRWCount)
	nonblock := flags&unix.SPLICE_F_NONBLOCK != 0
	switch {
	case inPipe && outPipe:
		if ip == op {
			return errno(unix.EINVAL)
		}
		r, empty := vfs.SpliceOut(ip, out, n, -1, false)
		nonblock = nonblock || in.Nonblocking() || out.Nonblocking()
		return spliceResult(t, r, empty, nonblock, in, out, unix.EPOLLIN, unix.EPOLLOUT)
	case inPipe && spliceable(out):
		off, e := spliceOffset(out, offOut, posOut)
		if e != 0 {
			return errno(e)
		}
		if out.Flags&unix.O_APPEND != 0 {
			return errno(unix.EINVAL)
		}
		r, empty := vfs.SpliceOut(ip, out, n, off, false)
		if off >= 0 && !vfs.IsErr(r) && !usermem.WriteU64(offOut, uint64(off)+r) {
			return errno(unix.EFAULT)
		}
		nonblock = nonblock || in.Nonblocking()
		return spliceResult(t, r, empty, nonblock, in, out, unix.EPOLLIN, unix.EPOLLOUT)
	case outPipe && spliceable(in):
		off, e := spliceOffset(in, offIn, posIn)
		if e != 0 {
			return errno(e)
		}
		r, full := vfs.SpliceIn(in, op, n, off)
		if off >= 0 && !vfs.IsErr(r) && !usermem.WriteU64(offIn, uint64(off)+r) {
			return errno(unix.EFAULT)
		}
		nonblock = nonblock || out.Nonblocking()
		return spliceResult(t, r, full, nonblock, out, in, unix.EPOLLOUT, unix.EPOLLIN)
	}
	return errno(unix.EINVAL)
}

// sysSplice, sysTee and sysSendfile keep the pipes they may use off
// the lock-free path (unlockedio_arm64.go) for the whole call (vfs.Pipe.Hold):
// they work on a pipe's ring in steps under the kernel lock alone, and
// may wait on it.
func sysSplice(t *sched.Thread, f *sched.Frame) uint64 {
	return withPipesHeld(t, f, f.X[0], f.X[2], splice)
}

func sysTee(t *sched.Thread, f *sched.Frame) uint64 {
	return withPipesHeld(t, f, f.X[0], f.X[1], tee)
}

func sysSendfile(t *sched.Thread, f *sched.Frame) uint64 {
	return withPipesHeld(t, f, f.X[0], noFD, sendfile)
}

// noFD is a descriptor number no descriptor has.
const noFD = ^uint64(0)

// withPipesHeld runs call with the pipes descriptors a and b are ends
// of (if they are) held.
func withPipesHeld(t *sched.Thread, f *sched.Frame, a, b uint64, call sysFn) uint64 {
	pa, pb := holdPipe(a), holdPipe(b)
	r := call(t, f)
	unholdPipe(pa)
	unholdPipe(pb)
	return r
}

// holdPipe holds the pipe descriptor fd is an end of, if it is one.
func holdPipe(fd uint64) *vfs.Pipe {
	fl, ok := getFD(fd)
	if !ok {
		return nil
	}
	p, ok := vfs.PipeOf(fl)
	if !ok {
		return nil
	}
	p.Hold()
	return p
}

func unholdPipe(p *vfs.Pipe) {
	if p != nil {
		p.Unhold()
	}
}

// spliceable reports whether fl can be the non-pipe side of a splice:
// the kinds whose Linux file operations have splice_read and
// splice_write (files, sockets, the terminal, /dev's memory devices);
// an eventfd, a timerfd, an epoll instance or a directory answer EINVAL
// there.
func spliceable(fl *vfs.File) bool {
	switch fl.Impl.Kind() {
	case vfs.KindFile, vfs.KindSocket, vfs.KindConsole, vfs.KindDevice:
		return true
	}
	return false
}

// spliceOffset checks the offset read from addr for the non-pipe side
// fl (-1 when addr is 0: none): ESPIPE where fl has no position, EINVAL
// below zero.
func spliceOffset(fl *vfs.File, addr uintptr, off int64) (int64, unix.Errno) {
	switch {
	case addr == 0:
		return -1, 0
	case fl.Impl.Seek(fl, 0, unix.SEEK_CUR) == errno(unix.ESPIPE):
		return 0, unix.ESPIPE
	case off < 0:
		return 0, unix.EINVAL
	}
	return off, 0
}

// spliceResult finishes a splice or tee that moved r: an EAGAIN becomes
// a wait on the side that could not go on (the pipe when onPipe, which
// nonblock may forbid; else the other file, by its own O_NONBLOCK);
// EPIPE raises SIGPIPE, as a write's does.
func spliceResult(t *sched.Thread, r uint64, onPipe, nonblock bool, pipe, other *vfs.File, pipeEv, otherEv uint32) uint64 {
	switch {
	case r == errno(unix.EAGAIN) && onPipe:
		if nonblock {
			return r
		}
		return vfs.Wait(t, pipe, pipeEv)
	case r == errno(unix.EAGAIN):
		return vfs.Wait(t, other, otherEv)
	case r == errno(unix.EPIPE):
		postSignal(t, sigPIPE, userInfo(t, siUSER))
	}
	return r
}

// tee(fd_in, fd_out, len, flags): splice between two pipes that leaves
// the bytes in the first.
func tee(t *sched.Thread, f *sched.Frame) uint64 {
	n, flags := f.X[2], f.X[3]
	if n == 0 {
		return 0
	}
	if flags&^spliceFlags != 0 {
		return errno(unix.EINVAL)
	}
	in, ok1 := getFD(f.X[0])
	out, ok2 := getFD(f.X[1])
	if !ok1 || !ok2 || !in.Readable() || !out.Writable() {
		return errno(unix.EBADF)
	}
	ip, inPipe := vfs.PipeOf(in)
	op, outPipe := vfs.PipeOf(out)
	if !inPipe || !outPipe || ip == op {
		return errno(unix.EINVAL)
	}
	r, empty := vfs.SpliceOut(ip, out, min(n, maxRWCount), -1, true)
	nonblock := flags&unix.SPLICE_F_NONBLOCK != 0 || in.Nonblocking() || out.Nonblocking()
	return spliceResult(t, r, empty, nonblock, in, out, unix.EPOLLIN, unix.EPOLLOUT)
}

// regularFile returns the inode behind fl when it is a regular file:
// what sendfile and copy_file_range read from.
func regularFile(fl *vfs.File) (*fs.Inode, bool) {
	n, ok := fl.Impl.(*fs.Inode)
	if !ok || n.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false
	}
	return n, true
}

// sendfile(out_fd, in_fd, offset, count): a regular file's bytes, from
// *offset (which moves instead of the file's position) or the position,
// to any writable file. A blocking out takes all of count (or to the
// input's end), waiting as a write does and going on from where it was
// (Thread.Progress, the offset moved so far); a non-blocking one what
// it has room for.
func sendfile(t *sched.Thread, f *sched.Frame) uint64 {
	offp, count := uintptr(f.X[2]), f.X[3]
	pos, ok := readOffset(offp)
	if !ok {
		return errno(unix.EFAULT)
	}
	in, ok := getFD(f.X[1])
	if !ok || !in.Readable() {
		return errno(unix.EBADF)
	}
	if offp == 0 {
		pos = in.Pos
	} else if in.Impl.Seek(in, 0, unix.SEEK_CUR) == errno(unix.ESPIPE) {
		return errno(unix.ESPIPE)
	}
	if pos < 0 || int64(count) < 0 {
		return errno(unix.EINVAL)
	}
	count = min(count, maxRWCount)
	out, ok := getFD(f.X[0])
	if !ok || !out.Writable() {
		return errno(unix.EBADF)
	}
	node, regular := regularFile(in)
	if op, outPipe := vfs.PipeOf(out); outPipe && regular {
		r, full := vfs.SpliceIn(in, op, count, pos)
		if !vfs.IsErr(r) {
			pos += int64(r)
			setSendfilePos(in, offp, pos)
		}
		return spliceResult(t, r, full, out.Nonblocking(), out, in, unix.EPOLLOUT, unix.EPOLLIN)
	}
	if out.Flags&unix.O_APPEND != 0 || !regular || !spliceable(out) {
		return errno(unix.EINVAL)
	}
	done := uint64(0)
	if t.Retried {
		done = t.Progress
	}
	t.Progress = 0
	moved, r := fileTo(node, pos, out, count-done, -1)
	done += moved
	pos += int64(moved)
	if !setSendfilePos(in, offp, pos) {
		return errno(unix.EFAULT)
	}
	switch {
	case r == errno(unix.EAGAIN) && done < count:
		if w := vfs.Wait(t, out, unix.EPOLLOUT); w == 0 {
			t.Progress = done
			return 0
		}
	case r == errno(unix.EPIPE):
		postSignal(t, sigPIPE, userInfo(t, siUSER))
	}
	if done > 0 || !vfs.IsErr(r) {
		return done
	}
	return r
}

// fileTo writes up to n bytes of regular file node from pos to out (at
// outOff and on, or at out's position when outOff < 0), a page at a
// time lent to out's Write. It returns how many moved and out's last
// answer, which says why it stopped short (EAGAIN, an error, 0).
func fileTo(node *fs.Inode, pos int64, out *vfs.File, n uint64, outOff int64) (done, r uint64) {
	for done < n {
		b, e := fs.Chunk(node, pos+int64(done), &spliceZero)
		if e != 0 {
			if done == 0 {
				r = vfs.Err(e)
			}
			break
		}
		if len(b) == 0 {
			break
		}
		b = b[:min(uint64(len(b)), n-done)]
		at := outOff
		if outOff >= 0 {
			at += int64(done)
		}
		r = out.Impl.Write(out, usermem.Lend(b), uint64(len(b)), at)
		usermem.Return()
		if vfs.IsErr(r) || r == 0 {
			break
		}
		done += r
	}
	return done, r
}

// setSendfilePos moves sendfile's input to pos: *offp, or the position.
func setSendfilePos(in *vfs.File, offp uintptr, pos int64) bool {
	if offp == 0 {
		in.Pos = pos
		return true
	}
	return usermem.WriteU64(offp, uint64(pos))
}

// copy_file_range(fd_in, off_in, fd_out, off_out, len, flags): between
// two regular files, at the offsets given (which move) or the files'
// positions; not into an overlapping range of the same file.
func sysCopyFileRange(t *sched.Thread, f *sched.Frame) uint64 {
	offIn, offOut, n := uintptr(f.X[1]), uintptr(f.X[3]), f.X[4]
	if f.X[5] != 0 {
		return errno(unix.EINVAL)
	}
	in, ok1 := getFD(f.X[0])
	out, ok2 := getFD(f.X[2])
	if !ok1 || !ok2 {
		return errno(unix.EBADF)
	}
	pin, okIn := readOffset(offIn)
	pout, okOut := readOffset(offOut)
	if !okIn || !okOut {
		return errno(unix.EFAULT)
	}
	if offIn == 0 {
		pin = in.Pos
	}
	if offOut == 0 {
		pout = out.Pos
	}
	src, r1 := regularFile(in)
	dst, r2 := regularFile(out)
	switch {
	case in.Impl.Kind() == vfs.KindDir || out.Impl.Kind() == vfs.KindDir:
		return errno(unix.EISDIR)
	case !r1 || !r2:
		return errno(unix.EINVAL)
	case !in.Readable() || !out.Writable() || out.Flags&unix.O_APPEND != 0:
		return errno(unix.EBADF)
	case pin < 0 || pout < 0 || int64(n) < 0:
		return errno(unix.EINVAL)
	case src == dst && pout < pin+int64(n) && pin < pout+int64(n):
		return errno(unix.EINVAL)
	}
	done, r := fileTo(src, pin, out, min(n, maxRWCount), pout)
	if done == 0 && vfs.IsErr(r) {
		return r
	}
	pin, pout = pin+int64(done), pout+int64(done)
	if offIn == 0 {
		in.Pos = pin
	} else if !usermem.WriteU64(offIn, uint64(pin)) {
		return errno(unix.EFAULT)
	}
	if offOut == 0 {
		out.Pos = pout
	} else if !usermem.WriteU64(offOut, uint64(pout)) {
		return errno(unix.EFAULT)
	}
	return done
}
