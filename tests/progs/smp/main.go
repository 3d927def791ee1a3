// Command smp checks that the app's Ms really run on every core: what the
// kernel reports (NumCPU, GOMAXPROCS, sched_getaffinity), where spinning
// goroutines are (getcpu), that shared memory stays exact under
// contention, and that a long mixed load ends without a hang.
//
//	smp info                 NumCPU, GOMAXPROCS, affinity count
//	smp spread               as many spinners as cores, each on its own core
//	smp mutex N              8 goroutines add 1 N times each under a sync.Mutex
//	smp affinity             sched_setaffinity pins the caller; bad masks fail
//	smp stress SECONDS       channels, mutexes, timers, GC, goroutine churn
//	smp work UNITS           a CPU-bound job split over NumCPU goroutines;
//	                         prints "BENCH cpu_parallel_ms <ms> ms"
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		guest.Fail("usage: smp info|spread|mutex N|affinity|stress SECONDS")
	}
	switch os.Args[1] {
	case "info":
		info()
	case "spread":
		spread()
	case "mutex":
		mutex(guest.Arg(2, 100000))
	case "affinity":
		affinity()
	case "stress":
		stress(time.Duration(guest.Arg(2, 30)) * time.Second)
	case "work":
		work(guest.Arg(2, 400))
	default:
		guest.Fail("unknown mode " + os.Args[1])
	}
}

// getcpu is the core the calling thread runs on.
func getcpu() int {
	var c, node uint32
	_, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&node)), 0)
	if e != 0 {
		guest.Fail("getcpu: " + e.Error())
	}
	return int(c)
}

func info() {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		guest.Fail("sched_getaffinity: " + err.Error())
	}
	fmt.Printf("NumCPU=%d GOMAXPROCS=%d affinity=%d\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), set.Count())
}

// spread starts one spinning goroutine per core, each on its own locked
// thread. They publish getcpu continuously until, at one moment, every
// spinner is seen on a different core (other runtime threads — sysmon, a
// spinning M — may hold a core for a moment, so one snapshot is not
// enough), or until 5 s pass. The result is the snapshot spinner 0 took
// when it stopped them: spinners store once more on their way out, and
// may be moved while the others exit, so a snapshot taken after they
// end says nothing about the moment they all ran.
func spread() {
	n := runtime.NumCPU()
	var arrived atomic.Int32
	var done atomic.Bool
	cpus := make([]atomic.Int32, n)
	deadline := time.Now().Add(5 * time.Second)
	var snap []int
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		cpus[i].Store(-1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			arrived.Add(1)
			for arrived.Load() < int32(n) {
			}
			for k := 0; !done.Load(); k++ {
				cpus[i].Store(int32(getcpu()))
				if i != 0 || k%64 != 0 {
					continue
				}
				s := snapshot(cpus)
				if distinct(s) == n || time.Now().After(deadline) {
					snap = s
					done.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("spinners=%d cores=%v distinct=%d\n", n, snap, distinct(snap))
}

// snapshot reads every spinner's core once, sorted.
func snapshot(cpus []atomic.Int32) []int {
	s := make([]int, len(cpus))
	for i := range cpus {
		s[i] = int(cpus[i].Load())
	}
	sort.Ints(s)
	return s
}

// distinct counts the cores in a snapshot (-1: not yet published).
func distinct(snap []int) int {
	seen := map[int]bool{}
	for _, c := range snap {
		if c >= 0 {
			seen[c] = true
		}
	}
	return len(seen)
}

func mutex(n int) {
	const workers = 8
	var mu sync.Mutex
	counter := 0
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				mu.Lock()
				counter++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	fmt.Printf("mutex counter=%d want=%d (%v)\n", counter, workers*n, time.Since(start).Round(time.Millisecond))
	if counter != workers*n {
		guest.Fail("lost increments")
	}
}

func affinity() {
	n := runtime.NumCPU()
	runtime.LockOSThread()
	for core := n - 1; core >= 0; core-- {
		var set unix.CPUSet
		set.Set(core)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			guest.Fail(fmt.Sprintf("sched_setaffinity(core %d): %v", core, err))
		}
		var got unix.CPUSet
		if err := unix.SchedGetaffinity(0, &got); err != nil || got.Count() != 1 || !got.IsSet(core) {
			guest.Fail(fmt.Sprintf("sched_getaffinity after pinning to %d: %v count=%d", core, err, got.Count()))
		}
		// Spin a little: a migration happens at the next kernel entry.
		for k := 0; k < 100; k++ {
			if getcpu() == core {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if c := getcpu(); c != core {
			guest.Fail(fmt.Sprintf("pinned to core %d, running on %d", core, c))
		}
		fmt.Printf("pinned to core %d: ok\n", core)
	}
	var none unix.CPUSet
	none.Set(63) // no such core
	if err := unix.SchedSetaffinity(0, &none); err != unix.EINVAL {
		guest.Fail(fmt.Sprintf("mask of no online core: %v, want EINVAL", err))
	}
	_, _, e := unix.RawSyscall(unix.SYS_SCHED_SETAFFINITY, 0, 128, 0x10)
	if e != unix.EFAULT {
		guest.Fail(fmt.Sprintf("mask at a bad address: %v, want EFAULT", e))
	}
	_, _, e = unix.RawSyscall(unix.SYS_SCHED_SETAFFINITY, 99999, 128, uintptr(unsafe.Pointer(&none)))
	if e != unix.ESRCH {
		guest.Fail(fmt.Sprintf("unknown tid: %v, want ESRCH", e))
	}
	var all unix.CPUSet
	for i := 0; i < n; i++ {
		all.Set(i)
	}
	if err := unix.SchedSetaffinity(0, &all); err != nil {
		guest.Fail("unpin: " + err.Error())
	}
	fmt.Println("affinity ok")
}

// stress runs a mix of the scheduler's hard cases on every core for d and
// checks every count at the end: a pipeline of channels whose sum must
// be exact, mutex-protected and atomic counters, timers and tickers that
// must fire, goroutines started and ended by the thousand, and garbage
// that keeps the GC (which stops the world) busy.
func stress(d time.Duration) {
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	var (
		pipeSum, pipeWant       atomic.Int64
		mu                      sync.Mutex
		locked                  int64
		lockedWant, atomicCount atomic.Int64
		timersFired, spawned    atomic.Int64
		gcs                     atomic.Int64
	)
	done := func() bool { return time.Now().After(deadline) }

	// Channel pipelines: producer -> 3 stages -> consumer.
	for p := 0; p < 2; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := make(chan int64)
			out := src
			for s := 0; s < 3; s++ {
				in := out
				next := make(chan int64, s) // unbuffered, then small buffers
				go func() {
					for v := range in {
						next <- v + 1
					}
					close(next)
				}()
				out = next
			}
			go func() {
				for v := int64(0); !done(); v++ {
					src <- v
					pipeWant.Add(v + 3)
				}
				close(src)
			}()
			for v := range out {
				pipeSum.Add(v)
			}
		}()
	}
	// Mutex and atomic contention.
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done() {
				for i := 0; i < 1000; i++ {
					mu.Lock()
					locked++
					mu.Unlock()
					lockedWant.Add(1)
					atomicCount.Add(1)
				}
				runtime.Gosched()
			}
		}()
	}
	// Timers: many short sleeps, AfterFunc, and a ticker.
	for w := 0; w < 50; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done() {
				time.Sleep(time.Duration(1+w%5) * time.Millisecond)
				timersFired.Add(1)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		fired := make(chan struct{}, 1)
		for !done() {
			<-t.C
			time.AfterFunc(time.Millisecond, func() { fired <- struct{}{} })
			<-fired
			timersFired.Add(1)
		}
	}()
	// Goroutine churn.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done() {
			var inner sync.WaitGroup
			for i := 0; i < 200; i++ {
				inner.Add(1)
				go func() { spawned.Add(1); inner.Done() }()
			}
			inner.Wait()
		}
	}()
	// Garbage and forced collections.
	wg.Add(1)
	go func() {
		defer wg.Done()
		var keep [][]byte
		for !done() {
			for i := 0; i < 1000; i++ {
				keep = append(keep, make([]byte, 64+i%512))
			}
			if len(keep) > 20000 {
				keep = keep[:0]
			}
			runtime.GC()
			gcs.Add(1)
		}
	}()
	wg.Wait()

	fmt.Printf("stress %v on %d cores: pipeline sum=%d want=%d; mutex=%d want=%d atomic=%d; timers=%d; goroutines spawned=%d; forced GCs=%d\n",
		d, runtime.NumCPU(), pipeSum.Load(), pipeWant.Load(), locked, lockedWant.Load(), atomicCount.Load(),
		timersFired.Load(), spawned.Load(), gcs.Load())
	switch {
	case pipeSum.Load() != pipeWant.Load():
		guest.Fail("pipeline sum differs")
	case locked != lockedWant.Load() || atomicCount.Load() != lockedWant.Load():
		guest.Fail("counter lost updates")
	case timersFired.Load() < 100 || spawned.Load() < 1000 || gcs.Load() < 5 || pipeWant.Load() == 0:
		guest.Fail("some part of the load made no progress")
	}
	fmt.Println("stress ok")
}

// work does units of pure computation (no allocation, no syscalls), split
// evenly over NumCPU goroutines, and prints how long it took on the
// guest's clock: with n cores it should take about 1/n of the time.
func work(units int) {
	n := runtime.NumCPU()
	var wg sync.WaitGroup
	var sink atomic.Uint64
	start := time.Now()
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(g + 1)
			for u := g; u < units; u += n {
				for i := 0; i < 100_000; i++ { // xorshift64
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
			}
			sink.Add(x)
		}()
	}
	wg.Wait()
	ms := float64(time.Since(start).Microseconds()) / 1000
	fmt.Printf("work: %d units on %d cores (checksum %x)\nBENCH cpu_parallel_ms %.1f ms\n", units, n, sink.Load(), ms)
}
