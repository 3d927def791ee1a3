//go:build linux && arm64

package main

import (
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

// The two wake-up figures: how long from one core's call that makes a
// thread runnable to that thread running its own code on another core.
// Each is half the round trip of a ping-pong between two threads pinned
// to cores 0 and 1; each half is a wake of a thread that is asleep in
// the kernel (it went to sleep while the other side was on its way), so
// a half is one wake: the waker's call, the interrupt to the other core,
// its leaving WFI and returning to the woken thread.

// futexWakeLatency: a futex ping-pong (futexPingPong).
func futexWakeLatency(s scale) {
	ping, pong := futexPingPong(s.wakeRounds)
	var took time.Duration
	pinned([]int{0, 1},
		func() {
			t0 := time.Now()
			ping()
			took = time.Since(t0)
		},
		func() { pong() })
	report("futex_wake_ns", perOp(took, 2*s.wakeRounds), "ns")
}

// epollWakeLatency: an eventfd ping-pong through epoll, as the Go runtime's
// netpoller waits: each side writes the other's eventfd and waits in
// epoll_pwait on an epoll instance watching its own, then reads it.
func epollWakeLatency(s scale) {
	efd := func() int {
		fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
		if err != nil {
			guest.Fail("eventfd: " + err.Error())
		}
		return fd
	}
	watch := func(fd int) int {
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			guest.Fail("epoll_create1: " + err.Error())
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			guest.Fail("epoll_ctl: " + err.Error())
		}
		return ep
	}
	ea, eb := efd(), efd()
	epa, epb := watch(ea), watch(eb)
	defer func() {
		for _, fd := range []int{ea, eb, epa, epb} {
			unix.Close(fd)
		}
	}()
	one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	side := func(mine, theirs, ep int, first bool, rounds int) {
		var buf [8]byte
		events := make([]unix.EpollEvent, 1)
		for i := 0; i < rounds; i++ {
			if first {
				if _, err := unix.Write(theirs, one); err != nil {
					guest.Fail("eventfd write: " + err.Error())
				}
			}
			for {
				n, err := unix.EpollWait(ep, events, -1)
				if err == unix.EINTR {
					continue
				}
				if err != nil || n != 1 {
					guest.Fail("epoll_wait: unexpected answer")
				}
				break
			}
			if _, err := unix.Read(mine, buf[:]); err != nil {
				guest.Fail("eventfd read: " + err.Error())
			}
			if !first {
				if _, err := unix.Write(theirs, one); err != nil {
					guest.Fail("eventfd write: " + err.Error())
				}
			}
		}
	}
	rounds := s.wakeRounds
	var took time.Duration
	pinned([]int{0, 1},
		func() {
			t0 := time.Now()
			side(ea, eb, epa, true, rounds)
			took = time.Since(t0)
		},
		func() { side(eb, ea, epb, false, rounds) })
	report("epoll_wake_ns", perOp(took, 2*rounds), "ns")
}
