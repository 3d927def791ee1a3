package guest

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Stop ends the spinners; reading it is an intrinsic, not a call, so a
// spinner has no cooperative preemption point.
var Stop atomic.Int32

// Spin counts until Stop is set, with no function call in the loop: only
// asynchronous preemption (a signal) can take its P away.
//
//go:noinline
func Spin(counter *uint64) {
	for Stop.Load() == 0 {
		*counter++
	}
}

// EveryCore keeps every core busy with this program for 50 ms, so that
// each has switched to its address space: a core lets go of the last
// space it ran only when it runs another (ARCHITECTURE.md), and what
// sysinfo counts as free is what the cores have let go of.
func EveryCore() {
	var wg sync.WaitGroup
	for i := 0; i < 2*runtime.NumCPU(); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for end := Mono() + 50*time.Millisecond; Mono() < end; {
			}
		}()
	}
	wg.Wait()
}

// SpinSleep is the example from the scheduler literature: with one P
// and a goroutine spinning without calls, it returns how long main's
// time.Sleep(10ms) really took. It ends only if the runtime can preempt
// the spinner (sysmon → tgkill SIGURG → a signal frame → asyncPreempt).
func SpinSleep() time.Duration {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	Stop.Store(0)
	var n uint64
	done := make(chan bool)
	go func() { Spin(&n); done <- true }()
	runtime.Gosched() // let the spinner take the P
	start := time.Now()
	time.Sleep(10 * time.Millisecond)
	took := time.Since(start)
	Stop.Store(1)
	<-done
	if n == 0 {
		Fail("the spinner never ran")
	}
	return took
}

// Sleepers runs n goroutines that each sleep 1 ms in a loop for d, and
// returns how many times each woke (sorted) and how long it all took.
func Sleepers(n int, d time.Duration) (sorted []int64, took time.Duration) {
	counts := make([]int64, n)
	var wg sync.WaitGroup
	start := time.Now()
	stop := start.Add(d)
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				time.Sleep(time.Millisecond)
				counts[i]++
			}
		}()
	}
	wg.Wait()
	took = time.Since(start)
	sort.Slice(counts, func(i, j int) bool { return counts[i] < counts[j] })
	return counts, took
}

// Sum adds up counts.
func Sum(counts []int64) int64 {
	var s int64
	for _, c := range counts {
		s += c
	}
	return s
}

// Overshoots runs sleep rounds times and returns how far past want each
// ended, sorted.
func Overshoots(rounds int, want time.Duration, sleep func() time.Duration) []time.Duration {
	over := make([]time.Duration, rounds)
	for i := range over {
		over[i] = sleep() - want
	}
	sort.Slice(over, func(i, j int) bool { return over[i] < over[j] })
	return over
}

// TimedSleep sleeps d and returns how long that took.
func TimedSleep(d time.Duration) time.Duration {
	start := time.Now()
	time.Sleep(d)
	return time.Since(start)
}
