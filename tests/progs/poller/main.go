//go:build linux && arm64

// Command poller exercises the interrupt-driven poller: timers, pipes,
// stdin, eventfd, timerfd and epoll itself. Every mode prints what it saw
// and "PASS", or "FAIL: ..." and exits 1.
//
//	poller sleepers          1000 goroutines sleep 1 ms in a loop for 2 s; all progress;
//	                         prints "BENCH timer_wakeups_per_s"
//	poller ticker            a 10 ms time.Ticker over 1 s: 100 ± 5 ticks
//	poller overshoot N       N sleeps of 1 ms; prints "BENCH sleep1ms_overshoot_us"
//	poller pipe-deadline     SetReadDeadline(50ms) on an empty os.Pipe times out
//	poller pipe-64m          64 MiB through an os.Pipe between goroutines, intact
//	poller stdin-line        reads one line from os.Stdin
//	poller stdin-deadline    stdin made non-blocking (so Go polls it); a 100 ms
//	                         read deadline with no input times out
//	poller eventfd           counter and semaphore modes, blocking and non-blocking
//	poller timerfd           one-shot, periodic, absolute, disarm, blocking read, epoll
//	poller epoll             level/edge/one-shot, MOD, DEL, closed fds, timeouts,
//	                         maxevents, epoll_pwait2
package main

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		guest.Fail("usage: poller MODE (see the package comment)")
	}
	switch os.Args[1] {
	case "sleepers":
		sleepers()
	case "ticker":
		ticker()
	case "overshoot":
		overshoot(guest.Arg(2, 200))
	case "pipe-deadline":
		pipeDeadline()
	case "pipe-64m":
		pipe64M()
	case "stdin-line":
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil {
			guest.Fail("reading stdin: " + err.Error())
		}
		fmt.Printf("stdin: %q\n", line)
	case "stdin-deadline":
		stdinDeadline()
	case "eventfd":
		eventfd()
	case "timerfd":
		timerfd()
	case "epoll":
		epoll()
	default:
		guest.Fail("unknown mode " + os.Args[1])
	}
	fmt.Println("PASS")
}

func check(ok bool, format string, a ...any) {
	if !ok {
		guest.Fail(fmt.Sprintf(format, a...))
	}
}

func sleepers() {
	const n = 1000
	sorted, took := guest.Sleepers(n, 2*time.Second)
	total := guest.Sum(sorted)
	fmt.Printf("%d sleepers over %v: %d wakeups, per goroutine min %d median %d max %d\n",
		n, took.Round(time.Millisecond), total, sorted[0], sorted[n/2], sorted[n-1])
	fmt.Printf("BENCH timer_wakeups_per_s %.0f /s\n", float64(total)/took.Seconds())
	check(sorted[0] >= 5, "a sleeper woke only %d times in 2 s", sorted[0])
}

func ticker() {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	start := time.Now()
	ticks := 0
	for time.Since(start) < time.Second {
		<-t.C
		ticks++
	}
	took := time.Since(start)
	drift := took - time.Duration(ticks)*10*time.Millisecond
	fmt.Printf("ticker 10ms: %d ticks in %v (drift %v)\n", ticks, took.Round(time.Microsecond), drift)
	check(ticks >= 95 && ticks <= 105, "%d ticks, want 100 ± 5", ticks)
}

func overshoot(n int) {
	over := guest.Overshoots(n, time.Millisecond, func() time.Duration { return guest.TimedSleep(time.Millisecond) })
	fmt.Printf("time.Sleep(1ms) overshoot over %d: min %v median %v max %v\n", n, over[0], over[n/2], over[n-1])
	fmt.Printf("BENCH sleep1ms_overshoot_us %d us\n", over[n/2].Microseconds())
}

func pipeDeadline() {
	r, w, err := os.Pipe()
	check(err == nil, "os.Pipe: %v", err)
	defer w.Close()
	start := time.Now()
	check(r.SetReadDeadline(start.Add(50*time.Millisecond)) == nil, "SetReadDeadline failed")
	var b [1]byte
	_, err = r.Read(b[:])
	took := time.Since(start)
	check(errors.Is(err, os.ErrDeadlineExceeded), "read: %v, want os.ErrDeadlineExceeded", err)
	check(took >= 50*time.Millisecond, "deadline hit after %v, before 50ms", took)
	fmt.Printf("pipe read with a 50ms deadline: %v after %v\n", err, took.Round(time.Millisecond))
}

func pipe64M() {
	const size = 64 << 20
	r, w, err := os.Pipe()
	check(err == nil, "os.Pipe: %v", err)
	want := make(chan [32]byte)
	go func() {
		h := sha256.New()
		src := rand.New(rand.NewSource(1))
		buf := make([]byte, 100_003) // not a multiple of the pipe's buffer
		for left := size; left > 0; {
			n := min(left, len(buf))
			src.Read(buf[:n])
			h.Write(buf[:n])
			if _, err := w.Write(buf[:n]); err != nil {
				guest.Fail("pipe write: " + err.Error())
			}
			left -= n
		}
		w.Close()
		want <- [32]byte(h.Sum(nil))
	}()
	start := time.Now()
	h := sha256.New()
	n, err := io.Copy(h, r)
	check(err == nil, "pipe read: %v", err)
	took := time.Since(start)
	check(n == size, "read %d bytes, want %d", n, size)
	check([32]byte(h.Sum(nil)) == <-want, "the bytes read differ from the bytes written")
	fmt.Printf("64 MiB through a pipe intact in %v (%.1f MiB/s)\n", took.Round(time.Millisecond), float64(size>>20)/took.Seconds())
}

func stdinDeadline() {
	// Go polls a descriptor only if it is non-blocking when the File is
	// made, as for any fd passed to os.NewFile on Linux.
	check(syscall.SetNonblock(0, true) == nil, "SetNonblock(0) failed")
	in := os.NewFile(0, "stdin")
	start := time.Now()
	check(in.SetReadDeadline(start.Add(100*time.Millisecond)) == nil, "SetReadDeadline on stdin failed: not pollable")
	var b [16]byte
	_, err := in.Read(b[:])
	check(errors.Is(err, os.ErrDeadlineExceeded), "stdin read: %v, want os.ErrDeadlineExceeded", err)
	fmt.Printf("stdin read with a 100ms deadline: %v after %v\n", err, time.Since(start).Round(time.Millisecond))
}

func rdU64(fd int) (uint64, error) {
	var b [8]byte
	_, err := unix.Read(fd, b[:])
	return *(*uint64)(unsafe.Pointer(&b[0])), err
}

func wrU64(fd int, v uint64) error {
	_, err := unix.Write(fd, (*[8]byte)(unsafe.Pointer(&v))[:])
	return err
}

// onThread runs fn on its own OS thread (blocking syscalls block only it).
func onThread(fn func() string) <-chan string {
	out := make(chan string, 1)
	go func() {
		runtime.LockOSThread()
		out <- fn()
	}()
	return out
}

func eventfd() {
	// Counter mode: writes add up, a read takes all.
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	check(err == nil, "eventfd: %v", err)
	check(wrU64(fd, 3) == nil && wrU64(fd, 4) == nil, "eventfd write failed")
	v, err := rdU64(fd)
	check(err == nil && v == 7, "counter read: %d, %v; want 7", v, err)
	_, err = rdU64(fd)
	check(err == unix.EAGAIN, "read of zero, non-blocking: %v, want EAGAIN", err)
	check(wrU64(fd, ^uint64(0)) == unix.EINVAL, "write of 2^64-1 must be EINVAL")
	check(wrU64(fd, 1) == nil, "write 1")
	check(wrU64(fd, ^uint64(0)-1) == unix.EAGAIN, "overflowing write, non-blocking: want EAGAIN")
	var small [4]byte
	_, err = unix.Read(fd, small[:])
	check(err == unix.EINVAL, "4-byte read: %v, want EINVAL", err)
	unix.Close(fd)

	// Semaphore mode: each read takes 1.
	fd, err = unix.Eventfd(3, unix.EFD_NONBLOCK|unix.EFD_SEMAPHORE)
	check(err == nil, "eventfd: %v", err)
	for i := 0; i < 3; i++ {
		v, err := rdU64(fd)
		check(err == nil && v == 1, "semaphore read %d: %d, %v; want 1", i, v, err)
	}
	_, err = rdU64(fd)
	check(err == unix.EAGAIN, "semaphore read of zero: %v, want EAGAIN", err)
	unix.Close(fd)

	// Blocking: a read of zero sleeps until another thread writes.
	fd, err = unix.Eventfd(0, 0)
	check(err == nil, "eventfd: %v", err)
	res := onThread(func() string {
		v, err := rdU64(fd)
		if err != nil || v != 42 {
			return fmt.Sprintf("blocking read: %d, %v; want 42", v, err)
		}
		return ""
	})
	time.Sleep(50 * time.Millisecond)
	check(wrU64(fd, 42) == nil, "write 42")
	check(<-res == "", "%s", "blocking read failed")
	// Blocking write that would overflow waits for a read.
	check(wrU64(fd, ^uint64(0)-1) == nil, "write max")
	res = onThread(func() string {
		if err := wrU64(fd, 5); err != nil {
			return "blocking write: " + err.Error()
		}
		return ""
	})
	time.Sleep(50 * time.Millisecond)
	v, err = rdU64(fd)
	check(err == nil && v == ^uint64(0)-1, "read max: %d, %v", v, err)
	check(<-res == "", "blocking write did not complete")
	v, err = rdU64(fd)
	check(err == nil && v == 5, "after the blocked write: %d, %v; want 5", v, err)

	// epoll: EPOLLOUT always, EPOLLIN while the count is not zero.
	ep, _ := unix.EpollCreate1(0)
	unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT, Fd: int32(fd)})
	ev := make([]unix.EpollEvent, 4)
	n, _ := unix.EpollWait(ep, ev, 0)
	check(n == 1 && ev[0].Events == unix.EPOLLOUT, "empty eventfd: %d events %#x, want EPOLLOUT", n, ev[0].Events)
	wrU64(fd, 1)
	n, _ = unix.EpollWait(ep, ev, 0)
	check(n == 1 && ev[0].Events == unix.EPOLLIN|unix.EPOLLOUT, "eventfd with 1: %#x, want EPOLLIN|EPOLLOUT", ev[0].Events)
	fmt.Println("eventfd: counter, semaphore, blocking read and write, EAGAIN/EINVAL, epoll readiness")
}

func timerfdSet(fd int, flags int, value, interval time.Duration) {
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(value)), Interval: unix.NsecToTimespec(int64(interval))}
	check(unix.TimerfdSettime(fd, flags, &its, nil) == nil, "timerfd_settime failed")
}

func timerfd() {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	check(err == nil, "timerfd_create: %v", err)
	_, err = rdU64(fd)
	check(err == unix.EAGAIN, "read of an unarmed timerfd: %v, want EAGAIN", err)

	// One-shot in 50 ms: gettime shows the time left; one expiration.
	timerfdSet(fd, 0, 50*time.Millisecond, 0)
	var cur unix.ItimerSpec
	check(unix.TimerfdGettime(fd, &cur) == nil, "timerfd_gettime")
	left := time.Duration(cur.Value.Nano())
	check(left > 0 && left <= 50*time.Millisecond, "gettime: %v left, want (0, 50ms]", left)
	time.Sleep(80 * time.Millisecond)
	v, err := rdU64(fd)
	check(err == nil && v == 1, "one-shot: %d expirations, %v; want 1", v, err)
	check(unix.TimerfdGettime(fd, &cur) == nil && cur.Value.Nano() == 0, "expired one-shot still armed: %v", cur.Value)

	// Periodic 10 ms for ~105 ms: about 10 expirations counted, even
	// unread.
	// The count is whole periods between arming and the read, so it lies
	// between the periods from the end of arming to the start of the read
	// and those from the start of arming to the end of the read: each
	// syscall is bracketed by clock reads, and a vCPU the host stalls
	// between them (TCG on a busy host stalls for tens of ms) widens the
	// bracket instead of failing the check.
	const period = 10 * time.Millisecond
	armed := time.Now()
	timerfdSet(fd, 0, period, period)
	armedEnd := time.Now()
	time.Sleep(105 * time.Millisecond)
	readStart := time.Now()
	v, err = rdU64(fd)
	readEnd := time.Now()
	lo, hi := int64(readStart.Sub(armedEnd)/period), int64(readEnd.Sub(armed)/period)
	check(err == nil && int64(v) >= lo && int64(v) <= hi, "periodic: %d expirations, %v; want %d..%d", v, err, lo, hi)
	fmt.Printf("timerfd: periodic 10ms, %d expirations in ~105ms\n", v)

	// Disarm.
	timerfdSet(fd, 0, 0, 0)
	check(unix.TimerfdGettime(fd, &cur) == nil && cur.Value.Nano() == 0 && cur.Interval.Nano() == 0, "disarmed timer: %+v", cur)
	time.Sleep(20 * time.Millisecond)
	_, err = rdU64(fd)
	check(err == unix.EAGAIN, "read after disarm: %v, want EAGAIN", err)

	// Absolute time in the past: expires at once.
	var now unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &now)
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(now.Nano() - int64(time.Millisecond))} // uptime is well over 1ms here
	check(unix.TimerfdSettime(fd, unix.TFD_TIMER_ABSTIME, &its, nil) == nil, "settime abstime")
	time.Sleep(5 * time.Millisecond)
	v, err = rdU64(fd)
	check(err == nil && v == 1, "absolute time in the past: %d, %v; want 1", v, err)

	// epoll wakes for it.
	ep, _ := unix.EpollCreate1(0)
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}) == nil, "epoll_ctl ADD timerfd")
	start := time.Now() // before arming: the timer cannot fire sooner than 30 ms after this
	timerfdSet(fd, 0, 30*time.Millisecond, 0)
	ev := make([]unix.EpollEvent, 1)
	n, err := epollWait(ep, ev, 1000)
	took := time.Since(start)
	check(err == nil && n == 1 && ev[0].Fd == int32(fd), "epoll_wait on a timerfd: %d, %v", n, err)
	check(took >= 29*time.Millisecond, "epoll woke after %v, before the 30ms timer", took)
	fmt.Printf("timerfd: epoll woke after %v for a 30ms timer\n", took.Round(time.Millisecond))
	unix.Close(ep)
	unix.Close(fd)

	// Blocking read sleeps until the expiration.
	bfd, err := unix.TimerfdCreate(unix.CLOCK_REALTIME, 0)
	check(err == nil, "timerfd_create(CLOCK_REALTIME): %v", err)
	armed = time.Now() // before arming: the read cannot return sooner than 40 ms after this
	timerfdSet(bfd, 0, 40*time.Millisecond, 0)
	res := onThread(func() string {
		v, err := rdU64(bfd)
		if took := time.Since(armed); err != nil || v != 1 || took < 39*time.Millisecond {
			return fmt.Sprintf("blocking read: %d, %v after %v of a 40ms timer", v, err, took)
		}
		return ""
	})
	msg := <-res
	check(msg == "", "%s", msg)

	// Bad arguments.
	_, err = unix.TimerfdCreate(12345, 0)
	check(err == unix.EINVAL, "bad clock: %v, want EINVAL", err)
	_, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, 0x1)
	check(err == unix.EINVAL, "bad flags: %v, want EINVAL", err)
	check(unix.TimerfdSettime(0, 0, &unix.ItimerSpec{}, nil) == unix.EINVAL, "settime on stdin: want EINVAL")
	check(unix.TimerfdSettime(999, 0, &unix.ItimerSpec{}, nil) == unix.EBADF, "settime on a closed fd: want EBADF")
	bad := unix.ItimerSpec{Value: unix.Timespec{Nsec: 2e9}}
	check(unix.TimerfdSettime(bfd, 0, &bad, nil) == unix.EINVAL, "settime with tv_nsec 2e9: want EINVAL")
	fmt.Println("timerfd: one-shot, gettime, periodic, disarm, absolute, epoll, blocking read, bad arguments")
}

// epollWait is epoll_wait that waits again when a signal to this thread
// (the runtime's SIGURG preemption) ends it with EINTR, which Linux does
// too (signal(7): epoll waits are never restarted), as the runtime's
// netpoll does.
func epollWait(ep int, ev []unix.EpollEvent, ms int) (int, error) {
	n, err := unix.EpollWait(ep, ev, ms)
	for err == unix.EINTR {
		n, err = unix.EpollWait(ep, ev, ms)
	}
	return n, err
}

func epoll() {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	check(err == nil, "epoll_create1: %v", err)
	var p [2]int
	check(unix.Pipe2(p[:], unix.O_NONBLOCK) == nil, "pipe2")
	ev := make([]unix.EpollEvent, 8)
	wait := func(ms int) int {
		n, err := epollWait(ep, ev, ms)
		check(err == nil, "epoll_wait: %v", err)
		return n
	}

	// Level-triggered: reported while data is there.
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, p[0], &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(p[0])}) == nil, "ADD")
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, p[0], &unix.EpollEvent{Events: unix.EPOLLIN}) == unix.EEXIST, "second ADD: want EEXIST")
	check(wait(0) == 0, "empty pipe reported ready")
	unix.Write(p[1], []byte("ab"))
	check(wait(0) == 1 && wait(0) == 1, "level-triggered: must report twice")

	// Edge-triggered: once per change.
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_MOD, p[0], &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(p[0])}) == nil, "MOD to ET")
	check(wait(0) == 1, "ET: first wait after MOD must report")
	check(wait(0) == 0, "ET: second wait without new data must not")
	unix.Write(p[1], []byte("c"))
	check(wait(0) == 1, "ET: new data must report")

	// One-shot: once, until MOD re-arms it.
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_MOD, p[0], &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(p[0])}) == nil, "MOD to ONESHOT")
	check(wait(0) == 1 && wait(0) == 0, "ONESHOT: exactly one report")
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_MOD, p[0], &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(p[0])}) == nil, "re-arm")
	check(wait(0) == 1, "ONESHOT re-armed by MOD must report")

	// Writer side: EPOLLOUT; closing the reader gives EPOLLERR.
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, p[1], &unix.EpollEvent{Events: unix.EPOLLOUT, Fd: int32(p[1])}) == nil, "ADD writer")
	check(wait(0) == 1 && ev[0].Fd == int32(p[1]) && ev[0].Events&unix.EPOLLOUT != 0, "writer must be EPOLLOUT")

	// DEL, then DEL again.
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_DEL, p[1], nil) == nil, "DEL")
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_DEL, p[1], nil) == unix.ENOENT, "second DEL: want ENOENT")
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_MOD, p[1], &unix.EpollEvent{Events: unix.EPOLLOUT}) == unix.ENOENT, "MOD of an absent fd: want ENOENT")

	// Closing the writer: the reader sees EPOLLHUP (after its data).
	var buf [8]byte
	unix.Read(p[0], buf[:])
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_MOD, p[0], &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(p[0])}) == nil, "MOD RDHUP")
	unix.Close(p[1])
	check(wait(0) == 1 && ev[0].Events&unix.EPOLLHUP != 0, "reader after the writer closed: %#x, want EPOLLHUP", ev[0].Events)

	// A closed fd leaves the interest list.
	unix.Close(p[0])
	check(wait(0) == 0, "closed fd still reported")

	// Timeouts: N ms, and epoll_pwait2's timespec.
	start := time.Now()
	check(wait(30) == 0, "timeout wait returned events")
	took := time.Since(start)
	check(took >= 30*time.Millisecond, "30ms timeout returned after %v", took)
	start = time.Now()
	var r uintptr
	var e unix.Errno
	for left := 40 * time.Millisecond; left > 0; left = 40*time.Millisecond - time.Since(start) {
		ts := unix.NsecToTimespec(int64(left))
		r, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(ep), uintptr(unsafe.Pointer(&ev[0])), 8, uintptr(unsafe.Pointer(&ts)), 0, 0)
		if e != unix.EINTR {
			break
		}
	}
	check(e == 0 && r == 0, "epoll_pwait2 40ms: %d, %v", r, e)
	took2 := time.Since(start)
	check(took2 >= 40*time.Millisecond, "epoll_pwait2 40ms returned after %v", took2)
	fmt.Printf("epoll: timeout 30ms after %v; epoll_pwait2 40ms after %v\n", took.Round(time.Millisecond), took2.Round(time.Millisecond))

	// maxevents: three ready fds, room for two.
	var fds [3]int
	for i := range fds {
		fds[i], _ = unix.Eventfd(1, unix.EFD_NONBLOCK)
		unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fds[i], &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fds[i])})
	}
	n, _ := unix.EpollWait(ep, ev[:2], 0)
	check(n == 2, "maxevents 2 with 3 ready: %d", n)

	// Bad arguments.
	_, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&ev[0])), 0, 0, 0, 0)
	check(e == unix.EINVAL, "maxevents 0: %v, want EINVAL", e)
	_, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), 8, 8, 0, 0, 0)
	check(e == unix.EFAULT, "events at a bad address: %v, want EFAULT", e)
	_, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT, 0, uintptr(unsafe.Pointer(&ev[0])), 8, 0, 0, 0)
	check(e == unix.EINVAL, "epoll_pwait on stdin: %v, want EINVAL", e)
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, ep, &unix.EpollEvent{Events: unix.EPOLLIN}) == unix.EINVAL, "adding an epoll fd to itself: want EINVAL")
	f, _ := os.CreateTemp("", "x")
	check(unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, int(f.Fd()), &unix.EpollEvent{Events: unix.EPOLLIN}) == unix.EPERM, "regular file: want EPERM")

	// Blocking wait woken from another goroutine by an eventfd write.
	efd, _ := unix.Eventfd(0, unix.EFD_NONBLOCK)
	ep2, _ := unix.EpollCreate1(0)
	unix.EpollCtl(ep2, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)})
	var woke atomic.Bool
	res := onThread(func() string {
		n, err := epollWait(ep2, make([]unix.EpollEvent, 1), -1)
		woke.Store(true)
		if n != 1 || err != nil {
			return fmt.Sprintf("blocking epoll_wait: %d, %v", n, err)
		}
		return ""
	})
	time.Sleep(50 * time.Millisecond)
	check(!woke.Load(), "epoll_wait(-1) returned with nothing ready")
	wrU64(efd, 1)
	msg := <-res
	check(msg == "", "%s", msg)
	fmt.Println("epoll: level, edge, one-shot, MOD, DEL, HUP, closed fds, timeouts, maxevents, bad arguments, wake-up")
}
