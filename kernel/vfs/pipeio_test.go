//go:build !arm64

package vfs

import (
	"bytes"
	"testing"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// try is TryPipeIO's result alone.
func try(th *sched.Thread, core int, f *File, buf uintptr, n uint64, write bool) uint64 {
	r, _ := TryPipeIO(th, core, f, buf, n, write)
	return r
}

// TryPipeIO answers what it can without the kernel lock and leaves the
// rest to the locked way with nothing changed.
func TestTryPipeIOMovesBytesOrLeavesThemAlone(t *testing.T) {
	buf := setup(t, 40)
	p, r, w := pipeFiles(t, unix.O_NONBLOCK)
	th := thread(t)
	msg := []byte("through the pipe, unlocked")
	put(t, buf, msg)
	// A fresh pipe has no ring page yet: allocating one is the locked
	// way's.
	if got := try(th, 0, w, buf, uint64(len(msg)), true); got != PipeIOLocked || p.Len() != 0 {
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
	if got := try(th, 0, r, buf+1000*mm.PageSize, 4, false); got != PipeIOLocked || p.Len() != len(msg) {
		t.Fatalf("read into unmapped memory: %d, %d left", int64(got), p.Len())
	}
	dst := buf + 20*mm.PageSize
	if got := try(th, 0, r, dst, 100, false); got != uint64(len(msg)) || !bytes.Equal(get(t, dst, len(msg)), msg) {
		t.Fatalf("read: %d %q", int64(got), get(t, dst, len(msg)))
	}
	// Wrong ends are EBADF, answered the locked way.
	if try(th, 0, r, buf, 1, true) != PipeIOLocked || try(th, 0, w, buf, 1, false) != PipeIOLocked {
		t.Fatal("a read end written, or a write end read, must go the locked way")
	}
	// A held pipe (a splice at work on it) goes the locked way whole.
	p.Hold()
	if try(th, 0, w, buf, 1, true) != PipeIOLocked {
		t.Fatal("held pipe written without the kernel lock")
	}
	p.Unhold()
	// No reader left: EPIPE and SIGPIPE are the locked way's.
	DecRef(r.Index())
	if try(th, 0, w, buf, 1, true) != PipeIOLocked {
		t.Fatal("write without a reader must go the locked way")
	}
}

// A blocking read of an empty pipe, and a blocking write that fills
// it, wait without the kernel lock (PipeIOWait), the write with the
// count it moved; the count read before the try lets the wait see a
// Notify in between.
func TestTryPipeIOBlockingWaits(t *testing.T) {
	buf := setup(t, 40)
	p, r, w := pipeFiles(t, 0)
	th := thread(t)
	// Allocate every ring page the locked way, then empty the ring.
	if Write(th, w, buf, PipeBufSize, -1) != PipeBufSize || Read(th, r, buf+20*mm.PageSize, PipeBufSize, -1) != PipeBufSize {
		t.Fatal("priming the ring")
	}
	got, gen := TryPipeIO(th, 0, r, buf, 10, false)
	if got != PipeIOWait || gen != p.W.Q.Gen() {
		t.Fatalf("blocking read of an empty pipe: %d (gen %d, queue at %d), want PipeIOWait", int64(got), gen, p.W.Q.Gen())
	}
	n := uint64(PipeBufSize + 5000)
	put(t, buf, make([]byte, n)) // fault the source in: the unlocked way never does
	got, gen = TryPipeIO(th, 0, w, buf, n, true)
	if got != PipeIOWait || th.Progress != PipeBufSize || th.Retried || p.Len() != PipeBufSize {
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
func TestTryPipeIOLeavesFIFOsAndSockets(t *testing.T) {
	buf := setup(t, 4)
	th := thread(t)
	fifo := NewFIFOPipe(9)
	fifo.AddEnd(false)
	fifo.AddEnd(true)
	w := &Files[Alloc(fifo.Writer(), unix.O_WRONLY|unix.O_NONBLOCK)]
	if try(th, 0, w, buf, 1, true) != PipeIOLocked {
		t.Fatal("FIFO written without the kernel lock")
	}
	sock, _, sw := pipeFiles(t, unix.O_NONBLOCK)
	sock.WriteOwner = &Waitable{}
	if try(th, 0, sw, buf, 1, true) != PipeIOLocked {
		t.Fatal("socket's pipe written without the kernel lock")
	}
}
