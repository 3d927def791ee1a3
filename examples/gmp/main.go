// Gmp makes the Go scheduler's behaviours happen, one after another, on
// however many cores it has, and says what each showed: goroutines spread
// over the Ps (and so over the cores), a goroutine blocked in a system
// call handing its P off so the others keep running, call-free loops
// preempted so that a sleeping goroutine still wakes on time, and a
// timer and a pipe read woken by the poller. It is `make run`'s demo;
// with -gotrace FILE it also writes Go's own execution trace
// (runtime/trace), which gometal trace draws beside the kernel's.
//
// The articles it follows are the ones the project grew from: G, M and
// P; run queues and stealing; hand-off in syscalls; sysmon and
// asynchronous preemption by SIGURG; the netpoller.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/trace"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	goTrace := flag.String("gotrace", "", "write a Go execution trace (runtime/trace) to this file")
	flag.Parse()
	if *goTrace != "" {
		f, err := os.Create(*goTrace)
		check(err)
		check(trace.Start(f))
		defer func() {
			trace.Stop()
			check(f.Close())
			fmt.Printf("Go execution trace: %s\n", *goTrace)
		}()
	}
	procs := runtime.GOMAXPROCS(0)
	fmt.Printf("gmp: %d cores, GOMAXPROCS=%d: one P per core, each run by an M (a kernel thread)\n\n", runtime.NumCPU(), procs)

	spread(procs)
	handoff(procs)
	preempt(procs)
	poller()
	schedSummary()
	fmt.Println("gmp: done; the kernel's per-core counters follow (GOMETAL_STATS=1)")
}

// schedSummary prints, from runtime/metrics, what GODEBUG=schedtrace
// prints at intervals: Ps, threads, goroutines made, and how long
// runnable goroutines waited for a P.
func schedSummary() {
	s := []metrics.Sample{
		{Name: "/sched/gomaxprocs:threads"}, {Name: "/sched/threads/total:threads"},
		{Name: "/sched/goroutines-created:goroutines"}, {Name: "/sched/latencies:seconds"},
	}
	metrics.Read(s)
	fmt.Printf("SCHED: gomaxprocs=%d threads=%d goroutines-created=%d; runnable→running latency p50=%v p99=%v\n\n",
		s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64(), quantile(s[3].Value, 0.5), quantile(s[3].Value, 0.99))
}

// quantile reads quantile q of a runtime/metrics histogram of seconds.
func quantile(v metrics.Value, q float64) time.Duration {
	if v.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	h := v.Float64Histogram()
	var total uint64
	for _, c := range h.Counts {
		total += c
	}
	seen := uint64(0)
	for i, c := range h.Counts {
		seen += c
		if total > 0 && float64(seen) >= q*float64(total) {
			upper := h.Buckets[i+1]
			if math.IsInf(upper, 1) {
				upper = h.Buckets[i]
			}
			return time.Duration(upper * 1e9).Round(time.Microsecond)
		}
	}
	return 0
}

// spread runs one busy goroutine per P and records, with getcpu(2), the
// cores each ran on: the runtime put them on different Ps, and each P's
// M on its own core.
func spread(procs int) {
	fmt.Println("1. spread: one busy goroutine per P")
	var wg sync.WaitGroup
	cores := make([]map[int]bool, procs)
	for g := range procs {
		cores[g] = map[int]bool{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			trace.WithRegion(context.Background(), "spread", func() {
				for end := time.Now().Add(150 * time.Millisecond); time.Now().Before(end); {
					spin(20000)
					if c, ok := cpu(); ok {
						cores[g][c] = true
					}
				}
			})
		}()
	}
	wg.Wait()
	all := map[int]bool{}
	for g := range procs {
		fmt.Printf("   goroutine %d ran on cores %v\n", g, keys(cores[g]))
		for c := range cores[g] {
			all[c] = true
		}
	}
	fmt.Printf("   => %d goroutines covered %d of %d cores\n\n", procs, len(all), runtime.NumCPU())
}

// handoff blocks one goroutine in read(2) on a pipe the poller does not
// watch (a raw blocking descriptor) while a busy goroutine per P
// computes: the runtime's sysmon sees the M stuck in the system call and
// hands its P to another M, so all of them keep making progress.
func handoff(procs int) {
	fmt.Println("2. hand-off: a goroutine blocks in read(2) for 100 ms while one per P computes")
	var p [2]int
	check(syscall.Pipe(p[:])) // blocking: read(2) waits in the kernel
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	var stop atomic.Bool
	work := make([]int64, procs)
	var wg sync.WaitGroup
	for g := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				spin(10000)
				work[g]++
			}
		}()
	}
	blocked := make(chan time.Duration)
	go func() {
		start := time.Now()
		var b [1]byte
		syscall.Read(p[0], b[:])
		blocked <- time.Since(start)
	}()
	time.Sleep(100 * time.Millisecond)
	syscall.Write(p[1], []byte{1})
	d := <-blocked
	stop.Store(true)
	wg.Wait()
	fmt.Printf("   read(2) returned after %v; meanwhile the %d busy goroutines did %v rounds of work\n", d.Round(time.Millisecond), procs, work)
	fmt.Printf("   => the blocked M gave up its P (sysmon's retake), so all %d kept running\n\n", procs)
}

// preempt fills every P with a loop that makes no calls, so the runtime
// can only take the P back by asynchronous preemption (a SIGURG the
// kernel delivers as an interrupt on that core), and checks that a
// sleeping goroutine still wakes close to on time.
func preempt(procs int) {
	fmt.Printf("3. preemption: %d call-free loops hold every P; main sleeps 10 ms\n", procs)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for !stop.Load() { // no call: no cooperative preemption point
				n++
			}
			_ = n
		}()
	}
	time.Sleep(5 * time.Millisecond) // let them take the Ps
	start := time.Now()
	time.Sleep(10 * time.Millisecond)
	late := time.Since(start) - 10*time.Millisecond
	stop.Store(true)
	wg.Wait()
	fmt.Printf("   main woke %v late\n", late.Round(100*time.Microsecond))
	fmt.Printf("   => the loops were preempted (SIGURG: see 'signals: 23=' in the counters below)\n\n")
}

// poller parks one goroutine on a timer and one on a pipe read through
// the netpoller (os.Pipe is non-blocking, registered with epoll); the
// kernel's interrupt-driven poller wakes each.
func poller() {
	fmt.Println("4. poller: a timer and a pipe read, each woken by the netpoller")
	r, w, err := os.Pipe()
	check(err)
	defer r.Close()
	defer w.Close()
	start := time.Now()
	got := make(chan string, 2)
	go func() {
		<-time.After(20 * time.Millisecond)
		got <- fmt.Sprintf("timer (20 ms) fired at %v", time.Since(start).Round(100*time.Microsecond))
	}()
	go func() {
		b := make([]byte, 8)
		n, _ := r.Read(b) // parks in the netpoller, no thread held
		got <- fmt.Sprintf("pipe read %q at %v", b[:n], time.Since(start).Round(100*time.Microsecond))
	}()
	time.AfterFunc(30*time.Millisecond, func() { w.Write([]byte("wake")) })
	for range 2 {
		fmt.Println("  ", <-got)
	}
	fmt.Printf("   => no thread waited for either: both goroutines were parked, and epoll woke them\n\n")
}

// spin burns CPU without allocating.
func spin(n int) int {
	s := 0
	for i := range n {
		s += i * i
	}
	return s
}

// cpu is getcpu(2): the core the calling thread runs on now.
func cpu() (int, bool) {
	var c, node uint32
	_, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&node)), 0)
	return int(c), e == 0
}

func keys(m map[int]bool) []int {
	var k []int
	for c := range m {
		k = append(k, c)
	}
	sort.Ints(k)
	return k
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gmp:", err)
		os.Exit(1)
	}
}
