//go:build !arm64

package vfs

import (
	"bytes"
	"testing"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The file layer on the host: Go memory plays physical memory, a real
// mm.Space plays the app's address space (so usermem copies walk real
// page tables), and sched's thread table plays the app's threads, one
// core, everything under one "kernel lock" (the test's own goroutine).

// setup resets every table and returns the app buffer base (npages
// mapped read-write).
func setup(t *testing.T, npages int) uintptr {
	t.Helper()
	base := usermem.HostReset(1024, npages)
	sched.Reset(1)
	Reset()
	return base
}

func put(t *testing.T, addr uintptr, b []byte) {
	t.Helper()
	if !usermem.CopyOut(addr, b) {
		t.Fatalf("copy out to %#x", addr)
	}
}

func get(t *testing.T, addr uintptr, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if !usermem.CopyIn(b, addr) {
		t.Fatalf("copy in from %#x", addr)
	}
	return b
}

// thread returns a thread in a system call (Running, PC just after its
// SVC, X0 the call's first argument).
func thread(t *testing.T) *sched.Thread {
	th := sched.New()
	if th == nil {
		t.Fatal("no thread")
	}
	th.State = sched.Running
	th.Ctx.PC = 0x1004
	th.OrigX0 = 7
	return th
}

// retried reports whether th was made to run its call again, and puts
// it back in its call as the kernel would run it (Retried set).
func retried(th *sched.Thread) bool {
	if th.State != sched.Runnable || th.Ctx.PC != 0x1000 || th.Ctx.X[0] != th.OrigX0 || !th.Retried {
		return false
	}
	th.State = sched.Running
	th.Ctx.PC = 0x1004
	return true
}

func pipeFiles(t *testing.T, flags uint32) (*Pipe, *File, *File) {
	p := NewPipe()
	r, w := Alloc(p.Reader(), unix.O_RDONLY|flags), Alloc(p.Writer(), unix.O_WRONLY|flags)
	if p == nil || r < 0 || w < 0 {
		t.Fatal("no pipe")
	}
	return p, &Files[r], &Files[w]
}

func TestPipeWrapsAroundItsRing(t *testing.T) {
	buf := setup(t, 40)
	p, r, w := pipeFiles(t, unix.O_NONBLOCK)
	th := thread(t)
	// Fill to 3 KiB short of full, drain most of it, then write across
	// the ring's end: the bytes must come out in order.
	src := buf
	data := make([]byte, PipeBufSize)
	for i := range data {
		data[i] = byte(i * 7)
	}
	put(t, src, data)
	if n := Write(th, w, src, PipeBufSize-3072, -1); n != PipeBufSize-3072 {
		t.Fatalf("first write: %d", int64(n))
	}
	dst := buf + 20*mm.PageSize
	if n := Read(th, r, dst, PipeBufSize-4096, -1); n != PipeBufSize-4096 {
		t.Fatalf("drain: %d", int64(n))
	}
	// 1 KiB left in the ring, its head near the end: write 8 KiB, which
	// wraps.
	if n := Write(th, w, src, 8192, -1); n != 8192 {
		t.Fatalf("wrapping write: %d", int64(n))
	}
	if n := Read(th, r, dst, 1024+8192, -1); n != 1024+8192 {
		t.Fatalf("wrapped read: %d", int64(n))
	}
	want := append(append([]byte{}, data[PipeBufSize-4096:PipeBufSize-3072]...), data[:8192]...)
	if got := get(t, dst, len(want)); !bytes.Equal(got, want) {
		t.Fatal("bytes out of order across the ring's end")
	}
	if p.Len() != 0 || Read(th, r, dst, 1, -1) != Err(unix.EAGAIN) {
		t.Fatal("empty non-blocking pipe must answer EAGAIN")
	}
	// Full: a non-blocking write takes what fits, then EAGAIN.
	if n := Write(th, w, src, PipeBufSize+100, -1); n != PipeBufSize {
		t.Fatalf("write into an empty pipe took %d", int64(n))
	}
	if Write(th, w, src, 1, -1) != Err(unix.EAGAIN) {
		t.Fatal("full non-blocking pipe must answer EAGAIN")
	}
}

func TestBlockingPipeReadWaitsAndRetries(t *testing.T) {
	buf := setup(t, 4)
	_, r, w := pipeFiles(t, 0)
	reader, writer := thread(t), thread(t)
	if n := Read(reader, r, buf, 10, -1); n != 0 || reader.State != sched.Blocked || reader.Wait != sched.WaitFile {
		t.Fatalf("read of an empty pipe: %d, state %d", n, reader.State)
	}
	if Stats.Waits[KindPipe] != 1 {
		t.Errorf("waits counted: %v", Stats.Waits)
	}
	put(t, buf+mm.PageSize, []byte("hello"))
	if n := Write(writer, w, buf+mm.PageSize, 5, -1); n != 5 {
		t.Fatalf("write: %d", int64(n))
	}
	if !retried(reader) {
		t.Fatalf("reader not retried: state %d pc %#x", reader.State, reader.Ctx.PC)
	}
	if n := Read(reader, r, buf, 10, -1); n != 5 || string(get(t, buf, 5)) != "hello" {
		t.Fatalf("retried read: %d", int64(n))
	}
	// The last writer's close ends a wait with EOF.
	if n := Read(reader, r, buf, 10, -1); n != 0 || reader.State != sched.Blocked {
		t.Fatal("second read should wait")
	}
	DecRef(w.Index())
	if !retried(reader) || Read(reader, r, buf, 10, -1) != 0 || reader.State != sched.Running {
		t.Fatal("EOF after the writer's close")
	}
}

func TestBlockingPipeWriteTakesEverythingAcrossWaits(t *testing.T) {
	buf := setup(t, 40)
	_, r, w := pipeFiles(t, 0)
	writer, reader := thread(t), thread(t)
	n := uint64(PipeBufSize + 5000)
	if got := Write(writer, w, buf, n, -1); got != 0 || writer.State != sched.Blocked || writer.Progress != PipeBufSize {
		t.Fatalf("big write: %d, state %d, progress %d", got, writer.State, writer.Progress)
	}
	if got := Read(reader, r, buf+20*mm.PageSize, 8000, -1); got != 8000 {
		t.Fatalf("read: %d", int64(got))
	}
	if !retried(writer) {
		t.Fatal("writer not retried after room appeared")
	}
	if got := Write(writer, w, buf, n, -1); got != n || writer.State != sched.Running {
		t.Fatalf("resumed write returned %d (want the whole %d)", int64(got), n)
	}
	// Reading past the first run's bytes gets the rest, in order.
	if got := Read(reader, r, buf+20*mm.PageSize, 8000, -1); got != 8000 {
		t.Fatalf("read: %d", int64(got))
	}
}

func TestPipeWithoutReaderIsEPIPE(t *testing.T) {
	buf := setup(t, 1)
	_, r, w := pipeFiles(t, 0)
	DecRef(r.Index())
	if got := Write(thread(t), w, buf, 1, -1); got != Err(unix.EPIPE) {
		t.Fatalf("write without a reader: %d", int64(got))
	}
}

func TestEventfdCounterAndSemaphore(t *testing.T) {
	buf := setup(t, 1)
	th := thread(t)
	e := &Files[NewEventfd(3, false, unix.O_NONBLOCK)]
	s := &Files[NewEventfd(2, true, unix.O_NONBLOCK)]
	readU64 := func(f *File) uint64 {
		t.Helper()
		if n := Read(th, f, buf, 8, -1); n != 8 {
			t.Fatalf("eventfd read: %d", int64(n))
		}
		v, _ := usermem.ReadU64(buf)
		return v
	}
	usermem.WriteU64(buf, 4)
	Write(th, e, buf, 8, -1)
	if v := readU64(e); v != 7 {
		t.Errorf("counter read %d, want 7", v)
	}
	if Read(th, e, buf, 8, -1) != Err(unix.EAGAIN) {
		t.Error("empty eventfd must answer EAGAIN")
	}
	if readU64(s) != 1 || readU64(s) != 1 || Read(th, s, buf, 8, -1) != Err(unix.EAGAIN) {
		t.Error("semaphore mode must count down by 1")
	}
	if Read(th, e, buf, 4, -1) != Err(unix.EINVAL) {
		t.Error("short read must be EINVAL")
	}
	usermem.WriteU64(buf, ^uint64(0)-1)
	if Write(th, e, buf, 8, -1) != 8 {
		t.Error("write up to the maximum")
	}
	usermem.WriteU64(buf, 1)
	if Write(th, e, buf, 8, -1) != Err(unix.EAGAIN) {
		t.Error("overflow must answer EAGAIN")
	}
	if e.Impl.Readiness(e) != unix.EPOLLIN {
		t.Errorf("readiness of a full counter: %#x", e.Impl.Readiness(e))
	}
}

// epollFixture makes an instance watching the read end of a
// non-blocking pipe with events.
func epollFixture(t *testing.T, events uint32) (*Epoll, *File, *File) {
	ep := NewEpoll()
	Alloc(ep, unix.O_RDWR)
	_, r, w := pipeFiles(t, unix.O_NONBLOCK)
	if e := ep.Ctl(unix.EPOLL_CTL_ADD, 3, r.Index(), unix.EpollEvent{Events: events, Fd: 3}); e != 0 {
		t.Fatalf("ctl add: %d", int64(e))
	}
	return ep, r, w
}

func waitN(t *testing.T, ep *Epoll, th *sched.Thread, buf uintptr) uint64 {
	t.Helper()
	n := ep.Wait(th, buf, 8, true, 0)
	if IsErr(n) {
		t.Fatalf("epoll wait: %d", int64(n))
	}
	return n
}

func TestEpollLevelEdgeAndOneShot(t *testing.T) {
	buf := setup(t, 2)
	th := thread(t)
	data := buf + mm.PageSize
	put(t, data, []byte("xy"))

	ep, _, w := epollFixture(t, unix.EPOLLIN)
	Write(th, w, data, 1, -1)
	if waitN(t, ep, th, buf) != 1 || waitN(t, ep, th, buf) != 1 {
		t.Error("level-triggered: reported again while readable")
	}

	setup(t, 2)
	put(t, data, []byte("xy"))
	ep, _, w = epollFixture(t, unix.EPOLLIN|unix.EPOLLET)
	Write(th, w, data, 1, -1)
	if waitN(t, ep, th, buf) != 1 || waitN(t, ep, th, buf) != 0 {
		t.Error("edge-triggered: reported twice for one change")
	}
	Write(th, w, data, 1, -1)
	if waitN(t, ep, th, buf) != 1 {
		t.Error("edge-triggered: new data not reported")
	}

	setup(t, 2)
	put(t, data, []byte("xy"))
	ep, r, w := epollFixture(t, unix.EPOLLIN|unix.EPOLLONESHOT)
	Write(th, w, data, 1, -1)
	if waitN(t, ep, th, buf) != 1 {
		t.Fatal("one-shot: first event")
	}
	Write(th, w, data, 1, -1)
	if waitN(t, ep, th, buf) != 0 {
		t.Error("one-shot: reported after being disabled")
	}
	// Not even a hang-up: Linux queues nothing for a disabled one-shot
	// (ep_poll_callback), as checked on Linux.
	DecRef(w.Index())
	if waitN(t, ep, th, buf) != 0 {
		t.Error("one-shot: a hang-up reported after being disabled")
	}
	ep.Ctl(unix.EPOLL_CTL_MOD, 3, r.Index(), unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: 3})
	if waitN(t, ep, th, buf) != 1 {
		t.Error("one-shot: MOD did not re-arm it")
	}

	// A registration for no events still reports errors and hang-ups
	// (epoll_ctl adds them: do_epoll_ctl).
	setup(t, 2)
	ep, _, w = epollFixture(t, 0)
	if waitN(t, ep, th, buf) != 0 {
		t.Error("no events: reported while the pipe is open")
	}
	DecRef(w.Index())
	if waitN(t, ep, th, buf) != 1 {
		t.Error("no events: the hang-up not reported")
	}
}

func TestEpollWaiterWokenByNotifyAndRegistrationGoesWithFile(t *testing.T) {
	buf := setup(t, 2)
	waiter, writer := thread(t), thread(t)
	ep, r, w := epollFixture(t, unix.EPOLLIN)
	if n := ep.Wait(waiter, buf, 8, false, 0); n != 0 || waiter.State != sched.Blocked || waiter.Wait != sched.WaitEpoll {
		t.Fatal("wait with nothing ready must block")
	}
	put(t, buf+mm.PageSize, []byte("z"))
	Write(writer, w, buf+mm.PageSize, 1, -1)
	if !retried(waiter) || Stats.EpollWoken != 1 {
		t.Fatalf("epoll waiter not woken (woken %d)", Stats.EpollWoken)
	}
	if waitN(t, ep, waiter, buf) != 1 {
		t.Fatal("retried wait found nothing")
	}
	// Releasing the description drops its registration.
	DecRef(r.Index())
	if ep.list != 0 || pipes[0].W.watchers != 0 {
		t.Error("registration outlived its description")
	}
}

func TestTimerfdFireWakesReader(t *testing.T) {
	buf := setup(t, 1)
	tf, _ := NewTimerfd(false)
	f := &Files[Alloc(tf, unix.O_RDWR)]
	th := thread(t)
	if Read(th, f, buf, 8, -1) != 0 || th.State != sched.Blocked {
		t.Fatal("read of an unexpired timerfd must wait")
	}
	tf.Fire(3)
	if !retried(th) || Read(th, f, buf, 8, -1) != 8 {
		t.Fatal("expiry did not complete the read")
	}
	if v, _ := usermem.ReadU64(buf); v != 3 {
		t.Errorf("expirations %d, want 3", v)
	}
}

func TestWaitOnNonblockingIsEAGAIN(t *testing.T) {
	setup(t, 1)
	_, r, _ := pipeFiles(t, unix.O_NONBLOCK)
	th := thread(t)
	if Wait(th, r, unix.EPOLLIN) != Err(unix.EAGAIN) || th.State != sched.Running {
		t.Fatal("a non-blocking description must not wait")
	}
}

// A FIFO's pipe starts with no ends; opens add them, and an O_RDWR
// description is both; it goes with its last end, and its tag then no
// longer names it.
func TestFIFOPipeEnds(t *testing.T) {
	buf := setup(t, 1)
	p := NewFIFOPipe(7)
	if r, w := p.Ends(); r != 0 || w != 0 || !p.IsFIFO(7) || p.IsFIFO(8) {
		t.Fatalf("new FIFO pipe: ends %d %d, tag 7 %v", r, w, p.IsFIFO(7))
	}
	th := sched.New() // an open waiting for its partner
	sched.BlockOn(th, &p.W.Q, sched.WaitFile, unix.EPOLLIN|unix.EPOLLOUT, 0, 0)
	p.AddEnd(false)
	p.AddEnd(true)
	if th.State != sched.Runnable {
		t.Error("AddEnd did not retry the waiting open")
	}
	f := &Files[Alloc(p.Both(), unix.O_RDWR)]
	put(t, buf, []byte("rw"))
	if n := f.Impl.Write(f, buf, 2, -1); n != 2 {
		t.Fatalf("write through O_RDWR = %#x", n)
	}
	if n := f.Impl.Read(f, buf+8, 2, -1); n != 2 || string(get(t, buf+8, 2)) != "rw" {
		t.Fatalf("read through O_RDWR = %#x", n)
	}
	if r := f.Impl.Readiness(f); r&unix.EPOLLOUT == 0 {
		t.Errorf("O_RDWR readiness %#x lacks EPOLLOUT", r)
	}
	DecRef(f.Index())
	if p.IsFIFO(7) {
		t.Error("the pipe outlived its last end")
	}
}
