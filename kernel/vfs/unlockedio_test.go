//go:build !arm64

package vfs

import (
	"bytes"
	"testing"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// try is TryIO's result alone.
func try(th *sched.Thread, core int, f *File, buf uintptr, n uint64, write bool) uint64 {
	r, _ := TryIO(th, core, f, buf, n, write)
	return r
}

// TryIO answers what it can without the kernel lock and leaves the
// rest to the locked way with nothing changed.
func TestTryIOMovesBytesOrLeavesThemAlone(t *testing.T) {
	buf := setup(t, 40)
	p, r, w := pipeFiles(t, unix.O_NONBLOCK)
	th := thread(t)
	msg := []byte("through the pipe, unlocked")
	put(t, buf, msg)
	// A fresh pipe has no ring page yet: allocating one is the locked
	// way's.
	if got := try(th, 0, w, buf, uint64(len(msg)), true); got != IOLocked || p.Len() != 0 {
		t.Fatalf("write needing a ring page: %d, %d buffered", int64(got), p.Len())
	}
	if got := try(th, 0, r, buf, 10, false); got != Err(unix.EAGAIN) {
		t.Fatalf("non-blocking read of an empty pipe: %d, want EAGAIN", int64(got))
	}
	if Write(th, w, buf, 1, -1) != 1 || Read(th, r, buf+20*mm.PageSize, 1, -1) != 1 {
		t.Fatal("locked write and read of a byte")
	}
	if got := try(th, 0, w, buf, uint64(len(msg)), true); got != uint64(len(msg)) {
		t.Fatalf("write: %d", int64(got))
	}
	// A read into memory the app has not mapped faults, the locked way.
	if got := try(th, 0, r, buf+1000*mm.PageSize, 4, false); got != IOLocked || p.Len() != len(msg) {
		t.Fatalf("read into unmapped memory: %d, %d left", int64(got), p.Len())
	}
	dst := buf + 20*mm.PageSize
	if got := try(th, 0, r, dst, 100, false); got != uint64(len(msg)) || !bytes.Equal(get(t, dst, len(msg)), msg) {
		t.Fatalf("read: %d %q", int64(got), get(t, dst, len(msg)))
	}
	// Wrong ends are EBADF, answered the locked way.
	if try(th, 0, r, buf, 1, true) != IOLocked || try(th, 0, w, buf, 1, false) != IOLocked {
		t.Fatal("a read end written, or a write end read, must go the locked way")
	}
	// A held pipe (a splice at work on it) goes the locked way whole.
	p.Hold()
	if try(th, 0, w, buf, 1, true) != IOLocked {
		t.Fatal("held pipe written without the kernel lock")
	}
	p.Unhold()
	// No reader left: EPIPE and SIGPIPE are the locked way's.
	DecRef(r.Index())
	if try(th, 0, w, buf, 1, true) != IOLocked {
		t.Fatal("write without a reader must go the locked way")
	}
}

// A blocking read of an empty pipe, and a blocking write that fills
// it, wait without the kernel lock (IOWait), the write with the
// count it moved; the count read before the try lets the wait see a
// Notify in between.
func TestTryIOBlockingWaits(t *testing.T) {
	buf := setup(t, 40)
	p, r, w := pipeFiles(t, 0)
	th := thread(t)
	// Allocate every ring page the locked way, then empty the ring.
	if Write(th, w, buf, PipeBufSize, -1) != PipeBufSize || Read(th, r, buf+20*mm.PageSize, PipeBufSize, -1) != PipeBufSize {
		t.Fatal("priming the ring")
	}
	got, gen := TryIO(th, 0, r, buf, 10, false)
	if got != IOWait || gen != p.W.Q.Gen() {
		t.Fatalf("blocking read of an empty pipe: %d (gen %d, queue at %d), want IOWait", int64(got), gen, p.W.Q.Gen())
	}
	n := uint64(PipeBufSize + 5000)
	put(t, buf, make([]byte, n)) // fault the source in: the unlocked way never does
	got, gen = TryIO(th, 0, w, buf, n, true)
	if got != IOWait || th.Progress != PipeBufSize || th.Retried || p.Len() != PipeBufSize {
		t.Fatalf("big write: %d, progress %d, retried %v, %d buffered", int64(got), th.Progress, th.Retried, p.Len())
	}
	// Its own write notified the queue, after the count was read: the
	// wait must not block on a count that old.
	if gen == p.W.Q.Gen() {
		t.Fatal("the write's own Notify did not move the count past gen")
	}
	// Woken (Retry), the write goes on from its count.
	th.Retried = true
	if Read(thread(t), r, buf+20*mm.PageSize, 8000, -1) != 8000 {
		t.Fatal("reader")
	}
	if got := try(th, 0, w, buf, n, true); got != n || th.Progress != 0 || th.Retried {
		t.Fatalf("resumed write: %d, progress %d, retried %v", int64(got), th.Progress, th.Retried)
	}
}

// A FIFO's pipe and a socket's stay under the kernel lock whole.
func TestTryIOLeavesFIFOsAndSockets(t *testing.T) {
	buf := setup(t, 4)
	th := thread(t)
	fifo := NewFIFOPipe(9)
	fifo.AddEnd(false)
	fifo.AddEnd(true)
	w := &Files[Alloc(fifo.Writer(), unix.O_WRONLY|unix.O_NONBLOCK)]
	if try(th, 0, w, buf, 1, true) != IOLocked {
		t.Fatal("FIFO written without the kernel lock")
	}
	sock, _, sw := pipeFiles(t, unix.O_NONBLOCK)
	sock.WriteOwner = &Waitable{}
	if try(th, 0, sw, buf, 1, true) != IOLocked {
		t.Fatal("socket's pipe written without the kernel lock")
	}
}

// An eventfd read and written without the kernel lock: the counter as
// ever, a blocking call that would block waits (IOWait), a short
// buffer is EINVAL, an unmapped one the locked way's.
func TestTryIOEventfd(t *testing.T) {
	buf := setup(t, 1)
	th := thread(t)
	e := &Files[NewEventfd(0, false, 0)]
	n := &Files[NewEventfd(0, false, unix.O_NONBLOCK)]
	put(t, buf, []byte{5, 0, 0, 0, 0, 0, 0, 0})
	if got := try(th, 0, e, buf, 8, false); got != IOWait {
		t.Fatalf("blocking read of a zero count: %d, want IOWait", int64(got))
	}
	if got := try(th, 0, n, buf, 8, false); got != Err(unix.EAGAIN) {
		t.Fatalf("non-blocking read of a zero count: %d, want EAGAIN", int64(got))
	}
	if got := try(th, 0, e, buf, 4, true); got != Err(unix.EINVAL) {
		t.Fatalf("short write: %d, want EINVAL", int64(got))
	}
	if got := try(th, 0, e, buf, 8, true); got != 8 {
		t.Fatalf("write: %d", int64(got))
	}
	if got := try(th, 0, e, buf+100*mm.PageSize, 8, false); got != IOLocked {
		t.Fatalf("read into unmapped memory: %d, want the locked way", int64(got))
	}
	put(t, buf, make([]byte, 8))
	if got := try(th, 0, e, buf, 8, false); got != 8 || get(t, buf, 1)[0] != 5 {
		t.Fatalf("read: %d, value %d", int64(got), get(t, buf, 1)[0])
	}
	put(t, buf, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	if try(th, 0, e, buf, 8, true) != 8 || try(th, 0, e, buf, 8, true) != IOWait {
		t.Fatal("a write past the maximum must wait")
	}
}

// epoll_pwait collects without the kernel lock while every registration
// is on an object read without it, and not once one is not.
func TestTryCollect(t *testing.T) {
	buf := setup(t, 2)
	th := thread(t)
	ep, _, w := epollFixture(t, unix.EPOLLIN)
	efd := NewEventfd(1, false, unix.O_NONBLOCK)
	if e := ep.Ctl(unix.EPOLL_CTL_ADD, 4, efd, unix.EpollEvent{Events: unix.EPOLLIN, Fd: 4}); e != 0 {
		t.Fatalf("ctl add eventfd: %d", int64(e))
	}
	put(t, buf, make([]byte, 2*mm.PageSize)) // the unlocked way faults nothing in
	n, gen, ok := ep.TryCollect(0, buf, 8)
	if !ok || n != 1 || gen != ep.W.Q.Gen() {
		t.Fatalf("collect: %d events, ok %v", n, ok)
	}
	put(t, buf+mm.PageSize, []byte("x"))
	if Write(th, w, buf+mm.PageSize, 1, -1) != 1 {
		t.Fatal("pipe write")
	}
	if gen == ep.W.Q.Gen() {
		t.Fatal("a watched pipe's write did not notify the instance")
	}
	if n, _, ok := ep.TryCollect(0, buf, 8); !ok || n != 2 {
		t.Fatalf("collect after the write: %d events, ok %v", n, ok)
	}
	if _, _, ok := ep.TryCollect(0, buf+100*mm.PageSize, 8); ok {
		t.Fatal("collect into unmapped memory must go the locked way")
	}
	fifo := NewFIFOPipe(9)
	fifo.AddEnd(false)
	fr := Alloc(fifo.Reader(), unix.O_RDONLY|unix.O_NONBLOCK)
	if e := ep.Ctl(unix.EPOLL_CTL_ADD, 5, fr, unix.EpollEvent{Events: unix.EPOLLIN, Fd: 5}); e != 0 {
		t.Fatalf("ctl add fifo: %d", int64(e))
	}
	if _, _, ok := ep.TryCollect(0, buf, 8); ok {
		t.Fatal("a FIFO's registration needs the kernel lock")
	}
	if e := ep.Ctl(unix.EPOLL_CTL_DEL, 5, fr, unix.EpollEvent{}); e != 0 {
		t.Fatalf("ctl del: %d", int64(e))
	}
	if _, _, ok := ep.TryCollect(0, buf, 8); !ok {
		t.Fatal("with the FIFO gone, collect goes unlocked again")
	}
}

// A write of at most PIPE_BUF bytes goes in whole or waits (pipe(7)),
// on the locked way and the unlocked one alike; a bigger one takes what
// fits.
func TestSmallPipeWritesAreAtomic(t *testing.T) {
	buf := setup(t, 40)
	p, _, w := pipeFiles(t, 0)
	th := thread(t)
	put(t, buf, make([]byte, 20*mm.PageSize))
	if Write(th, w, buf, PipeBufSize-50, -1) != PipeBufSize-50 {
		t.Fatal("filling the pipe")
	}
	if got := try(th, 0, w, buf, 100, true); got != IOWait || th.Progress != 0 || p.Len() != PipeBufSize-50 {
		t.Fatalf("unlocked 100-byte write into 50 bytes of room: %d, progress %d, %d buffered", int64(got), th.Progress, p.Len())
	}
	if got := Write(th, w, buf, 100, -1); got != 0 || th.State != sched.Blocked || th.Progress != 0 || p.Len() != PipeBufSize-50 {
		t.Fatalf("locked 100-byte write: %d, state %d, progress %d, %d buffered", int64(got), th.State, th.Progress, p.Len())
	}
	nb := &Files[Alloc(p.Writer(), unix.O_WRONLY|unix.O_NONBLOCK)]
	if got := Write(thread(t), nb, buf, PipeAtomic, -1); got != Err(unix.EAGAIN) {
		t.Fatalf("non-blocking PIPE_BUF write into 50 bytes of room: %d, want EAGAIN", int64(got))
	}
	if got := Write(thread(t), nb, buf, PipeAtomic+1, -1); got != 50 {
		t.Fatalf("non-blocking write past PIPE_BUF: %d, want the 50 that fit", int64(got))
	}
}
