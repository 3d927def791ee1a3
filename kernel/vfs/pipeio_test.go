//go:build !arm64

package vfs

import (
	"bytes"
	"testing"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

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
	if got := TryPipeIO(th, 0, w, buf, uint64(len(msg)), true); got != PipeIOLocked || p.Len() != 0 {
		t.Fatalf("write needing a ring page: %d, %d buffered", int64(got), p.Len())
	}
	if got := TryPipeIO(th, 0, r, buf, 10, false); got != Err(unix.EAGAIN) {
		t.Fatalf("non-blocking read of an empty pipe: %d, want EAGAIN", int64(got))
	}
	if Write(th, w, buf, 1, -1) != 1 || Read(th, r, buf+20*mm.PageSize, 1, -1) != 1 {
		t.Fatal("locked write and read of a byte")
	}
	if got := TryPipeIO(th, 0, w, buf, uint64(len(msg)), true); got != uint64(len(msg)) {
		t.Fatalf("write: %d", int64(got))
	}
	// A read into memory the app has not mapped faults, the locked way.
	if got := TryPipeIO(th, 0, r, buf+1000*mm.PageSize, 4, false); got != PipeIOLocked || p.Len() != len(msg) {
		t.Fatalf("read into unmapped memory: %d, %d left", int64(got), p.Len())
	}
	dst := buf + 20*mm.PageSize
	if got := TryPipeIO(th, 0, r, dst, 100, false); got != uint64(len(msg)) || !bytes.Equal(get(t, dst, len(msg)), msg) {
		t.Fatalf("read: %d %q", int64(got), get(t, dst, len(msg)))
	}
	// Wrong ends are EBADF, answered the locked way.
	if TryPipeIO(th, 0, r, buf, 1, true) != PipeIOLocked || TryPipeIO(th, 0, w, buf, 1, false) != PipeIOLocked {
		t.Fatal("a read end written, or a write end read, must go the locked way")
	}
	// A held pipe (a splice at work on it) goes the locked way whole.
	p.Hold()
	if TryPipeIO(th, 0, w, buf, 1, true) != PipeIOLocked {
		t.Fatal("held pipe written without the kernel lock")
	}
	p.Unhold()
	// No reader left: EPIPE and SIGPIPE are the locked way's.
	DecRef(r.Index())
	if TryPipeIO(th, 0, w, buf, 1, true) != PipeIOLocked {
		t.Fatal("write without a reader must go the locked way")
	}
}

// A blocking write that fills the pipe hands the rest to the locked
// way with the count it moved, as a write woken by Retry has it, and a
// blocking read of an empty pipe waits the locked way.
func TestTryPipeIOBlockingHandsOver(t *testing.T) {
	buf := setup(t, 40)
	p, r, w := pipeFiles(t, 0)
	th := thread(t)
	// Allocate every ring page the locked way, then empty the ring.
	if Write(th, w, buf, PipeBufSize, -1) != PipeBufSize || Read(th, r, buf+20*mm.PageSize, PipeBufSize, -1) != PipeBufSize {
		t.Fatal("priming the ring")
	}
	if got := TryPipeIO(th, 0, r, buf, 10, false); got != PipeIOLocked {
		t.Fatalf("blocking read of an empty pipe: %d, want the locked way", int64(got))
	}
	n := uint64(PipeBufSize + 5000)
	if got := TryPipeIO(th, 0, w, buf, n, true); got != PipeIOLocked || th.Progress != PipeBufSize || !th.Retried || p.Len() != PipeBufSize {
		t.Fatalf("big write: %d, progress %d, retried %v, %d buffered", int64(got), th.Progress, th.Retried, p.Len())
	}
	// The locked way goes on from there and waits for room.
	if got := Write(th, w, buf, n, -1); got != 0 || th.State != sched.Blocked || th.Progress != PipeBufSize {
		t.Fatalf("locked way: %d, state %d, progress %d", int64(got), th.State, th.Progress)
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
	if TryPipeIO(th, 0, w, buf, 1, true) != PipeIOLocked {
		t.Fatal("FIFO written without the kernel lock")
	}
	sock, _, sw := pipeFiles(t, unix.O_NONBLOCK)
	sock.WriteOwner = &Waitable{}
	if TryPipeIO(th, 0, sw, buf, 1, true) != PipeIOLocked {
		t.Fatal("socket's pipe written without the kernel lock")
	}
}
