//go:build linux && arm64

// Timeouts checks that a timed wait never ends before its time, however
// the kernel waits for it: nanosleep and FUTEX_WAIT with a timeout, from
// four threads locked to their goroutines, for times around what a
// halted core's timer takes to wake it (the kernel arms its timer early
// and polls the last stretch; sched/idlepoll_arm64.go). It also wakes
// timed futex waits from another thread near their deadline, where a
// core that polls must still take the wake-up: each wait must end with
// either the wake (result 0, the word changed) or the timeout (ETIMEDOUT,
// no earlier than asked). Every failed check prints a FAIL line.
package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// slack allows for the clock's conversions: the kernel's deadline is a
// whole number of counter ticks, and each reading of the monotonic clock
// is rounded down to a nanosecond, so two readings may lose one tick
// (16 ns at QEMU's 62.5 MHz, 19 ns at a Pi 4's 54 MHz).
const slack = 100 * time.Nanosecond

// The futex operations (linux/futex.h; x/sys/unix has no names for them).
const (
	futexWaitOp  = 0
	futexWakeOp  = 1
	futexPrivate = 128
)

var failed atomic.Bool

func fail(format string, args ...any) {
	failed.Store(true)
	fmt.Printf("FAIL: "+format+"\n", args...)
}

func futexWait(word *uint32, val uint32, d time.Duration) unix.Errno {
	ts := unix.NsecToTimespec(int64(d))
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)),
		futexWaitOp|futexPrivate, uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
	return e
}

func futexWake(word *uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)),
		futexWakeOp|futexPrivate, 1, 0, 0, 0)
}

// neverEarly times rounds of each wait on threads threads and returns
// the overshoots by wait and length.
func neverEarly(threads, rounds int, lengths []time.Duration) map[string][]time.Duration {
	var mu sync.Mutex
	over := map[string][]time.Duration{}
	var wg sync.WaitGroup
	for th := 0; th < threads; th++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			var word uint32
			for r := 0; r < rounds; r++ {
				for _, d := range lengths {
					start := time.Now()
					sleep(d)
					slept := time.Since(start)
					start = time.Now()
					e := futexWaitFor(&word, d)
					waited := time.Since(start)
					if e != unix.ETIMEDOUT {
						fail("FUTEX_WAIT(%v) on an unchanged word: %v, want ETIMEDOUT", d, e)
					}
					if slept < d-slack {
						fail("nanosleep(%v) returned after %v", d, slept)
					}
					if waited < d-slack {
						fail("FUTEX_WAIT(%v) timed out after %v", d, waited)
					}
					mu.Lock()
					over["nanosleep "+d.String()] = append(over["nanosleep "+d.String()], slept-d)
					over["futex "+d.String()] = append(over["futex "+d.String()], waited-d)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return over
}

// wokenNearDeadline has a waker thread wake a timed FUTEX_WAIT some time
// between 80% and 100% of its timeout after it began, rounds times. Each
// round waits on a word of its own, so that a wake-up late for its round
// cannot meet the next one.
func wokenNearDeadline(rounds int, timeout time.Duration) (woken, timedOut int) {
	words := make([]uint32, rounds)
	type round struct {
		i  int
		t0 time.Time
	}
	begin := make(chan round, 1)
	finished := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		for r := range begin {
			at := r.t0.Add(timeout * time.Duration(80+r.i%20) / 100)
			sleep(time.Until(at))
			atomic.StoreUint32(&words[r.i], 1)
			futexWake(&words[r.i])
			finished <- struct{}{}
		}
	}()
	runtime.LockOSThread()
	for i := range words {
		start := time.Now()
		begin <- round{i, start}
		e := futexWaitFor(&words[i], timeout)
		waited := time.Since(start)
		switch e {
		case 0, unix.EAGAIN: // woken (EAGAIN: the word changed first)
			if atomic.LoadUint32(&words[i]) != 1 {
				fail("FUTEX_WAIT returned %v with the word unchanged", e)
			}
			woken++
		case unix.ETIMEDOUT:
			if waited < timeout-slack {
				fail("FUTEX_WAIT(%v) timed out after %v", timeout, waited)
			}
			timedOut++
		default:
			fail("FUTEX_WAIT: %v", e)
		}
		<-finished
	}
	close(begin)
	return woken, timedOut
}

// sleep is nanosleep for d, resumed after a signal (the Go runtime's
// preemption signal interrupts it with EINTR, as on Linux).
func sleep(d time.Duration) {
	for end := time.Now().Add(d); d > 0; d = time.Until(end) {
		ts := unix.NsecToTimespec(int64(d))
		if err := unix.Nanosleep(&ts, nil); err != nil && err != unix.EINTR {
			fail("nanosleep(%v): %v", d, err)
			return
		}
	}
}

// futexWaitFor is FUTEX_WAIT on an unchanged word for d, resumed after a
// signal (EINTR) with what is left of d.
func futexWaitFor(word *uint32, d time.Duration) unix.Errno {
	end := time.Now().Add(d)
	for {
		e := futexWait(word, 0, d)
		if e != unix.EINTR {
			return e
		}
		if d = time.Until(end); d <= 0 {
			return unix.ETIMEDOUT
		}
	}
}

func main() {
	lengths := []time.Duration{50 * time.Microsecond, 200 * time.Microsecond, time.Millisecond, 3 * time.Millisecond}
	over := neverEarly(4, 25, lengths)
	var keys []string
	for _, d := range lengths {
		keys = append(keys, "nanosleep "+d.String(), "futex "+d.String())
	}
	for _, k := range keys {
		v := over[k]
		slices.Sort(v)
		fmt.Printf("%-16s %3d waits, none early; overshoot median %v, max %v\n", k, len(v), v[len(v)/2].Round(time.Microsecond), v[len(v)-1].Round(time.Microsecond))
	}
	woken, timedOut := wokenNearDeadline(200, 2*time.Millisecond)
	fmt.Printf("near the deadline: 200 timed waits, %d woken, %d timed out, none early\n", woken, timedOut)
	if woken == 0 {
		fail("no wait was woken by the other thread")
	}
	if failed.Load() {
		os.Exit(1)
	}
	fmt.Println("PASS")
}
