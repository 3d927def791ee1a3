//go:build linux && arm64

// Sleeps makes nanosleep and clock_nanosleep calls with good and bad
// arguments and prints, one "sleeps: " line each, what they returned
// and whether a sleep ended before its time. The kernel answers these
// without its big lock when it can (kernel/linux's lockFreeSleep) and
// leaves the rest to the locked way (a timespec on a page not mapped
// yet); either way the lines must be Linux's (tests/testdata/sleeps-linux.txt,
// printed on Debian's Linux 6.1).
package main

import (
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kernelAddr is an address the app may not read.
const kernelAddr = 0xffff000000001000

func result(e unix.Errno) string {
	if e == 0 {
		return "0"
	}
	return unix.ErrnoName(e)
}

func nanosleep(req, rem uintptr) unix.Errno {
	_, _, e := unix.Syscall(unix.SYS_NANOSLEEP, req, rem, 0)
	return e
}

func clockNanosleep(clock, flags, req, rem uintptr) unix.Errno {
	_, _, e := unix.Syscall6(unix.SYS_CLOCK_NANOSLEEP, clock, flags, req, rem, 0, 0)
	return e
}

func ptr(ts *unix.Timespec) uintptr { return uintptr(unsafe.Pointer(ts)) }

// timed runs call, which asks to sleep d, and says whether it returned
// 0 and no earlier than d.
func timed(name string, d time.Duration, call func() unix.Errno) {
	start := time.Now()
	e := call()
	took := time.Since(start)
	early := ""
	if took < d-100*time.Nanosecond {
		early = fmt.Sprintf(", EARLY after %v", took)
	}
	fmt.Printf("sleeps: %s: %s%s\n", name, result(e), early)
}

func init() { runtime.LockOSThread() }

func main() {
	// The Go runtime's preemption signal may reach this thread as it
	// sleeps, and then the sleep ends with EINTR, on Linux too: blocked
	// here (the thread runs only main), every sleep runs its time.
	var urg unix.Sigset_t
	urg.Val[(unix.SIGURG-1)/64] |= 1 << ((unix.SIGURG - 1) % 64)
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &urg, nil); err != nil {
		fmt.Println("sleeps: rt_sigprocmask:", err)
		os.Exit(1)
	}
	for _, ts := range []unix.Timespec{{Sec: 0, Nsec: 1e9}, {Sec: -1, Nsec: 0}, {Sec: 0, Nsec: -1}} {
		fmt.Printf("sleeps: nanosleep {%d %d}: %s\n", ts.Sec, ts.Nsec, result(nanosleep(ptr(&ts), 0)))
	}
	fmt.Printf("sleeps: nanosleep NULL: %s\n", result(nanosleep(0, 0)))
	fmt.Printf("sleeps: nanosleep kernel address: %s\n", result(nanosleep(kernelAddr, 0)))
	// A timespec on a page the app mapped but never touched: zero, so no
	// sleep; the page is faulted in to read it.
	page, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		fmt.Println("sleeps: mmap:", err)
		os.Exit(1)
	}
	fmt.Printf("sleeps: nanosleep untouched page: %s\n", result(nanosleep(uintptr(unsafe.Pointer(&page[0])), 0)))
	var rem unix.Timespec
	d := 2 * time.Millisecond
	ts := unix.NsecToTimespec(int64(d))
	timed("nanosleep 2ms", d, func() unix.Errno { return nanosleep(ptr(&ts), ptr(&rem)) })
	timed("nanosleep 2ms, rem a kernel address", d, func() unix.Errno { return nanosleep(ptr(&ts), kernelAddr) })
	timed("nanosleep 0", 0, func() unix.Errno { var z unix.Timespec; return nanosleep(ptr(&z), 0) })

	one := unix.Timespec{Nsec: 1}
	for _, c := range []struct {
		name string
		id   uintptr
	}{
		{"CLOCK_REALTIME", unix.CLOCK_REALTIME}, {"CLOCK_MONOTONIC", unix.CLOCK_MONOTONIC},
		{"CLOCK_PROCESS_CPUTIME_ID", unix.CLOCK_PROCESS_CPUTIME_ID}, {"CLOCK_THREAD_CPUTIME_ID", unix.CLOCK_THREAD_CPUTIME_ID},
		{"CLOCK_MONOTONIC_RAW", unix.CLOCK_MONOTONIC_RAW}, {"CLOCK_REALTIME_COARSE", unix.CLOCK_REALTIME_COARSE},
		{"CLOCK_MONOTONIC_COARSE", unix.CLOCK_MONOTONIC_COARSE}, {"CLOCK_BOOTTIME", unix.CLOCK_BOOTTIME},
		{"CLOCK_TAI", unix.CLOCK_TAI}, {"clock 99", 99}, {"clock -1", ^uintptr(0)},
	} {
		fmt.Printf("sleeps: clock_nanosleep %s 1ns: %s\n", c.name, result(clockNanosleep(c.id, 0, ptr(&one), 0)))
	}
	bad := unix.Timespec{Nsec: 1e9}
	fmt.Printf("sleeps: clock_nanosleep CLOCK_MONOTONIC {0 1000000000}: %s\n", result(clockNanosleep(unix.CLOCK_MONOTONIC, 0, ptr(&bad), 0)))
	fmt.Printf("sleeps: clock_nanosleep CLOCK_MONOTONIC NULL: %s\n", result(clockNanosleep(unix.CLOCK_MONOTONIC, 0, 0, 0)))
	fmt.Printf("sleeps: clock_nanosleep clock 99 NULL: %s\n", result(clockNanosleep(99, 0, 0, 0)))

	for _, c := range []struct {
		name string
		id   uintptr
	}{{"CLOCK_MONOTONIC", unix.CLOCK_MONOTONIC}, {"CLOCK_REALTIME", unix.CLOCK_REALTIME}} {
		var now unix.Timespec
		unix.ClockGettime(int32(c.id), &now)
		at := unix.NsecToTimespec(now.Nano() + int64(d))
		e := clockNanosleep(c.id, unix.TIMER_ABSTIME, ptr(&at), 0)
		unix.ClockGettime(int32(c.id), &now)
		early := ""
		if now.Nano() < at.Nano()-100 {
			early = fmt.Sprintf(", EARLY by %v", time.Duration(at.Nano()-now.Nano()))
		}
		fmt.Printf("sleeps: clock_nanosleep %s TIMER_ABSTIME now+2ms: %s%s\n", c.name, result(e), early)
		past := unix.Timespec{Sec: 1}
		timed("clock_nanosleep "+c.name+" TIMER_ABSTIME in the past", 0, func() unix.Errno {
			return clockNanosleep(c.id, unix.TIMER_ABSTIME, ptr(&past), 0)
		})
	}
	timed("clock_nanosleep CLOCK_MONOTONIC 2ms", d, func() unix.Errno {
		return clockNanosleep(unix.CLOCK_MONOTONIC, 0, ptr(&ts), ptr(&rem))
	})
	timerSlack()
	if os.Getpid() == 1 {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
}

// timerSlack prints the calling thread's timer slack (how much later
// than asked its sleeps may end: 50 µs unless changed) as prctl gets
// and sets it, and sleeps with each.
func timerSlack() {
	get := func() string {
		r, _, e := unix.Syscall6(unix.SYS_PRCTL, unix.PR_GET_TIMERSLACK, 0, 0, 0, 0, 0)
		if e != 0 {
			return result(e)
		}
		return fmt.Sprint(r)
	}
	set := func(ns uintptr) string {
		_, _, e := unix.Syscall6(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, ns, 0, 0, 0, 0)
		return result(e)
	}
	ts := unix.Timespec{Nsec: 300_000}
	fmt.Printf("sleeps: PR_GET_TIMERSLACK: %s\n", get())
	for _, ns := range []uintptr{1, 2_000_000, 0} {
		fmt.Printf("sleeps: PR_SET_TIMERSLACK %d: %s, now %s\n", ns, set(ns), get())
		timed(fmt.Sprintf("nanosleep 300us with slack %d", ns), 300*time.Microsecond, func() unix.Errno {
			return nanosleep(ptr(&ts), 0)
		})
	}
}
