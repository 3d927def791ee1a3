//go:build linux && arm64

// Command signals exercises preemption and asynchronous signals the way
// the Go runtime and ordinary programs use them; every mode prints what it
// saw and "PASS", or "FAIL: ..." and exits 1.
//
//	signals spin1            GOMAXPROCS(1), a call-free loop holds the P;
//	                         main's 10 ms sleep still ends (preemption)
//	signals latency N        N rounds of spin1, and N of the same sleep with no
//	                         spinner (the baseline); prints the median overshoots
//	                         as "BENCH preempt_latency_us" and
//	                         "BENCH sleep_overshoot_us"
//	signals gc               GOMAXPROCS(4), 8 call-free spinners, runtime.GC()
//	signals notify           signal.Notify(SIGUSR1): kill to the process, tgkill
//	                         to another thread; each arrives exactly once
//	signals mask             a thread blocks SIGUSR2, gets it sent, sees it in
//	                         rt_sigpending, unblocks: delivered exactly once
//	signals wait             rt_sigtimedwait: tgkill, rt_tgsigqueueinfo (si_code,
//	                         si_value), rt_sigqueueinfo, a sleeping waiter, timeout
//	signals eintr            SA_RESTART restarts a pipe read; nanosleep, epoll_pwait
//	                         and rt_sigsuspend return EINTR; bad arguments fail
//	signals race N           N signals each, tgkill'd the moment the receiving
//	                         thread says it is ready, into rt_sigtimedwait and
//	                         into rt_sigsuspend: none may be lost
//	signals slice            3 OS threads spinning with GOMAXPROCS(3) on however
//	                         many cores: every one progresses (kernel time slices)
//	signals sigint           waits for SIGINT through signal.Notify
//	signals hang             prints "waiting for Ctrl-C" and sleeps (Ctrl-C's default action)
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		guest.Fail("usage: signals spin1|latency N|gc|notify|mask|wait|eintr|race N|slice|sigint|hang")
	}
	switch os.Args[1] {
	case "spin1":
		fmt.Printf("sleep 10ms with a spinner holding the only P took %v\n", guest.SpinSleep())
	case "latency":
		latency(guest.Arg(2, 50))
	case "gc":
		gcWithSpinners()
	case "notify":
		notify()
	case "mask":
		mask()
	case "wait":
		wait()
	case "eintr":
		eintr()
	case "race":
		race(guest.Arg(2, 2000))
	case "slice":
		slice()
	case "sigint":
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt)
		fmt.Println("waiting for Ctrl-C")
		select {
		case s := <-c:
			fmt.Println("got", s)
		case <-time.After(30 * time.Second):
			guest.Fail("no SIGINT in 30 s")
		}
	case "hang":
		fmt.Println("waiting for Ctrl-C")
		time.Sleep(time.Minute)
		guest.Fail("still running after a minute")
	default:
		guest.Fail("unknown mode " + os.Args[1])
	}
	fmt.Println("PASS")
}

func latency(rounds int) {
	base := guest.Overshoots(rounds, 10*time.Millisecond, func() time.Duration { return guest.TimedSleep(10 * time.Millisecond) })
	pre := guest.Overshoots(rounds, 10*time.Millisecond, guest.SpinSleep)
	report("no spinner", "sleep_overshoot_us", base)
	report("a call-free spinner holding the only P", "preempt_latency_us", pre)
}

func report(what, name string, over []time.Duration) {
	med := over[len(over)/2]
	fmt.Printf("time.Sleep(10ms) overshoot with %s, %d rounds: min %v median %v max %v\n", what, len(over), over[0], med, over[len(over)-1])
	fmt.Printf("BENCH %s %d us\n", name, med.Microseconds())
}

// gcWithSpinners: a GC needs every goroutine stopped; call-free loops stop
// only by asynchronous preemption.
func gcWithSpinners() {
	runtime.GOMAXPROCS(4)
	guest.Stop.Store(0)
	var wg sync.WaitGroup
	counts := make([]uint64, 8)
	for i := range counts {
		wg.Add(1)
		go func() { defer wg.Done(); guest.Spin(&counts[i]) }()
	}
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	runtime.GC()
	took := time.Since(start)
	guest.Stop.Store(1)
	wg.Wait()
	fmt.Printf("GC with 8 spinners on GOMAXPROCS(4) took %v\n", took)
}

// onThread runs fn on a goroutine locked to its own OS thread and returns
// that thread's tid once fn has started; fn's result comes on the channel.
func onThread(fn func(tid int) string) (tid int, res <-chan string) {
	tids := make(chan int)
	out := make(chan string, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		id := unix.Gettid()
		tids <- id
		out <- fn(id)
	}()
	return <-tids, out
}

// expectSignals reads c for d and fails unless exactly want arrived.
func expectSignals(c <-chan os.Signal, want int, d time.Duration, what string) {
	got := 0
	deadline := time.After(d)
wait:
	for {
		select {
		case <-c:
			got++
		case <-deadline:
			break wait
		}
	}
	if got != want {
		guest.Fail(fmt.Sprintf("%s: %d signals arrived, want %d", what, got, want))
	}
	fmt.Printf("%s: %d arrived\n", what, got)
}

func notify() {
	c := make(chan os.Signal, 10)
	signal.Notify(c, syscall.SIGUSR1)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		guest.Fail("kill: " + err.Error())
	}
	expectSignals(c, 1, 500*time.Millisecond, "kill(getpid, SIGUSR1)")

	release := make(chan bool)
	tid, res := onThread(func(int) string { <-release; return "" })
	if tid == unix.Gettid() {
		guest.Fail("locked thread has the caller's tid")
	}
	if err := unix.Tgkill(os.Getpid(), tid, unix.SIGUSR1); err != nil {
		guest.Fail("tgkill: " + err.Error())
	}
	expectSignals(c, 1, 500*time.Millisecond, "tgkill(other thread, SIGUSR1)")
	close(release)
	<-res

	// Sending to nobody fails like Linux.
	if err := unix.Tgkill(os.Getpid(), 999999, unix.SIGUSR1); err != unix.ESRCH {
		guest.Fail(fmt.Sprintf("tgkill to no thread: %v, want ESRCH", err))
	}
	if err := unix.Kill(os.Getpid(), syscall.Signal(99)); err != unix.EINVAL {
		guest.Fail(fmt.Sprintf("kill with signal 99: %v, want EINVAL", err))
	}
	if err := unix.Kill(12345, unix.SIGUSR1); err != unix.ESRCH {
		guest.Fail(fmt.Sprintf("kill to another pid: %v, want ESRCH", err))
	}
	if err := unix.Kill(os.Getpid(), 0); err != nil {
		guest.Fail("kill(getpid, 0): " + err.Error())
	}
}

func sigset(sigs ...unix.Signal) *unix.Sigset_t {
	var s unix.Sigset_t
	for _, sig := range sigs {
		s.Val[0] |= 1 << (uint(sig) - 1)
	}
	return &s
}

func sigpending() uint64 {
	var s unix.Sigset_t
	if _, _, e := unix.RawSyscall(unix.SYS_RT_SIGPENDING, uintptr(unsafe.Pointer(&s)), 8, 0); e != 0 {
		guest.Fail("rt_sigpending: " + e.Error())
	}
	return s.Val[0]
}

func mask() {
	c := make(chan os.Signal, 10)
	signal.Notify(c, syscall.SIGUSR2)
	unblock := make(chan bool)
	_, res := onThread(func(tid int) string {
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, sigset(unix.SIGUSR2), nil); err != nil {
			return "sigprocmask: " + err.Error()
		}
		if err := unix.Tgkill(os.Getpid(), tid, unix.SIGUSR2); err != nil {
			return "tgkill: " + err.Error()
		}
		if p := sigpending(); p != 1<<(unix.SIGUSR2-1) {
			return fmt.Sprintf("rt_sigpending = %#x, want SIGUSR2 only", p)
		}
		<-unblock
		if err := unix.PthreadSigmask(unix.SIG_UNBLOCK, sigset(unix.SIGUSR2), nil); err != nil {
			return "sigprocmask: " + err.Error()
		}
		if p := sigpending(); p != 0 {
			return fmt.Sprintf("rt_sigpending after unblocking = %#x", p)
		}
		return ""
	})
	expectSignals(c, 0, 200*time.Millisecond, "SIGUSR2 while blocked")
	close(unblock)
	if msg := <-res; msg != "" {
		guest.Fail(msg)
	}
	expectSignals(c, 1, 500*time.Millisecond, "SIGUSR2 after unblocking")

	// A bad how and a bad address are refused, and change nothing.
	if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, 7, uintptr(unsafe.Pointer(sigset(unix.SIGUSR2))), 0, 8, 0, 0); e != unix.EINVAL {
		guest.Fail(fmt.Sprintf("rt_sigprocmask how=7: %v, want EINVAL", e))
	}
	if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_BLOCK, 8, 0, 8, 0, 0); e != unix.EFAULT {
		guest.Fail(fmt.Sprintf("rt_sigprocmask set=8: %v, want EFAULT", e))
	}
}

// siginfo as rt_sigtimedwait writes it: signo, errno, code, then the
// union: pid, uid, value.
type siginfo struct {
	Signo, Errno, Code int32
	_                  int32
	Pid, Uid           int32
	Value              uint64
	_                  [96]byte
}

const (
	siTkill = -6 // SI_TKILL
	siQueue = -1 // SI_QUEUE
)

// sigtimedwait is rt_sigtimedwait, again after EINTR: a handled signal
// outside the set (the runtime's SIGURG, sent to this thread just before
// it entered the call) ends the wait early on Linux too, and is not what
// these checks are about.
func sigtimedwait(set *unix.Sigset_t, info *siginfo, timeout *unix.Timespec) (int, unix.Errno) {
	for {
		r, _, e := unix.Syscall6(unix.SYS_RT_SIGTIMEDWAIT, uintptr(unsafe.Pointer(set)), uintptr(unsafe.Pointer(info)), uintptr(unsafe.Pointer(timeout)), 8, 0, 0)
		if e != unix.EINTR {
			return int(r), e
		}
	}
}

func wait() {
	sleeping := make(chan bool)
	_, res := onThread(func(tid int) string {
		usr2 := sigset(unix.SIGUSR2)
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, usr2, nil); err != nil {
			return "sigprocmask: " + err.Error()
		}
		// 1. Already pending: tgkill.
		unix.Tgkill(os.Getpid(), tid, unix.SIGUSR2)
		var info siginfo
		sec := unix.Timespec{Sec: 1}
		if sig, e := sigtimedwait(usr2, &info, &sec); e != 0 || sig != int(unix.SIGUSR2) {
			return fmt.Sprintf("sigtimedwait after tgkill: %d, %v", sig, e)
		}
		if info.Signo != int32(unix.SIGUSR2) || info.Code != siTkill || int(info.Pid) != os.Getpid() {
			return fmt.Sprintf("siginfo after tgkill: %+v", info)
		}
		fmt.Printf("tgkill: signo %d code %d pid %d\n", info.Signo, info.Code, info.Pid)

		// 2. rt_tgsigqueueinfo carries si_code and si_value.
		q := siginfo{Signo: int32(unix.SIGUSR2), Code: siQueue, Pid: int32(os.Getpid()), Value: 0x1234}
		if _, _, e := unix.RawSyscall6(unix.SYS_RT_TGSIGQUEUEINFO, uintptr(os.Getpid()), uintptr(tid), uintptr(unix.SIGUSR2), uintptr(unsafe.Pointer(&q)), 0, 0); e != 0 {
			return "rt_tgsigqueueinfo: " + e.Error()
		}
		info = siginfo{}
		if sig, e := sigtimedwait(usr2, &info, &sec); e != 0 || sig != int(unix.SIGUSR2) || info.Code != siQueue || info.Value != 0x1234 {
			return fmt.Sprintf("sigtimedwait after rt_tgsigqueueinfo: %d, %v, %+v", sig, e, info)
		}
		fmt.Printf("rt_tgsigqueueinfo: code %d value %#x\n", info.Code, info.Value)

		// 3. Nothing pending: the timeout ends it with EAGAIN.
		start := time.Now()
		short := unix.Timespec{Nsec: 50e6}
		if sig, e := sigtimedwait(usr2, &info, &short); e != unix.EAGAIN {
			return fmt.Sprintf("sigtimedwait with nothing pending: %d, %v, want EAGAIN", sig, e)
		}
		if d := time.Since(start); d < 50*time.Millisecond {
			return fmt.Sprintf("sigtimedwait timed out after %v, before 50ms", d)
		}

		// 4. Asleep in it, woken by a process-directed rt_sigqueueinfo
		// from another thread (the only thread waiting for it gets it).
		close(sleeping)
		info = siginfo{}
		if sig, e := sigtimedwait(usr2, &info, &unix.Timespec{Sec: 5}); e != 0 || sig != int(unix.SIGUSR2) || info.Value != 0x5678 {
			return fmt.Sprintf("sigtimedwait asleep: %d, %v, %+v", sig, e, info)
		}
		fmt.Printf("asleep in sigtimedwait, woken by rt_sigqueueinfo: value %#x\n", info.Value)
		return ""
	})
	// The waiter is asleep in rt_sigtimedwait; a process-directed
	// signal goes to the thread waiting for it, before any other.
	<-sleeping
	time.Sleep(50 * time.Millisecond)
	q := siginfo{Signo: int32(unix.SIGUSR2), Code: siQueue, Pid: int32(os.Getpid()), Value: 0x5678}
	if _, _, e := unix.RawSyscall(unix.SYS_RT_SIGQUEUEINFO, uintptr(os.Getpid()), uintptr(unix.SIGUSR2), uintptr(unsafe.Pointer(&q))); e != 0 {
		guest.Fail("rt_sigqueueinfo: " + e.Error())
	}
	if msg := <-res; msg != "" {
		guest.Fail(msg)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_RT_SIGQUEUEINFO, uintptr(os.Getpid()), uintptr(unix.SIGUSR2), 16); e != unix.EFAULT {
		guest.Fail(fmt.Sprintf("rt_sigqueueinfo with a bad siginfo: %v, want EFAULT", e))
	}
}

func eintr() {
	c := make(chan os.Signal, 10)
	signal.Notify(c, syscall.SIGUSR1) // Go's handler has SA_RESTART

	// A read of an empty blocking pipe, interrupted by a handled signal
	// with SA_RESTART: the read restarts and gets the byte written later.
	var p [2]int
	if err := unix.Pipe2(p[:], 0); err != nil {
		guest.Fail("pipe2: " + err.Error())
	}
	tid, res := onThread(func(int) string {
		var b [4]byte
		n, _, e := unix.Syscall(unix.SYS_READ, uintptr(p[0]), uintptr(unsafe.Pointer(&b[0])), 4)
		if e != 0 {
			return "read: " + e.Error()
		}
		return string(b[:n])
	})
	time.Sleep(100 * time.Millisecond)
	unix.Tgkill(os.Getpid(), tid, unix.SIGUSR1)
	expectSignals(c, 1, 300*time.Millisecond, "SIGUSR1 to a thread in read(pipe)")
	unix.Write(p[1], []byte("x"))
	if got := <-res; got != "x" {
		guest.Fail(fmt.Sprintf("restarted read returned %q, want \"x\"", got))
	}
	fmt.Println("read(pipe) restarted after the handler (SA_RESTART)")

	// nanosleep: EINTR with the time left.
	interruptWith(c, "nanosleep", func() string {
		ts := unix.Timespec{Sec: 2}
		var rem unix.Timespec
		_, _, e := unix.Syscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), uintptr(unsafe.Pointer(&rem)), 0)
		if e != unix.EINTR {
			return fmt.Sprintf("nanosleep: %v, want EINTR", e)
		}
		if left := time.Duration(rem.Nano()); left < time.Second || left > 2*time.Second {
			return fmt.Sprintf("nanosleep left %v, want 1s..2s", left)
		}
		return ""
	})
	fmt.Println("nanosleep: EINTR with the time left")

	// epoll_pwait: EINTR whatever SA_RESTART says.
	interruptWith(c, "epoll_pwait", func() string {
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return "epoll_create1: " + err.Error()
		}
		defer unix.Close(ep)
		var ev [1]unix.EpollEvent
		_, _, e := unix.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&ev[0])), 1, 5000, 0, 0)
		if e != unix.EINTR {
			return fmt.Sprintf("epoll_pwait: %v, want EINTR", e)
		}
		return ""
	})
	fmt.Println("epoll_pwait: EINTR")

	// rt_sigsuspend: SIGUSR1 pending but blocked; suspending with a mask
	// that lets it in runs the handler, returns EINTR, and puts the old
	// mask (blocking SIGUSR1) back.
	_, res = onThread(func(tid int) string {
		usr1 := sigset(unix.SIGUSR1)
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, usr1, nil); err != nil {
			return "sigprocmask: " + err.Error()
		}
		unix.Tgkill(os.Getpid(), tid, unix.SIGUSR1)
		var none unix.Sigset_t
		_, _, e := unix.Syscall(unix.SYS_RT_SIGSUSPEND, uintptr(unsafe.Pointer(&none)), 8, 0)
		if e != unix.EINTR {
			return fmt.Sprintf("rt_sigsuspend: %v, want EINTR", e)
		}
		var now unix.Sigset_t
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, nil, &now); err != nil {
			return "sigprocmask: " + err.Error()
		}
		if now.Val[0]&usr1.Val[0] == 0 {
			return "rt_sigsuspend did not put the old mask back"
		}
		unix.PthreadSigmask(unix.SIG_UNBLOCK, usr1, nil)
		return ""
	})
	if msg := <-res; msg != "" {
		guest.Fail(msg)
	}
	expectSignals(c, 1, 300*time.Millisecond, "SIGUSR1 through rt_sigsuspend")
	fmt.Println("rt_sigsuspend: handler ran, EINTR, old mask back")

	// Bad arguments.
	if _, _, e := unix.RawSyscall(unix.SYS_RT_SIGSUSPEND, 8, 8, 0); e != unix.EFAULT {
		guest.Fail(fmt.Sprintf("rt_sigsuspend with a bad mask: %v, want EFAULT", e))
	}
	if _, _, e := unix.RawSyscall(unix.SYS_RT_SIGPENDING, 8, 8, 0); e != unix.EFAULT {
		guest.Fail(fmt.Sprintf("rt_sigpending to a bad address: %v, want EFAULT", e))
	}
	if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGTIMEDWAIT, uintptr(unsafe.Pointer(sigset(unix.SIGUSR2))), 0, 0, 4, 0, 0); e != unix.EINVAL {
		guest.Fail(fmt.Sprintf("rt_sigtimedwait with sigsetsize 4: %v, want EINVAL", e))
	}
}

// interruptWith runs call (a blocking syscall) on its own thread, sends
// that thread SIGUSR1 100 ms later, and fails unless call reports
// success and the handler ran exactly once.
func interruptWith(c <-chan os.Signal, what string, call func() string) {
	tid, res := onThread(func(int) string { return call() })
	time.Sleep(100 * time.Millisecond)
	unix.Tgkill(os.Getpid(), tid, unix.SIGUSR1)
	if msg := <-res; msg != "" {
		guest.Fail(msg)
	}
	expectSignals(c, 1, 300*time.Millisecond, "SIGUSR1 to a thread in "+what)
}

// slice: more runnable threads than cores. Each spinner is an OS thread
// (LockOSThread) with its own P; the kernel must share the cores among
// them on its timer tick, or some never run.
func slice() {
	runtime.GOMAXPROCS(3)
	guest.Stop.Store(0)
	counts := make([]uint64, 3)
	var wg sync.WaitGroup
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			guest.Spin(&counts[i])
		}()
	}
	time.Sleep(time.Second)
	guest.Stop.Store(1)
	wg.Wait()
	lo, hi := counts[0], counts[0]
	for _, n := range counts {
		lo, hi = min(lo, n), max(hi, n)
	}
	fmt.Printf("3 spinning threads on %d cores for 1s: %v (min/max %.2f)\n", runtime.NumCPU(), counts, float64(lo)/float64(hi))
	if lo == 0 || float64(lo)/float64(hi) < 0.2 {
		guest.Fail("a spinning thread was starved")
	}
}

// race: a sender thread tgkills a receiver thread the moment the
// receiver says it is ready for the next signal, so each signal finds
// the receiver still running on its way into the wait, or already
// waiting: in rt_sigtimedwait (the signal blocked), then in
// rt_sigsuspend (a handler runs and returns through rt_sigreturn). A
// signal lost between a sender and a receiver entering its wait leaves
// the receiver waiting: rt_sigtimedwait's timeout, or the watchdog
// here, ends the run with the round it stopped at.
func race(rounds int) {
	c := make(chan os.Signal, rounds)
	signal.Notify(c, syscall.SIGUSR1)
	// A round takes well under a millisecond; one that lasts the 2 s
	// timeout had its signal found only when the timeout ended the wait.
	raceRounds("rt_sigtimedwait", rounds, func(i int) string {
		var info siginfo
		start := time.Now()
		sig, e := sigtimedwait(sigset(unix.SIGUSR2), &info, &unix.Timespec{Sec: 2})
		if e != 0 || sig != int(unix.SIGUSR2) {
			return fmt.Sprintf("round %d: rt_sigtimedwait: %d, %v (the signal was lost)", i, sig, e)
		}
		if d := time.Since(start); d >= 2*time.Second {
			return fmt.Sprintf("round %d: rt_sigtimedwait took the signal only at its timeout (%v): it did not end the wait", i, d)
		}
		return ""
	}, unix.SIGUSR2)
	// rt_sigsuspend with every signal but SIGUSR1 blocked (the runtime's
	// SIGURG included), so only the sender's signal ends it.
	only := ^sigset(unix.SIGUSR1).Val[0]
	raceRounds("rt_sigsuspend", rounds, func(i int) string {
		_, _, e := unix.Syscall(unix.SYS_RT_SIGSUSPEND, uintptr(unsafe.Pointer(&only)), 8, 0)
		if e != unix.EINTR {
			return fmt.Sprintf("round %d: rt_sigsuspend: %v, want EINTR", i, e)
		}
		return ""
	}, unix.SIGUSR1)
	if len(c) == 0 {
		guest.Fail("no SIGUSR1 reached signal.Notify")
	}
}

// raceRounds runs rounds of wait on a receiver thread that blocks sig,
// each after telling the sender, which then sends sig with tgkill.
func raceRounds(what string, rounds int, wait func(i int) string, sig unix.Signal) {
	var ready atomic.Int32 // the round the receiver is ready for, +1
	var done atomic.Int32
	tid, res := onThread(func(tid int) string {
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, sigset(sig), nil); err != nil {
			return "sigprocmask: " + err.Error()
		}
		for i := 0; i < rounds; i++ {
			ready.Store(int32(i + 1))
			if msg := wait(i); msg != "" {
				return msg
			}
			done.Store(int32(i + 1))
		}
		return ""
	})
	go func() {
		runtime.LockOSThread()
		for i := 0; i < rounds; i++ {
			for ready.Load() != int32(i+1) {
				runtime.Gosched()
			}
			if err := unix.Tgkill(os.Getpid(), tid, sig); err != nil {
				guest.Fail("tgkill: " + err.Error())
			}
		}
	}()
	start := time.Now()
	last, lastAt := int32(0), time.Now()
	for {
		select {
		case msg := <-res:
			if msg != "" {
				guest.Fail(msg)
			}
			fmt.Printf("%s: %d signals, each sent as the receiver got ready, all taken (%v)\n", what, rounds, time.Since(start).Round(time.Millisecond))
			return
		case <-time.After(100 * time.Millisecond):
		}
		if n := done.Load(); n != last {
			last, lastAt = n, time.Now()
		} else if time.Since(lastAt) > 10*time.Second {
			guest.Fail(fmt.Sprintf("%s: stuck in round %d for 10 s: a signal was lost", what, n))
		}
	}
}
