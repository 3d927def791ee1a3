//go:build linux && arm64

package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

// The futex operations these figures call directly (futex(2),
// include/uapi/linux/futex.h); golang.org/x/sys/unix names only the
// system call.
const (
	futexWait        = 0
	futexWake        = 1
	futexPrivateFlag = 128
)

// futexWaitOn sleeps while *addr == val (or returns at once if it is not).
func futexWaitOn(addr *uint32, val uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWait|futexPrivateFlag, uintptr(val), 0, 0, 0)
}

// futexWakeOne wakes one thread sleeping on addr.
func futexWakeOne(addr *uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWake|futexPrivateFlag, 1, 0, 0, 0)
}

// pinned runs each fn on a thread of its own bound to core cores[i]
// (LockOSThread, then sched_setaffinity), starts them together once all
// are bound, and waits for them. Figures that measure the kernel across
// (or within) cores call the kernel from such threads, so that the Go
// scheduler does not move the work between cores or between threads.
func pinned(cores []int, fns ...func()) {
	var ready, bound sync.WaitGroup
	var start atomic.Bool
	ready.Add(len(fns))
	bound.Add(len(fns))
	for i, fn := range fns {
		go func() {
			defer ready.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var set unix.CPUSet
			set.Set(cores[i] % runtime.NumCPU())
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				guest.Fail("sched_setaffinity: " + err.Error())
			}
			bound.Done()
			for !start.Load() {
				syscall.Gettid() // a system call, so the core is not only spun
			}
			fn()
		}()
	}
	bound.Wait()
	start.Store(true)
	ready.Wait()
}

// futexPingPong returns the two sides of a futex ping-pong of rounds
// round trips: each side sets the other's word, wakes it, and sleeps on
// its own until the other sets it. Each returns rounds.
func futexPingPong(rounds int) (ping, pong func() int) {
	var a, b uint32
	ping = func() int {
		for i := 0; i < rounds; i++ {
			atomic.StoreUint32(&a, 1)
			futexWakeOne(&a)
			for atomic.LoadUint32(&b) == 0 {
				futexWaitOn(&b, 0)
			}
			atomic.StoreUint32(&b, 0)
		}
		return rounds
	}
	pong = func() int {
		for i := 0; i < rounds; i++ {
			for atomic.LoadUint32(&a) == 0 {
				futexWaitOn(&a, 0)
			}
			atomic.StoreUint32(&a, 0)
			atomic.StoreUint32(&b, 1)
			futexWakeOne(&b)
		}
		return rounds
	}
	return ping, pong
}
